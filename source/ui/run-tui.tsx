import { render } from 'ink'
import type { ReactElement } from 'react'
import type { RuntimeCommands, SessionSummary } from '../agent/runtime/commands.js'
import type { Store } from '../store/create-store.js'
import type { EditorMode, State } from '../store/state.js'
import { cleanText } from '../util/display-text.js'
import { createClipboard } from './clipboard/clipboard.js'
import type { CommandTable } from './commands/command-table.js'
import type { ThemeSetting } from '../store/domain.js'
import { defaultTheme, type Theme } from './components/theme.js'
import { type SaveTheme, SaveThemeContext, ThemeContext } from './components/theme-context.js'
import { createViewStore } from './hooks/view-store.js'
import type { NotificationSettings } from './notify/notify-decision.js'
import { startNotifier } from './notify/notifier.js'
import { detectNotifyTerminal } from './notify/notify-terminal.js'
import { applyKeybindingOverrides, DEFAULT_BINDINGS } from './keys/bindings.js'
import { createMouseHub, mouseWanted } from './keys/mouse.js'
import { canFilterInput, createTerminalInput } from './keys/terminal-input.js'
import type { Prices } from './panes/status/format.js'
import { transcriptToMarkdown } from './panes/transcript/export.js'
import { SessionPicker } from './session-picker.js'
import type { SetupResult } from './setup/setup-model.js'
import type { SetupFormProps } from './setup/setup-form.js'
import type { Flash } from './shell-context.js'
import {
  type BackgroundProbe,
  backgroundFromColorFgBg,
  createBackgroundProbe,
} from './terminal/background-query.js'
import type { EarlyFrame } from './terminal/early-frame.js'
import { ScreenPainter } from './terminal/screen-painter.js'
import { TuiRoot } from './tui-root.js'

export interface RunTuiOptions {
  store: Store
  commands: RuntimeCommands
  /** The model's context window in tokens. */
  contextLimit: number
  /** A better context window, learnt after the first frame (the endpoint's model metadata). */
  contextLimitLater?: Promise<number | undefined>
  /** Settings `keybindings`: command name → key spec(s). */
  keybindings?: Record<string, string | string[]>
  /** Git branch for the status bar (read once by the caller). */
  branch?: string
  prices?: Prices
  /** Write the last turn to the normal scrollback after leaving the alternate screen. */
  printOnExit?: boolean
  theme?: Theme
  /** Settings `theme` (default `auto`: from the terminal's background). */
  themeSetting?: ThemeSetting
  /** The question about the background asked at the early frame; without one, asked here for `auto`. */
  background?: BackgroundProbe
  /** `/theme … save`: keeps the choice in the user's settings, resolves with the file. */
  saveTheme?: SaveTheme
  /**
   * Mouse-wheel scrolling via xterm mouse reporting; only ever in a terminal. Default: on unless
   * AGENT_TUI_NO_MOUSE is set (with reporting on, terminals select text with Shift+drag).
   */
  mouse?: boolean
  stdin?: NodeJS.ReadStream
  stdout?: NodeJS.WriteStream
  /** A first frame painted before the UI loaded, with the keys typed at it; taken over before Ink draws. */
  earlyFrame?: EarlyFrame
  /** Warm up Markdown rendering once the user starts typing (see `useRenderingWarmUp`): a fresh process. */
  warmUp?: boolean
  /** `/doctor`: the checks of `agent-tui doctor` for this session's endpoint, as lines. */
  doctor?: () => Promise<string[]>
  /**
   * The slash commands (default: the built-in ones). A caller that loads user or project commands creates
   * the table (`createCommandTable(BUILTIN_COMMANDS)`) and adds them, now or later.
   */
  commandTable?: CommandTable
  /** A program agent-tui may run itself, found outside the workspace (`/copy`'s clipboard fallback). */
  findProgram?: (name: string) => string | undefined
  /** Settings `notifications`: the bell and desktop notification when a prompt waits or a turn ends unwatched. */
  notifications?: NotificationSettings
  /** Settings `editorMode` (or what `/vim` left it at in the session before): `vim` turns vim mode on. */
  editorMode?: EditorMode
}

export interface TuiExit {
  status: number
  /** The session picked with `/resume`, to open next. */
  resume?: string
  /** `/login`: the setup form opens next, then this session again. */
  setup?: boolean
  /** The prompt's editing mode at the end when `/vim` changed it, for the session opened next. */
  editorMode?: EditorMode
}

/**
 * Runs the full-screen TUI until the user exits or picks another session. Resolves once the runtime has
 * shut down and Ink has restored the terminal (raw mode off, alternate screen left); Ink also restores
 * it on SIGTERM/SIGHUP/SIGINT.
 */
export async function runTui(opts: RunTuiOptions): Promise<TuiExit> {
  const stdout = opts.stdout ?? process.stdout
  const terminalStdin = opts.stdin ?? process.stdin
  // First, before anything else reads stdin: the keys typed at the early frame go back into it.
  const replaceEarlyFrame = opts.earlyFrame?.handOff() ?? ''
  const mouseHub = createMouseHub()
  const mouse = opts.mouse !== false && mouseWanted(terminalStdin, stdout)
  // In a terminal Ink reads a stand-in that hands it one key per read (and no mouse reports).
  // The bell and notifications go to the real stdout, between frames (the painter's guard strips them from one).
  const notifier = stdout.isTTY
    ? startNotifier({
        store: opts.store,
        settings: opts.notifications,
        terminal: detectNotifyTerminal(process.env, process.platform),
        write: (text) => stdout.write(text),
        find: opts.findProgram ?? (() => undefined),
        env: process.env,
      })
    : undefined
  const themeSetting = opts.themeSetting ?? 'auto'
  const background =
    opts.background ??
    (themeSetting === 'auto' && stdout.isTTY && canFilterInput(terminalStdin)
      ? createBackgroundProbe({ fallback: backgroundFromColorFgBg(process.env.COLORFGBG) })
      : undefined)
  const terminalInput = canFilterInput(terminalStdin)
    ? createTerminalInput({
        stdin: terminalStdin,
        stdout,
        mouse,
        onMouse: mouseHub.emit,
        ...(notifier ? { onFocus: notifier.setFocused } : {}),
        ...(background ? { background } : {}),
      })
    : null
  // The theme: the setting, then whatever the terminal says of its background (a later frame repaints).
  if (themeSetting !== 'auto') opts.store.dispatch({ type: 'ui/theme', theme: themeSetting })
  const said = background?.background()
  if (said) opts.store.dispatch({ type: 'ui/background', background: said })
  const stopListening = background?.onAnswer((answer) =>
    opts.store.dispatch({ type: 'ui/background', background: answer }),
  )
  const stdin = terminalInput?.stdin ?? terminalStdin
  // Only a real terminal gets the painter; elsewhere Ink renders the transcript rows itself.
  const painter = stdout.isTTY ? new ScreenPainter({ write: (text) => stdout.write(text) }) : undefined
  // `/copy`'s OSC 52 goes to the real stdout, between frames: the painter's guard would strip it from one.
  const clipboard = createClipboard({
    env: process.env,
    platform: process.platform,
    tty: Boolean(stdout.isTTY),
    write: (text) => stdout.write(text),
    find: opts.findProgram ?? (() => undefined),
  })
  const overrides = applyKeybindingOverrides(DEFAULT_BINDINGS, opts.keybindings)
  const bindings = overrides.ok ? overrides.bindings : DEFAULT_BINDINGS
  const startupMessage: Flash | undefined = overrides.ok
    ? undefined
    : { text: `Settings ${overrides.error} — using the default keys`, level: 'warn' }
  const branch = opts.branch
  if (opts.editorMode) opts.store.dispatch({ type: 'ui/editor-mode', mode: opts.editorMode })
  // The runtime's changes reach the view once the runtime waits, so a render never delays the loop.
  const viewStore = createViewStore(opts.store)

  let exitCode = 0
  let resume: string | undefined
  let setup = false
  let shutdown: Promise<void> | null = null
  // Once, whoever asks first (the user exiting, or Ink unmounting on a signal).
  const shutdownOnce = () => {
    shutdown ??= opts.commands.shutdown().catch(() => {})
    return shutdown
  }
  let instance: ReturnType<typeof render> | null = null
  const onExit = (code: number, next?: string, toSetup?: boolean) => {
    exitCode = code
    resume = next
    setup = toSetup === true
    void shutdownOnce().finally(() => instance?.unmount())
  }

  // Ink turns raw mode on only after its first frame; keys typed before that would be echoed by the
  // terminal onto the screen (over the prompt). Raw mode from here on; Ink turns it off when it exits.
  if (terminalStdin.isTTY) terminalStdin.setRawMode(true)
  // Asked here when no early frame did (asking twice is a no-op), in raw mode so the answer is not echoed;
  // the key reader takes it out of the keys.
  if (terminalInput) background?.ask((text) => stdout.write(text))
  const root = (contextLimit: number) => (
    <SaveThemeContext.Provider value={opts.saveTheme ?? null}>
      <TuiRoot
        store={viewStore}
        commands={opts.commands}
        bindings={bindings}
        contextLimit={contextLimit}
        theme={opts.theme ?? defaultTheme}
        branch={branch}
        prices={opts.prices}
        startupMessage={startupMessage}
        onExit={onExit}
        clipboard={clipboard}
        warmUp={opts.warmUp ?? false}
        {...(opts.doctor ? { doctor: opts.doctor } : {})}
        {...(opts.commandTable ? { commandTable: opts.commandTable } : {})}
        {...(mouse && terminalInput ? { mouse: mouseHub } : {})}
        {...(painter ? { painter } : {})}
      />
    </SaveThemeContext.Provider>
  )
  // Written just before Ink's first frame, which then replaces the early frame in one synchronized update.
  if (replaceEarlyFrame) stdout.write(replaceEarlyFrame)
  instance = render(root(opts.contextLimit), {
    stdout: painter ? painter.wrapStdout(stdout) : stdout,
    stdin,
    alternateScreen: true,
    incrementalRendering: true,
    maxFps: 30,
    exitOnCtrlC: false,
    patchConsole: false,
    // Terminals that speak the kitty keyboard protocol (kitty, WezTerm, Ghostty, foot, iTerm2…) then report
    // Shift+Enter and the Ctrl/Alt keys unambiguously. Ink asks the terminal and waits up to 200 ms for an
    // answer; others stay on the legacy encoding. Ink restores the terminal's mode on exit and around
    // suspensions (Ctrl+G's editor).
    kittyKeyboard: { mode: 'auto', flags: ['disambiguateEscapeCodes'] },
    // Decided from the TTY, not from CI detection: an e2e test in a pty under CI=true must be interactive.
    interactive: Boolean(stdout.isTTY),
  })
  let closed = false
  void opts.contextLimitLater?.then((limit) => {
    if (!closed && limit !== undefined && limit !== opts.contextLimit) instance?.rerender(root(limit))
  })
  try {
    await instance.waitUntilExit()
  } finally {
    closed = true
    stopListening?.()
    viewStore.dispose()
    notifier?.dispose()
    painter?.dispose()
    if (terminalStdin.isTTY) terminalStdin.setRawMode(false)
    await shutdownOnce()
  }
  const now = opts.store.getState().ui.editorMode
  const changed = now !== (opts.editorMode ?? 'normal') ? { editorMode: now } : {}
  if (resume !== undefined) return { status: exitCode, resume, ...changed }
  if (setup) return { status: exitCode, setup, ...changed }
  if (opts.printOnExit) {
    const text = lastTurnMarkdown(opts.store.getState())
    stdout.write(stdout.isTTY ? cleanText(text) : text)
  }
  return { status: exitCode, ...changed }
}

/** The last user turn and everything after it, as Markdown for the normal scrollback. */
export function lastTurnMarkdown(state: State): string {
  const order = state.transcript.order
  let start = 0
  for (let i = order.length - 1; i >= 0; i--) {
    const id = order[i]
    if (id !== undefined && state.transcript.items[id]?.kind === 'user') {
      start = i
      break
    }
  }
  return transcriptToMarkdown({ ...state, transcript: { ...state.transcript, order: order.slice(start) } })
}

/** The screens before a session: their own stdin/stdout (tests), and the theme the settings choose. */
type StandaloneIo = { stdin?: NodeJS.ReadStream; stdout?: NodeJS.WriteStream; theme?: Theme }

/**
 * Renders a screen that runs before (or instead of) the session, reading its own keys, until `body`'s
 * `close` is called; resolves then. `close(true)` also erases its lines first.
 */
async function runStandalone(
  io: StandaloneIo,
  body: (close: (erase?: boolean) => void) => ReactElement,
  opts: { alternateScreen?: boolean } = {},
) {
  const stdout = io.stdout ?? process.stdout
  const stdin = io.stdin ?? process.stdin
  // Raw from the start, as for the session: keys typed before Ink's first frame are not echoed.
  if (opts.alternateScreen && stdin.isTTY) stdin.setRawMode(true)
  let instance: ReturnType<typeof render> | null = null
  const close = (erase = false) => {
    if (erase) instance?.clear()
    instance?.unmount()
  }
  instance = render(
    <ThemeContext.Provider value={io.theme ?? defaultTheme}>{body(close)}</ThemeContext.Provider>,
    {
      stdout,
      stdin,
      exitOnCtrlC: false,
      patchConsole: false,
      interactive: Boolean(stdout.isTTY),
      ...(opts.alternateScreen && stdout.isTTY ? { alternateScreen: true } : {}),
    },
  )
  try {
    await instance.waitUntilExit()
  } finally {
    if (opts.alternateScreen && stdin.isTTY) stdin.setRawMode(false)
  }
}

export type SetupFormOptions = Omit<SetupFormProps, 'onDone' | 'onExit'>

export interface SetupOutcome {
  choice: SetupResult
  saved: boolean
  /** What the test request found. */
  note?: string
}

/**
 * The setup form in the alternate screen, until the user continues with a tested endpoint (resolves with
 * it, and whether it was saved) or leaves (null). Nothing of it stays on the screen.
 */
export async function runSetupForm(
  opts: SetupFormOptions,
  io: StandaloneIo = {},
): Promise<SetupOutcome | null> {
  // Off the session's path: only a start without an endpoint, or /login, loads the form.
  const { SetupForm } = await import('./setup/setup-form.js')
  let outcome: SetupOutcome | null = null
  await runStandalone(
    io,
    (close) => (
      <SetupForm
        {...opts}
        onDone={(choice, saved, note) => {
          outcome = { choice, saved, ...(note ? { note } : {}) }
          close()
        }}
        onExit={() => close()}
      />
    ),
    { alternateScreen: true },
  )
  return outcome
}

/**
 * The session picker of a bare `--resume`; resolves with the picked session's id, or null when the user
 * backed out. Its lines are erased before it resolves, so the session's screen starts clean.
 */
export async function runSessionPicker(
  sessions: readonly SessionSummary[],
  io: StandaloneIo = {},
): Promise<string | null> {
  let picked: string | null = null
  // Title, hint, a blank line, "… more" and the prompt's line stay outside the list.
  const rows = Math.max(3, ((io.stdout ?? process.stdout).rows || 24) - 6)
  await runStandalone(io, (close) => (
    <SessionPicker
      sessions={sessions}
      now={Date.now()}
      rows={rows}
      onDone={(id) => {
        picked = id
        close(true)
      }}
    />
  ))
  return picked
}
