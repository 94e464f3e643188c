/**
 * Which permission modes a session may switch to (docs/permissions.md#modes). The user cycles safe → auto → plan; dangerous
 * and ci lower every guard, so only a launch flag may set them. A session launched in one of them may come
 * back to it after visiting another mode (the user chose it at launch), but never reaches the other one.
 *
 * The runtime applies this to every mode change, whoever asks (a slash command, Shift+Tab, ExitPlanMode);
 * the UI reads it too, to cycle and to explain a refusal before asking.
 */
import { MODES, type Mode } from '../store/domain.js'

/** Modes the user may always pick in-app, in Shift+Tab order. */
export const USER_MODES: readonly Mode[] = ['safe', 'auto', 'plan']

/** The launch flags that set the modes outside USER_MODES, for the refusal message. */
const LAUNCH_FLAGS: Readonly<Record<Mode, string>> = {
  safe: '--mode safe',
  auto: '--mode auto',
  plan: '--mode plan',
  dangerous: '--dangerously-skip-permissions',
  ci: '-p or --mode ci',
}

/** The outcome of a mode change request: refused ones say why, in words for the user. */
export type ModeChange = { ok: true; mode: Mode } | { ok: false; reason: string }

export function isMode(text: string): text is Mode {
  return (MODES as readonly string[]).includes(text)
}

/** The modes this session may switch to, in Shift+Tab order: USER_MODES, then the launch mode if not among them. */
export function selectableModes(launch: Mode): readonly Mode[] {
  return USER_MODES.includes(launch) ? USER_MODES : [...USER_MODES, launch]
}

/** Shift+Tab: the next selectable mode; from a mode that is not selectable (cannot normally happen), SAFE. */
export function nextMode(current: Mode, launch: Mode): Mode {
  const modes = selectableModes(launch)
  const at = modes.indexOf(current)
  return at === -1 ? 'safe' : (modes[(at + 1) % modes.length] ?? 'safe')
}

/** Null when the session may switch to `target`; otherwise why not. */
export function modeChangeRefusal(target: Mode, launch: Mode): string | null {
  if (selectableModes(launch).includes(target)) return null
  return `${target} mode can only be chosen when starting agent-tui (${LAUNCH_FLAGS[target]})`
}
