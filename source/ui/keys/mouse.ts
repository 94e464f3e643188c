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
