/**
 * Tracks the last non-empty line of a byte stream for task summaries, looking at no more than a small
 * window of each chunk so a job printing gigabytes costs one native newline search per chunk.
 */

/** Bytes of the unterminated current line (and of each chunk's last lines) that are examined. */
const WINDOW_BYTES = 1024
const DEFAULT_MAX_CHARS = 200

export interface LastLineTracker {
  push(chunk: Uint8Array): void
  /** Output was skipped: the current unterminated line no longer continues. */
  skip(): void
  /** The last non-empty line, without ANSI escapes or control characters, at most `maxChars` long. */
  readonly value: string
}

// Escape sequences (CSI, OSC, two-byte) first, then the remaining C0 controls; tabs become spaces.
const ANSI_PATTERN = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]/g
const CONTROL_PATTERN = /[\x00-\x08\x0b-\x1f\x7f]/g

/** Strips terminal escapes and control characters so a line is safe to show inside the TUI. */
export function cleanLine(line: string): string {
  return (
    line
      .replace(ANSI_PATTERN, '')
      .replace(/\t/g, ' ')
      .replace(CONTROL_PATTERN, '')
      // Windows cut mid-character decode to U+FFFD at their edges.
      .replace(/^\uFFFD+|\uFFFD+$/g, '')
      .trim()
  )
}

function lastNonEmpty(bytes: Uint8Array): string | undefined {
  const lines = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('utf8')
    .split(/[\r\n]/)
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = cleanLine(lines[i]!)
    if (line !== '') return line
  }
  return undefined
}

function lastNewline(chunk: Uint8Array): number {
  // Carriage returns end lines too: progress bars redraw with \r and the latest state is what matters.
  return Math.max(chunk.lastIndexOf(0x0a), chunk.lastIndexOf(0x0d))
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/** Creates a tracker; `maxChars` bounds `value` (default 200). */
export function createLastLineTracker(maxChars = DEFAULT_MAX_CHARS): LastLineTracker {
  let partial: Buffer = Buffer.alloc(0)
  let complete = ''

  const keepLast = (bytes: Uint8Array): Buffer =>
    // Copy, so a slice of a large chunk does not keep the whole chunk alive.
    Buffer.from(bytes.subarray(Math.max(0, bytes.length - WINDOW_BYTES)))

  return {
    push(chunk) {
      const nl = lastNewline(chunk)
      if (nl === -1) {
        partial = keepLast(Buffer.concat([partial, chunk]))
        return
      }
      const windowStart = Math.max(0, nl - WINDOW_BYTES)
      const ended =
        windowStart === 0 ? Buffer.concat([partial, chunk.subarray(0, nl)]) : chunk.subarray(windowStart, nl)
      const found = lastNonEmpty(ended)
      if (found !== undefined) complete = found
      partial = keepLast(chunk.subarray(nl + 1))
    },
    skip() {
      partial = Buffer.alloc(0)
    },
    get value() {
      const current = partial.length > 0 ? cleanLine(partial.toString('utf8')) : ''
      return truncate(current !== '' ? current : complete, maxChars)
    },
  }
}
