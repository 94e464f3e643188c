import { createReadStream } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
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
 * Cuts a window of lines out of text fed in chunks. Lines end at LF; a trailing CR is dropped; a UTF-8 BOM
 * is skipped. Only the window is kept, so a huge file or a single enormous line costs at most the window.
 */
class LineWindowScanner {
  private readonly last: number
  private readonly lines: string[] = []
  private lineNo = 1
  private kept = ''
  private fullLen = 0
  private chars = 0
  private cutLines = 0
  private windowDone = false
  private stoppedByChars = false
  private hasMore = false
  private first = true

  constructor(private readonly opts: WindowOptions) {
    this.last = opts.offset + opts.limit - 1
  }

  /** Takes the next chunk; false once nothing more is needed (the window is full and no count is wanted). */
  push(raw: string): boolean {
    let chunk = raw
    if (this.first) {
      this.first = false
      if (chunk.startsWith('\uFEFF')) chunk = chunk.slice(1)
    }
    if (this.windowDone && !this.opts.countAll && chunk.length > 0) {
      this.hasMore = true
      return false
    }
    let start = 0
    while (start < chunk.length) {
      const nl = chunk.indexOf('\n', start)
      const end = nl === -1 ? chunk.length : nl
      if (!this.windowDone && this.lineNo >= this.opts.offset && this.kept.length <= MAX_LINE_CHARS) {
        this.kept += chunk.slice(start, Math.min(end, start + MAX_LINE_CHARS + 1 - this.kept.length))
      }
      this.fullLen += end - start
      if (nl === -1) break
      this.takeLine()
      start = nl + 1
      if (this.windowDone && !this.opts.countAll && (this.hasMore || start < chunk.length)) {
        this.hasMore = true
        return false
      }
    }
    return true
  }

  /** The window; `reachedEof` says the whole text was pushed, which makes the line count known. */
  finish(reachedEof: boolean): LineWindow {
    // A last line without a terminating newline still counts.
    if (reachedEof && this.fullLen > 0) this.takeLine()
    return {
      lines: this.lines,
      firstLine: this.opts.offset,
      totalLines: reachedEof ? this.lineNo - 1 : undefined,
      hasMore: this.hasMore,
      cutLines: this.cutLines,
      stoppedByChars: this.stoppedByChars,
    }
  }

  private takeLine(): void {
    if (!this.windowDone && this.lineNo >= this.opts.offset) {
      const hasCr = this.kept.length === this.fullLen && this.kept.endsWith('\r')
      const text = cutLine(
        hasCr ? this.kept.slice(0, -1) : this.kept,
        hasCr ? this.fullLen - 1 : this.fullLen,
      )
      // Count the number prefix the caller adds (six columns and a tab) and the line break.
      const cost = text.length + 8
      if (this.lines.length > 0 && this.chars + cost > this.opts.maxChars) {
        this.windowDone = true
        this.stoppedByChars = true
        this.hasMore = true
      } else {
        if (this.fullLen > MAX_LINE_CHARS) this.cutLines++
        this.lines.push(text)
        this.chars += cost
        if (this.lineNo === this.last) this.windowDone = true
      }
    } else if (this.windowDone) {
      this.hasMore = true
    }
    this.lineNo++
    this.kept = ''
    this.fullLen = 0
  }
}

/** The window of a file already in memory (small files are read whole, in one go). */
export function lineWindowOf(text: string, opts: WindowOptions): LineWindow {
  const scanner = new LineWindowScanner(opts)
  const reachedEof = scanner.push(text)
  return scanner.finish(reachedEof)
}

/**
 * Streams a text file and returns only the requested window of lines (see LineWindowScanner).
 * Rejects with the stream's error (an AbortError when `signal` fires).
 */
export async function readLineWindow(file: string | FileHandle, opts: WindowOptions): Promise<LineWindow> {
  const scanner = new LineWindowScanner(opts)
  // An open file (Read's judged descriptor) is read from its start and left open for its owner.
  const stream = createReadStream(typeof file === 'string' ? file : '', {
    ...(typeof file === 'string' ? {} : { fd: file, start: 0, autoClose: false }),
    encoding: opts.encoding,
    highWaterMark: 256 * 1024,
    ...(opts.signal ? { signal: opts.signal } : {}),
  })
  let reachedEof = true
  try {
    for await (const chunk of stream) {
      if (!scanner.push(chunk as string)) {
        reachedEof = false
        break
      }
    }
  } finally {
    stream.destroy()
  }
  return scanner.finish(reachedEof)
}
