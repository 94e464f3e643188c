/**
 * Which desktop notification a terminal takes, from what it says about itself in the environment, and the
 * bytes. Inside tmux `TERM_PROGRAM` is tmux's own, so the variables the outer terminal exports (and tmux
 * passes on) are read too. Pure.
 */
import { cleanText } from '../../util/display-text.js'

/** `osc9`: iTerm2, Windows Terminal; `osc777`: WezTerm, foot, Ghostty; `osc99`: kitty. */
export type NotifyProtocol = 'osc9' | 'osc777' | 'osc99'

export interface NotifyTerminal {
  /** The terminal's own notification escape, when it is known to have one. */
  protocol?: NotifyProtocol
  tmux: boolean
  /** The desktop's notification program for terminals without an escape: `notify-send`, `osascript`. */
  program?: 'notify-send' | 'osascript'
}

export function detectNotifyTerminal(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
): NotifyTerminal {
  const tmux = Boolean(env.TMUX)
  // notify-send needs a desktop session here (over SSH it would notify the remote machine's, if any).
  const desktop = Boolean(env.DISPLAY || env.WAYLAND_DISPLAY) && !env.SSH_CONNECTION
  const program: NotifyTerminal['program'] =
    platform === 'darwin'
      ? env.SSH_CONNECTION
        ? undefined
        : 'osascript'
      : platform !== 'win32' && desktop
        ? 'notify-send'
        : undefined
  const protocol = terminalProtocol(env)
  const base = { tmux, ...(program ? { program } : {}) }
  return protocol ? { ...base, protocol } : base
}

function terminalProtocol(env: Readonly<Record<string, string | undefined>>): NotifyProtocol | undefined {
  const program = env.TERM_PROGRAM ?? ''
  const term = env.TERM ?? ''
  if (program === 'iTerm.app' || env.LC_TERMINAL === 'iTerm2' || env.ITERM_SESSION_ID) return 'osc9'
  if (term === 'xterm-kitty' || env.KITTY_WINDOW_ID) return 'osc99'
  if (program === 'WezTerm' || env.WEZTERM_PANE) return 'osc777'
  if (program === 'ghostty' || term === 'xterm-ghostty' || env.GHOSTTY_RESOURCES_DIR) return 'osc777'
  if (term === 'foot' || term.startsWith('foot-')) return 'osc777'
  if (env.WT_SESSION) return 'osc9'
  return undefined
}

/** Text safe inside an OSC: cleaned (no escapes or controls), no `;` (OSC 777's separator), short. */
function oscText(text: string): string {
  return cleanText(text)
    .replace(/[\r\n\t]+/g, ' ')
    .replaceAll(';', ',')
    .slice(0, 200)
}

/** The notification escape for `protocol`, wrapped in tmux's passthrough (every ESC doubled) inside tmux. */
export function notificationSequence(
  protocol: NotifyProtocol,
  title: string,
  body: string,
  terminal: { tmux: boolean },
): string {
  const t = oscText(title)
  const b = oscText(body)
  const sequence =
    protocol === 'osc9'
      ? `\x1b]9;${t}: ${b}\x07`
      : protocol === 'osc777'
        ? `\x1b]777;notify;${t};${b}\x07`
        : // kitty: the title first (d=0: more to come), then the body, one notification id.
          `\x1b]99;i=agent-tui:d=0:p=title;${t}\x1b\\\x1b]99;i=agent-tui:d=1:p=body;${b}\x1b\\`
  return terminal.tmux ? `\x1bPtmux;${sequence.replaceAll('\x1b', '\x1b\x1b')}\x1b\\` : sequence
}

/** The notification program's arguments: the text as separate arguments, never as code or an option. */
export function notificationProgramArgs(
  program: 'notify-send' | 'osascript',
  title: string,
  body: string,
): string[] {
  const t = cleanText(title).slice(0, 200)
  const b = cleanText(body).slice(0, 200)
  if (program === 'notify-send') return ['--app-name=agent-tui', '--', t, b]
  return [
    '-e',
    'on run argv',
    '-e',
    'display notification (item 2 of argv) with title (item 1 of argv)',
    '-e',
    'end run',
    t,
    b,
  ]
}
