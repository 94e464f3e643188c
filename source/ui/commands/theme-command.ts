/**
 * `/theme [name] [save]`: switches the palette for this session, and with `save` keeps it in the user's
 * settings too (docs/tui.md#themes). Without a name it lists the themes and which one is on.
 */
import { THEME_SETTINGS, type ThemeSetting } from '../../store/domain.js'
import type { State } from '../../store/state.js'
import { isThemeSetting, themeNameFor } from '../components/palette.js'
import type { CommandContext } from './command-context.js'
import type { SlashCommand } from './command-table.js'

const DESCRIPTIONS: Readonly<Record<ThemeSetting, string>> = {
  auto: "light or dark, from the terminal's background",
  dark: "for a dark background (the terminal's own colours)",
  light: 'for a light background',
  'high-contrast': 'readable on black and on white (WCAG AA)',
}

export const THEME_COMMAND: SlashCommand = {
  name: 'theme',
  argumentHint: '[auto|dark|light|high-contrast] [save]',
  description: 'Switch the colour theme (save: keep it in your settings)',
  completeArguments(partial) {
    const [name = '', ...rest] = partial.split(/\s+/)
    if (rest.length > 0)
      return isThemeSetting(name) && 'save'.startsWith(rest.join(' '))
        ? [{ value: `${name} save`, detail: 'also in your user settings' }]
        : []
    return THEME_SETTINGS.filter((t) => t.startsWith(name)).map((t) => ({
      value: t,
      detail: DESCRIPTIONS[t],
    }))
  },
  run: themeCommand,
}

/** What the theme is: `auto (light: …)` says what auto picked and why. */
export function themeLabel(state: State): string {
  const setting = state.ui.theme ?? 'auto'
  if (setting !== 'auto') return setting
  const background = state.ui.background
  const picked = themeNameFor('auto', background)
  return background
    ? `auto (${picked}: the terminal's background is ${background})`
    : `auto (${picked}: the terminal did not say its background)`
}

export async function themeCommand(ctx: CommandContext, args: string): Promise<void> {
  const words = args.trim().split(/\s+/).filter(Boolean)
  const current = ctx.getState().ui.theme ?? 'auto'
  if (words.length === 0) {
    ctx.showInfo('Themes — /theme <name> switches, /theme <name> save keeps it', [
      `Now: ${themeLabel(ctx.getState())}`,
      '',
      ...THEME_SETTINGS.map((t) => `${t === current ? '●' : ' '} ${t.padEnd(14)} ${DESCRIPTIONS[t]}`),
    ])
    return
  }
  const [name = '', flag, ...extra] = words
  if (!isThemeSetting(name) || (flag !== undefined && flag !== 'save') || extra.length > 0) {
    const what = isThemeSetting(name) ? `"${words.slice(1).join(' ')}"` : `No theme "${name}"`
    ctx.flash(`${what}: /theme ${THEME_SETTINGS.join('|')} [save]`, 'warn')
    return
  }
  if (!ctx.setTheme) {
    ctx.flash('Themes cannot be switched here', 'warn')
    return
  }
  ctx.setTheme(name)
  const label = themeLabel(ctx.getState())
  if (flag !== 'save') {
    ctx.flash(`Theme ${label} for this session — /theme ${name} save keeps it`)
    return
  }
  if (!ctx.saveTheme) {
    ctx.flash(`Theme ${label} for this session; it cannot be saved here`, 'warn')
    return
  }
  try {
    ctx.flash(`Theme ${label} — saved in ${await ctx.saveTheme(name)}`)
  } catch (err) {
    ctx.flash(`Theme ${label} for this session; not saved: ${(err as Error).message}`, 'error')
  }
}
