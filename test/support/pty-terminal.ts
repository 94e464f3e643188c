/**
 * Drives the built CLI inside a pseudo-terminal and reads its screen through a headless xterm emulator,
 * for end-to-end tests of the full-screen TUI. Tests wait on screen conditions (polling the emulator
 * buffer), never on fixed sleeps.
 */
import { type IPty, spawn } from '@lydell/node-pty'
import xtermHeadless, { type Terminal } from '@xterm/headless'
import { cliPath } from './run-cli.ts'

/** Key sequences as a terminal sends them. */
export const keys = {
  enter: '\r',
  esc: '\x1b',
  tab: '\t',
  shiftTab: '\x1b[Z',
  ctrlC: '\x03',
  ctrlD: '\x04',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  backspace: '\x7f',
} as const

export interface TuiExit {
  exitCode: number
  signal: number | undefined
}

export type ScreenCondition = string | RegExp | ((screen: string) => boolean)

export interface StartTuiOptions {
  /** Arguments after the CLI path. */
  args: string[]
  cwd: string
  /** The complete child environment (nothing is inherited); `CI` is always removed from it. */
  env: NodeJS.ProcessEnv
  cols?: number
  rows?: number
  /**
   * Called when the child asks the terminal its background (OSC 11), with a way to type into the
   * pseudo-terminal: the test answers as a terminal would (the headless emulator itself answers nothing).
   */
  onBackgroundQuery?: (type: (data: string) => void) => void
}

export interface TuiSession {
  /** The headless emulator fed with everything the child wrote. */
  readonly term: Terminal
  /** Everything the child wrote, raw (escape sequences included). */
  output(): string
  /** The visible lines of the active buffer, right-trimmed, joined with \n. */
  screen(): string
  /** The visible lines of the active buffer, right-trimmed. */
  lines(): string[]
  /** Resolves with the screen once `condition` holds; rejects with the screen after `timeoutMs`. */
  waitFor(condition: ScreenCondition, timeoutMs?: number): Promise<string>
  write(data: string): void
  /** Resolves once everything received so far has been parsed by the emulator. */
  settle(): Promise<void>
  /** Types one line of `text`, waits until the prompt row shows `❯ text`, then presses Enter. */
  submit(text: string, timeoutMs?: number): Promise<void>
  resize(cols: number, rows: number): void
  readonly exited: Promise<TuiExit>
  readonly pid: number
  /** SIGKILLs the child if it still runs and waits for it; disposes the emulator. Safe to call twice. */
  kill(): Promise<void>
}

export const DEFAULT_WAIT_MS = 15_000
/** The input prompt of the TUI, at the start of its row. */
export const PROMPT = '❯ '
const POLL_MS = 25

function matches(condition: ScreenCondition, screen: string): boolean {
  if (typeof condition === 'string') return screen.includes(condition)
  if (condition instanceof RegExp) return condition.test(screen)
  return condition(screen)
}

function describeCondition(condition: ScreenCondition): string {
  if (typeof condition === 'string') return JSON.stringify(condition)
  if (condition instanceof RegExp) return String(condition)
  return condition.name ? `predicate ${condition.name}` : 'a predicate'
}

/** Polls `check` until it returns true; throws `message()` after `timeoutMs`. */
export async function pollUntil(
  check: () => boolean | Promise<boolean>,
  message: () => string,
  timeoutMs = DEFAULT_WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(message())
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

/** Starts `node bin/agent-tui.cjs ...args` in a pseudo-terminal (140×40 unless told otherwise). */
export function startTui(opts: StartTuiOptions): TuiSession {
  const cols = opts.cols ?? 140
  const rows = opts.rows ?? 40
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(opts.env)) {
    if (value !== undefined && name !== 'CI') env[name] = value
  }
  env.TERM ??= 'xterm-256color'
  const term = new xtermHeadless.Terminal({ cols, rows, allowProposedApi: true })
  const pty: IPty = spawn(process.execPath, [cliPath, ...opts.args], {
    name: env.TERM,
    cols,
    rows,
    cwd: opts.cwd,
    env,
  })
  let raw = ''
  // xterm parses asynchronously: count writes in flight so the screen is read only once it is settled.
  let inFlight = 0
  let running = true
  let disposed = false
  pty.onData((data) => {
    raw += data
    if (opts.onBackgroundQuery && /\x1b\]11;\?(\x07|\x1b\\)/.test(data))
      opts.onBackgroundQuery((typed) => {
        if (running) pty.write(typed)
      })
    if (disposed) return
    inFlight += 1
    term.write(data, () => {
      inFlight -= 1
    })
  })
  const exited = new Promise<TuiExit>((resolve) => {
    pty.onExit(({ exitCode, signal }) => {
      running = false
      resolve({ exitCode, signal: signal || undefined })
    })
  })

  const lines = (): string[] => {
    const buffer = term.buffer.active
    const out: string[] = []
    for (let y = 0; y < term.rows; y++) {
      out.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '')
    }
    return out
  }
  const screen = () => lines().join('\n')

  const waitFor = async (condition: ScreenCondition, timeoutMs = DEFAULT_WAIT_MS): Promise<string> => {
    let last = ''
    await pollUntil(
      () => {
        // Read only settled frames: no write still being parsed, no synchronized update (DEC 2026) open.
        if (inFlight > 0 || term.modes.synchronizedOutputMode) return false
        last = screen()
        if (matches(condition, last)) return true
        // Nothing will change any more once the child is gone: fail now rather than at the deadline.
        if (!running)
          throw new Error(
            `the TUI exited while waiting for ${describeCondition(condition)}; screen:\n${last}`,
          )
        return false
      },
      () =>
        `timed out after ${timeoutMs} ms waiting for ${describeCondition(condition)}${running ? '' : ' (the TUI exited)'}; screen:\n${screen()}`,
      timeoutMs,
    )
    return last
  }

  const write = (data: string) => {
    if (running) pty.write(data)
  }

  return {
    term,
    output: () => raw,
    screen,
    lines,
    waitFor,
    write,
    settle: () =>
      new Promise<void>((resolve) => {
        // xterm runs write callbacks in order: an empty write completes after every earlier one.
        if (disposed) resolve()
        else term.write('', resolve)
      }),
    async submit(text, timeoutMs) {
      write(text)
      await waitFor((s) => s.split('\n').some((line) => line.startsWith(`${PROMPT}${text}`)), timeoutMs)
      write(keys.enter)
    },
    resize(newCols, newRows) {
      term.resize(newCols, newRows)
      if (running) pty.resize(newCols, newRows)
    },
    exited,
    pid: pty.pid,
    async kill() {
      if (running) {
        try {
          pty.kill('SIGKILL')
        } catch {
          // already gone
        }
        await exited
      }
      if (!disposed) {
        disposed = true
        term.dispose()
      }
    },
  }
}
