import { type ReactNode, useMemo } from 'react'
import { useStore } from '../hooks/use-store.js'
import { PALETTES, themeNameFor } from './palette.js'
import { createTheme, type Theme } from './theme.js'
import { ThemeContext } from './theme-context.js'

/**
 * Provides the active theme: the one the caller built (`base`, at the terminal's colour level) until the
 * store holds a choice (`ui.theme`: the setting, `/theme`) or the terminal's background (`ui.background`),
 * then the palette they pick, at the same colour level. `children` gets it too, for the panes that take
 * the theme as a prop.
 */
export function Themed({ base, children }: { base: Theme; children: (theme: Theme) => ReactNode }) {
  const setting = useStore((s) => s.ui.theme)
  const background = useStore((s) => s.ui.background)
  const theme = useMemo(() => {
    if (setting === undefined && background === undefined) return base
    const name = themeNameFor(setting ?? 'auto', background)
    if (name === base.palette.name) return base
    return createTheme({ level: base.chalk.level, palette: PALETTES[name] })
  }, [base, setting, background])
  return <ThemeContext.Provider value={theme}>{children(theme)}</ThemeContext.Provider>
}
