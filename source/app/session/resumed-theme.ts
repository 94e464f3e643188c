/**
 * The theme a resumed session opens in (docs/tui.md#themes): the one the user left it in with `/theme`, as
 * the permission mode is (`permissions/modes.ts`, `resumedMode`), said in a notice when the settings name
 * another. A session where `/theme` was never used opens in the settings' theme, as a new one does.
 */
import { THEME_SETTINGS, type ThemeSetting } from '../../store/domain.js'

export function resumedTheme(at: {
  /** What the session's log says `/theme` chose last (the replayed `ui.theme`); absent: never used. */
  left: string | undefined
  /** The `theme` setting of this run; absent: `auto`. */
  setting: ThemeSetting | undefined
}): { theme: ThemeSetting | undefined; notice: string | null } {
  const { left, setting } = at
  // A log edited by hand may name anything: only a theme is taken.
  if (left === undefined || !(THEME_SETTINGS as readonly string[]).includes(left))
    return { theme: setting, notice: null }
  const chosen = left as ThemeSetting
  const configured = setting ?? 'auto'
  if (chosen === configured) return { theme: setting, notice: null }
  return {
    theme: chosen,
    notice: `resumed in the ${chosen} theme, where you left it (the settings say ${configured}; /theme ${chosen} save keeps it)`,
  }
}
