import { Readable } from 'node:stream'

/**
 * xterm mouse reporting for button events only (1000: presses, releases and the wheel; no motion)
 * in SGR encoding (1006: `ESC[<b;x;yM`, no 223-column limit, no raw high bytes on stdin).
 */
export const MOUSE_ON = '\x1b[?1000h\x1b[?1006h'
export const MOUSE_OFF = '\x1b[?1000l\x1b[?1006l'

export interface MouseEvent {
  /** The wheel, or any other report (a button press/release or a drag), which the app ignores. */
  kind: 'wheelUp' | 'wheelDown' | 'other'
  /** 1-based cell column and row. */
  x: number
  y: number
}

export interface MouseSource {
  subscribe(listener: (event: MouseEvent) => void): () => void
}

/** A tiny fan-out from the stdin filter (outside React) to the key dispatcher (inside). */
export function createMouseHub(): MouseSource & { emit(event: MouseEvent): void } {
  const listeners = new Set<(event: MouseEvent) => void>()
  return {
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    emit(event) {
      for (const listener of [...listeners]) listener(event)
    },
  }
}

// Shift (4), Meta (8) and Ctrl (16) are added to the button code; the wheel is 64 (up) and 65 (down).
const MODIFIER_BITS = 4 | 8 | 16
const SGR_MOUSE = /\x1b\[<(\d+);(\d+);(\d+)([Mm])/g
// What a split report looks like at the end of a read. A bare `ESC[` is held too: it cannot be a whole
// key on its own, and passing it on would leave the rest of the report to arrive as typed text.
const SGR_MOUSE_PREFIX = /\x1b\[(?:<[\d;]*)?$/

export function mouseEventFromCode(code: number, x: number, y: number): MouseEvent {
  const base = code & ~MODIFIER_BITS
  const kind = base === 64 ? 'wheelUp' : base === 65 ? 'wheelDown' : 'other'
  return { kind, x, y }
}

export interface MouseParser {
  /** Removes complete mouse reports from a chunk; a report split at the chunk's end is held back. */
  push(chunk: string): { text: string; events: MouseEvent[] }
  /** True while a possible report start is held back. */
  hasPending(): boolean
  /** Gives up on the held-back start and returns it as text (its report never completed). */
  flush(): string
}

/** Splits SGR mouse reports out of terminal input; everything else is returned untouched, in order. */
export function createMouseParser(): MouseParser {
  let pending = ''
  return {
    push(chunk) {
      const input = pending + chunk
      pending = ''
      const events: MouseEvent[] = []
      let text = input.replace(SGR_MOUSE, (_all, code: string, x: string, y: string) => {
        events.push(mouseEventFromCode(Number(code), Number(x), Number(y)))
        return ''
      })
      const tail = SGR_MOUSE_PREFIX.exec(text)
      if (tail) {
        pending = tail[0]
        text = text.slice(0, tail.index)
      }
      return { text, events }
    },
    hasPending: () => pending !== '',
    flush() {
      const held = pending
      pending = ''
      return held
    },
  }
}

/** How long a split report start is held before it is passed on as typed input. */
const PENDING_FLUSH_MS = 50

export interface MouseInputOptions {
  /** The terminal's stdin (a TTY with raw mode). */
  stdin: NodeJS.ReadStream
  /** Where the reporting on/off sequences go. */
  stdout: NodeJS.WriteStream
  onMouse(event: MouseEvent): void
}

export interface MouseInput {
  /** The stream to give Ink as stdin: the terminal's input without mouse reports. */
  stdin: NodeJS.ReadStream
}

/**
 * Ink 8 drops complete mouse reports before `useInput` (and a report split across reads can reach it as
 * text), so mouse input is taken out at the stdin level: Ink reads from a filtered stand-in stream.
 *
 * Reporting is tied to raw mode, which Ink switches on while it reads keys and off when it suspends
 * (external editor, redraw) or unmounts (also on signals). So the terminal reports the mouse exactly
 * while the app is reading input, and a child process that gets the terminal never sees reports.
 */
export function createMouseInput({ stdin, stdout, onMouse }: MouseInputOptions): MouseInput {
  const parser = createMouseParser()
  let reporting = false
  let reading = false
  let flushTimer: NodeJS.Timeout | undefined
  // Object mode keeps each read a separate chunk for Ink, as the terminal delivered it: joined, two
  // Ctrl+D presses would reach Ink's key parser as one unknown key.
  const filtered = new Readable({ objectMode: true, read() {} })

  const setReporting = (on: boolean) => {
    if (on === reporting) return
    reporting = on
    if (!stdout.destroyed && !stdout.writableEnded) stdout.write(on ? MOUSE_ON : MOUSE_OFF)
  }
  const clearFlush = () => {
    if (flushTimer) clearTimeout(flushTimer)
    flushTimer = undefined
  }
  const pass = (text: string) => {
    if (text) filtered.push(text)
  }
  const pump = () => {
    clearFlush()
    for (let chunk: unknown = stdin.read(); chunk !== null; chunk = stdin.read()) {
      const { text, events } = parser.push(String(chunk))
      pass(text)
      for (const event of events) onMouse(event)
    }
    if (parser.hasPending()) {
      flushTimer = setTimeout(() => pass(parser.flush()), PENDING_FLUSH_MS)
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

/** Mouse reporting needs a terminal on both ends; AGENT_TUI_NO_MOUSE=1 keeps the terminal's own selection. */
export function mouseWanted(
  stdin: NodeJS.ReadStream,
  stdout: NodeJS.WriteStream,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const optOut = env.AGENT_TUI_NO_MOUSE
  return (
    Boolean(stdin.isTTY && stdout.isTTY) &&
    typeof stdin.setRawMode === 'function' &&
    (optOut === undefined || optOut === '' || optOut === '0')
  )
}
