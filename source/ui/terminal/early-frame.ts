import { ZERO_USAGE } from '../../store/messages.js'
import type { Mode } from '../../store/domain.js'
import { backgroundStyle, colorStyle, defaultTheme, type ModeBadge, type Theme } from '../components/theme.js'
import { PROMPT_HINT, PROMPT, separator } from '../panes/input/prompt-row.js'
import type { Prices } from '../panes/status/format.js'
import { composeStatusLine } from '../panes/status/status-line.js'
import { type BackgroundProbe, REPLY_HOLD_MS } from './background-query.js'

export interface EarlyFrameOptions {
  stdin: NodeJS.ReadStream
  stdout: NodeJS.WriteStream
  mode: Mode
  model: string
  cwd: string
  branch?: string | undefined
  prices?: Prices | undefined
  /** A resumed session: its usage is in its log, not read yet, so the status bar leaves it out. */
  resumed?: boolean
  theme?: Theme
  /**
   * The `auto` theme's question to the terminal: asked just after the frame is painted; its answer is
   * taken out of the keys typed here (and by the key reader after the hand-off).
   */
  background?: BackgroundProbe
}

/** The frame painted before Ink has loaded, and the keys typed at it. */
export interface EarlyFrame {
  /**
   * Ink is about to draw: stops reading keys and puts every byte typed so far back into stdin, where Ink
   * reads it as if typed now. Returns what to write just before Ink's first frame (a synchronized update
   * that clears this frame, so Ink's frame replaces it in one step).
   */
  handOff(): string
  /** Startup failed before Ink drew: leaves the alternate screen and restores the terminal. */
  abandon(): void
}

const ESC = '\x1b['
const ENTER_ALT_SCREEN = `${ESC}?1049h`
const LEAVE_ALT_SCREEN = `${ESC}?1049l`
const SHOW_CURSOR = `${ESC}?25h`
const BRACKETED_PASTE_ON = `${ESC}?2004h`
const BRACKETED_PASTE_OFF = `${ESC}?2004l`
const SYNC_BEGIN = `${ESC}?2026h`
const HOME_AND_CLEAR = `${ESC}H${ESC}2J`
const MIN_COLUMNS = 60
const MIN_ROWS = 8

/**
 * Paints the full-screen session's first frame — status bar, empty transcript, prompt — straight to the
 * terminal, before React, Ink and the session's modules have loaded (about 100 ms on a 2-core machine).
 * Keys typed meanwhile are echoed on the prompt row and handed to Ink unchanged, so nothing typed is lost
 * or read twice. Returns null (nothing painted) when the frame could differ from Ink's: a small terminal,
 * or text whose width needs string-width, which is itself one of the slow modules. A resumed session's
 * transcript (and its usage in the status bar) appear once the UI has read and rendered its log.
 */
export function paintEarlyFrame(opts: EarlyFrameOptions): EarlyFrame | null {
  const { stdin, stdout } = opts
  const columns = stdout.columns ?? 0
  const rows = stdout.rows ?? 0
  if (!stdin.isTTY || !stdout.isTTY || columns < MIN_COLUMNS || rows < MIN_ROWS) return null
  const theme = opts.theme ?? defaultTheme
  const status = statusRow(opts, columns, theme)
  if (status === null) return null

  const typed: Buffer[] = []
  let preview = ''
  let previewing = true
  let done = false

  const promptRow = () => {
    const caret = theme.chalk.inverse(' ')
    const text = preview ? preview + caret : caret + theme.dim(PROMPT_HINT)
    const caretColumn = PROMPT.length + preview.length + 1
    return `${ESC}${rows};1H${theme.fg(theme.palette.accent)(PROMPT)}${text}${ESC}K${ESC}${rows};${caretColumn}H`
  }
  const replies = opts.background?.filter()
  let holdTimer: NodeJS.Timeout | undefined
  const clearHold = () => {
    if (holdTimer) clearTimeout(holdTimer)
    holdTimer = undefined
  }
  const onData = (chunk: Buffer) => {
    typed.push(chunk)
    if (!previewing) return
    const next = previewOf(preview, chunk.toString('latin1'))
    // Anything beyond plain typing (Enter, arrows, a paste, a long line) is left for Ink to show.
    if (next.stopped || PROMPT.length + next.text.length + 2 > columns) previewing = false
    if (PROMPT.length + next.text.length + 2 > columns || next.text === preview) return
    preview = next.text
    stdout.write(promptRow())
  }
  // Paused-mode reads, as Ink's: stdin never flows, so whoever reads next simply finds the bytes.
  const onReadable = () => {
    clearHold()
    for (let chunk: unknown = stdin.read(); chunk !== null; chunk = stdin.read()) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
      if (!replies) onData(bytes)
      else {
        // Latin-1 keeps every byte as one character: what passes is exactly the bytes typed.
        const text = replies.push(bytes.toString('latin1'))
        if (text) onData(Buffer.from(text, 'latin1'))
      }
    }
    // A reply's start that goes no further was typed (Alt+], or Esc while a reply could still come).
    if (replies?.hasPending())
      holdTimer = setTimeout(() => {
        holdTimer = undefined
        const text = replies.flush()
        if (text) onData(Buffer.from(text, 'latin1'))
      }, REPLY_HOLD_MS)
  }
  const stop = () => {
    done = true
    clearHold()
    stdin.removeListener('readable', onReadable)
    process.removeListener('exit', abandon)
    for (const signal of SIGNALS) process.removeListener(signal, onSignal)
  }
  const abandon = () => {
    if (done) return
    stop()
    // Stop reading, or the open terminal would keep a failed start from exiting.
    stdin.pause()
    if (stdin.isTTY) stdin.setRawMode(false)
    stdout.write(`${BRACKETED_PASTE_OFF}${SHOW_CURSOR}${LEAVE_ALT_SCREEN}`)
  }
  // A signal before Ink has its own handlers: restore the terminal, then die of the signal as before.
  const onSignal = (signal: NodeJS.Signals) => {
    abandon()
    process.kill(process.pid, signal)
  }

  // Raw mode first, so keys typed from now on are neither echoed by the terminal nor line-buffered.
  stdin.setRawMode(true)
  stdout.write(
    ENTER_ALT_SCREEN +
      HOME_AND_CLEAR +
      status +
      `${ESC}${rows - 1};1H${theme.dim(separator(columns, false))}` +
      promptRow() +
      SHOW_CURSOR +
      BRACKETED_PASTE_ON,
  )
  stdin.on('readable', onReadable)
  opts.background?.ask((text) => stdout.write(text))
  process.once('exit', abandon)
  for (const signal of SIGNALS) process.once(signal, onSignal)

  return {
    handOff() {
      if (done) return ''
      stop()
      // A reply's start held back goes on with the keys: the key reader's filter sees it and its rest.
      const held = replies?.flush()
      if (held) typed.push(Buffer.from(held, 'latin1'))
      if (typed.length > 0) stdin.unshift(Buffer.concat(typed))
      return SYNC_BEGIN + HOME_AND_CLEAR
    },
    abandon,
  }
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGHUP']

/**
 * The prompt text after `input` (raw key bytes), applied up to the first key that is not printable ASCII
 * or backspace (`stopped`): only that much is sure to match what Ink's editor will show.
 */
export function previewOf(current: string, input: string): { text: string; stopped: boolean } {
  let text = current
  for (const char of input) {
    if (char === '\x7f' || char === '\b') text = text.slice(0, -1)
    else if (char >= ' ' && char <= '~') text += char
    else return { text, stopped: true }
  }
  return { text, stopped: false }
}

/** The status bar's row, or null when a segment is not plain ASCII-width text. */
function statusRow(opts: EarlyFrameOptions, columns: number, theme: Theme): string | null {
  let measurable = true
  const measure = (text: string) => {
    if (!NARROW_TEXT.test(text)) measurable = false
    return text.length
  }
  const { badge, segments } = composeStatusLine(
    {
      width: columns,
      mode: opts.mode,
      busy: false,
      model: opts.model,
      usage: opts.resumed ? null : { session: ZERO_USAGE, lastStep: ZERO_USAGE, contextTokens: 0 },
      contextLimit: 0,
      prices: opts.prices,
      runningTasks: 0,
      cwd: opts.cwd,
      branch: opts.branch,
    },
    measure,
    theme.palette,
  )
  if (!measurable) return null
  const parts = segments.map((s, i) => theme.fg(s.color)(`${i === 0 ? ' ' : ' · '}${s.text}`))
  return `${ESC}1;1H${badgeText(badge, theme)}${parts.join('')}`
}

/**
 * Characters string-width counts as one column each: printable ASCII and the bar's own symbols (· … ↑ ↓,
 * escaped so the chunk's source stays one byte per character: see scripts/build.mjs).
 */
const NARROW_TEXT = /^[\x20-\x7e\u00b7\u2026\u2191\u2193]*$/

function badgeText(badge: ModeBadge, theme: Theme): string {
  let style = colorStyle(theme.chalk, badge.color) ?? theme.chalk
  if (badge.bold) style = style.bold
  style = backgroundStyle(style, badge.backgroundColor) ?? style.inverse
  return style(` ${badge.label} `)
}
