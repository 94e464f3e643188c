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

/**
 * The mode a resumed session starts in. Interactively it is the mode the user left it in, unless this run
 * names one on the command line or in AGENT_TUI_MODE (said then in a notice, as is a kept mode that differs
 * from the settings'); a mode only a launch flag sets (dangerous, ci) is never carried over to a run that
 * did not ask for it again. Headless runs take this run's mode: a script's `-p --continue` must not inherit
 * an AUTO the user once picked in the TUI.
 */
export function resumedMode(at: {
  left: Mode
  launch: { value: Mode; origin: 'flag' | 'env' | 'settings' | 'default' | 'none' }
  interactive: boolean
}): { mode: Mode; notice: string | null } {
  const { left, launch } = at
  const leftName = left.toUpperCase()
  const launchName = launch.value.toUpperCase()
  // A headless run's CI is not a mode anyone left a session in: a TUI continuing it just starts as usual.
  if (!at.interactive || left === launch.value || left === 'ci') return { mode: launch.value, notice: null }
  if (launch.origin === 'flag' || launch.origin === 'env') {
    const by = launch.origin === 'flag' ? 'the command line' : 'AGENT_TUI_MODE'
    return {
      mode: launch.value,
      notice: `resumed in ${launchName} mode (${by}); the session was left in ${leftName}`,
    }
  }
  if (!USER_MODES.includes(left)) {
    return {
      mode: launch.value,
      notice: `the session was left in ${leftName} mode, which only ${LAUNCH_FLAGS[left]} sets; resumed in ${launchName}`,
    }
  }
  const from =
    launch.origin === 'settings'
      ? `the settings say ${launch.value}`
      : `new sessions start in ${launch.value}`
  return { mode: left, notice: `resumed in ${leftName} mode, where you left it (${from})` }
}
