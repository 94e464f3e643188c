import { createReadStream } from 'node:fs'
import { cutLine, MAX_LINE_CHARS } from './numbered-lines.js'

export interface LineWindow {
  /** The lines of the window, already cut at MAX_LINE_CHARS, without line terminators. */
  lines: string[]
  /** 1-based number of the first line in `lines`. */
  firstLine: number
  /** Total number of lines, known when the whole file was scanned. */
  totalLines: number | undefined
  /** Lines exist after the window. */
  hasMore: boolean
  /** How many lines of the window were cut for length. */
  cutLines: number
  /** The window ended early because the character budget ran out. */
  stoppedByChars: boolean
}

export interface WindowOptions {
  /** 1-based first line. */
  offset: number
  limit: number
  encoding: 'utf8' | 'latin1'
  /** Character budget for the numbered window; at least one line is always returned. */
  maxChars: number
  /** Keep scanning after the window to count all lines (cheap for small files, skipped for huge ones). */
  countAll: boolean
  signal?: AbortSignal
}

/**
 * Streams a text file and returns only the requested window of lines, so a multi-gigabyte file or a
 * single enormous line costs at most the window in memory. Lines end at LF; a trailing CR is dropped;
 * a UTF-8 BOM is skipped. Rejects with the stream's error (an AbortError when `signal` fires).
 */
export async function readLineWindow(path: string, opts: WindowOptions): Promise<LineWindow> {
  const last = opts.offset + opts.limit - 1
  const lines: string[] = []
  let lineNo = 1
  let kept = ''
  let fullLen = 0
  let chars = 0
  let cutLines = 0
  let windowDone = false
  let stoppedByChars = false
  let hasMore = false
  let reachedEof = true

  const takeLine = (): void => {
    if (!windowDone && lineNo >= opts.offset) {
      const hasCr = kept.length === fullLen && kept.endsWith('\r')
      const text = cutLine(hasCr ? kept.slice(0, -1) : kept, hasCr ? fullLen - 1 : fullLen)
      // Count the number prefix the caller adds (six columns and a tab) and the line break.
      const cost = text.length + 8
      if (lines.length > 0 && chars + cost > opts.maxChars) {
        windowDone = true
        stoppedByChars = true
        hasMore = true
      } else {
        if (fullLen > MAX_LINE_CHARS) cutLines++
        lines.push(text)
        chars += cost
        if (lineNo === last) windowDone = true
      }
    } else if (windowDone) {
      hasMore = true
    }
    lineNo++
    kept = ''
    fullLen = 0
  }

  const stream = createReadStream(path, {
    encoding: opts.encoding,
    highWaterMark: 256 * 1024,
    ...(opts.signal ? { signal: opts.signal } : {}),
  })
  let first = true
  try {
    outer: for await (const raw of stream) {
      let chunk = raw as string
      if (first) {
        first = false
        if (chunk.startsWith('\uFEFF')) chunk = chunk.slice(1)
      }
      if (windowDone && !opts.countAll && chunk.length > 0) {
        hasMore = true
        reachedEof = false
        break
      }
      let start = 0
      while (start < chunk.length) {
        const nl = chunk.indexOf('\n', start)
        const end = nl === -1 ? chunk.length : nl
        if (!windowDone && lineNo >= opts.offset && kept.length <= MAX_LINE_CHARS) {
          kept += chunk.slice(start, Math.min(end, start + MAX_LINE_CHARS + 1 - kept.length))
        }
        fullLen += end - start
        if (nl === -1) break
        takeLine()
        start = nl + 1
        if (windowDone && !opts.countAll && (hasMore || start < chunk.length)) {
          hasMore = true
          reachedEof = false
          break outer
        }
      }
    }
  } finally {
    stream.destroy()
  }
  // A last line without a terminating newline still counts.
  if (reachedEof && fullLen > 0) takeLine()
  return {
    lines,
    firstLine: opts.offset,
    totalLines: reachedEof ? lineNo - 1 : undefined,
    hasMore,
    cutLines,
    stoppedByChars,
  }
}
