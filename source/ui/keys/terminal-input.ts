import { Readable } from 'node:stream'
import type { BackgroundProbe } from '../terminal/background-query.js'
import { FOCUS_OFF, FOCUS_ON, takeFocusReports } from './focus-report.js'
import { createKeySplitter } from './key-chunks.js'
import { createMouseParser, MOUSE_OFF, MOUSE_ON, type MouseEvent } from './mouse.js'

/** How long a split mouse report start is held before it is passed on as typed input. */
const PENDING_FLUSH_MS = 50

export interface TerminalInputOptions {
  /** The terminal's stdin (a TTY with raw mode). */
  stdin: NodeJS.ReadStream
  /** Where the mouse reporting on/off sequences go. */
  stdout: NodeJS.WriteStream
  /** Switch the terminal's mouse reporting on while input is read (wheel scrolling). */
  mouse: boolean
  onMouse(event: MouseEvent): void
  /** Turns focus reporting on while input is read; called with each report (true: the window has the focus). */
  onFocus?: (focused: boolean) => void
  /** The `auto` theme's question to the terminal: its answer is taken out of the keys. */
  background?: BackgroundProbe
}

export interface TerminalInput {
  /** The stream to give Ink as stdin: the terminal's input, one key per read, without mouse reports. */
  stdin: NodeJS.ReadStream
}

/**
 * A stand-in for the terminal's stdin that Ink reads from. It does two things Ink does not:
 *
 * - Splits each read into one piece per key (`key-chunks.ts`), so text and Enter typed in one read
 *   (`tmux send-keys "Green" Enter`) are two keys in every text field.
 * - Takes mouse reports out: Ink 8 drops complete ones before `useInput`, but a report split across reads
 *   can reach it as text.
 *
 * Mouse reporting is tied to raw mode, which Ink switches on while it reads keys and off when it suspends
 * (external editor, redraw) or unmounts (also on signals). So the terminal reports the mouse exactly
 * while the app is reading input, and a child process that gets the terminal never sees reports.
 */
export function createTerminalInput({
  stdin,
  stdout,
  mouse,
  onMouse,
  onFocus,
  background,
}: TerminalInputOptions): TerminalInput {
  const parser = createMouseParser()
  const replies = background?.filter()
  const splitter = createKeySplitter()
  let reporting = false
  let reading = false
  let flushTimer: NodeJS.Timeout | undefined
  // Object mode keeps each piece a separate read for Ink: joined, two Ctrl+D presses would reach Ink's
  // key parser as one unknown key.
  const filtered = new Readable({ objectMode: true, read() {} })

  const setReporting = (on: boolean) => {
    if ((!mouse && !onFocus) || on === reporting) return
    reporting = on
    const sequence = `${mouse ? (on ? MOUSE_ON : MOUSE_OFF) : ''}${onFocus ? (on ? FOCUS_ON : FOCUS_OFF) : ''}`
    if (!stdout.destroyed && !stdout.writableEnded) stdout.write(sequence)
  }
  const clearFlush = () => {
    if (flushTimer) clearTimeout(flushTimer)
    flushTimer = undefined
  }
  const pass = (text: string) => {
    for (const piece of splitter.push(text)) filtered.push(piece)
  }
  const take = (raw: string) => {
    const { text, events } = parser.push(raw)
    // Focus reports are not keys: out before Ink sees them (`ESC [ I` would be Esc, `[`, `I`).
    const focus = takeFocusReports(text)
    pass(focus.text)
    for (const event of events) onMouse(event)
    for (const focused of focus.reports) onFocus?.(focused)
  }
  const pump = () => {
    clearFlush()
    for (let chunk: unknown = stdin.read(); chunk !== null; chunk = stdin.read()) {
      // The terminal's answer about its background is no key either (terminal/background-query.ts).
      take(replies ? replies.push(String(chunk)) : String(chunk))
    }
    if (parser.hasPending() || replies?.hasPending()) {
      flushTimer = setTimeout(() => {
        const held = replies?.flush()
        if (held) take(held)
        pass(parser.flush())
      }, PENDING_FLUSH_MS)
      flushTimer.unref()
    }
  }

  const proxy = Object.assign(filtered, {
    isTTY: true,
    setRawMode(mode: boolean) {
      stdin.setRawMode(mode)
      if (mode && !reading) {
        reading = true
        // Strings, so a multi-byte character is never cut in two before the parser sees it.
        stdin.setEncoding('utf8')
        stdin.on('readable', pump)
      } else if (!mode && reading) {
        reading = false
        stdin.off('readable', pump)
        clearFlush()
        // Like Ink's own parser reset: a report cut off when input stops is dropped, not typed later.
        parser.flush()
        replies?.flush()
      }
      setReporting(mode)
      return proxy
    },
    ref() {
      stdin.ref()
      return proxy
    },
    unref() {
      stdin.unref()
      return proxy
    },
  })
  return {
    // The stand-in implements what Ink uses of a TTY stdin (isTTY, setRawMode, ref/unref, read).
    stdin: proxy as unknown as NodeJS.ReadStream,
  }
}

/** Whether the stand-in can be used: a terminal with raw mode. */
export function canFilterInput(stdin: NodeJS.ReadStream): boolean {
  return Boolean(stdin.isTTY) && typeof stdin.setRawMode === 'function'
}
