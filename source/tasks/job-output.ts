import { createLastLineTracker } from './last-line.js'
import { formatBytes, type LogCap } from './log-cap.js'
import { type BufferRead, createOutputBuffer, type OutputBufferOptions } from './output-buffer.js'

/**
 * What a job keeps of its output in memory: the bounded head + tail buffer and the last line, fed by
 * the same bytes. Both the pipe reader and the log-file follower write into it.
 */
export interface JobOutput {
  append(chunk: Uint8Array): void
  /** See `OutputBuffer.skip`. */
  skip(n: number): void
  read(cursor: number, opts: { final: boolean }): BufferRead
  readonly totalBytes: number
  readonly headRoom: number
  readonly tailBytes: number
  readonly lastLine: string
}

export function createJobOutput(bounds: OutputBufferOptions = {}): JobOutput {
  const buffer = createOutputBuffer(bounds)
  const lastLine = createLastLineTracker()
  return {
    append(chunk) {
      buffer.append(chunk)
      lastLine.push(chunk)
    },
    skip(n) {
      if (n <= 0) return
      buffer.skip(n)
      lastLine.skip()
    },
    read: (cursor, opts) => buffer.read(cursor, opts),
    get totalBytes() {
      return buffer.totalBytes
    },
    get headRoom() {
      return buffer.headRoom
    },
    tailBytes: buffer.tailBytes,
    get lastLine() {
      return lastLine.value
    },
  }
}

/** How a source tells its job about output. Never called synchronously from the source's factory. */
export interface SourceEvents {
  /** New output is available (the job throttles the resulting update). */
  changed(): void
  /** A channel the job was waiting on closed (see `OutputSource.open`). */
  closed(): void
}

/**
 * Where a job's output comes from: its log file (launched jobs) or its pipes (adopted ones). The
 * source feeds the job's JobOutput and owns the log file.
 */
export interface OutputSource {
  /** Pulls pending output into the JobOutput (the file follower reads; pipes push on their own). */
  refresh(): void
  /** Re-enables change notification after an update was sent. */
  rearm(): void
  /** True while pipes are open: the job has not ended before they close. */
  readonly open: boolean
  /** Output bytes cut from the middle of the log file to keep it under its cap. */
  readonly logDroppedBytes: number
  /** Stops waiting for the pipes (held by a process that cannot be killed or left the group). */
  abandon(): void
  /** Final flush: appends `note` to the log and the output, closes everything, then calls `done`. */
  close(note: string | undefined, done: () => void): void
}

/** Where a job's log is and how much of it was cut to keep it under its cap. */
export interface LogInfo {
  path: string
  droppedBytes: number
  cap: LogCap | undefined
}

/** Renders a read for the model: the text, with a visible marker where bytes were dropped. */
export function formatRead(read: BufferRead, log: LogInfo): string {
  if (read.gapAt === null) return read.text
  const where =
    log.droppedBytes > 0 && log.cap
      ? `${log.path} keeps the first ${formatBytes(log.cap.headBytes)} and the latest output (logs are capped at ${formatBytes(log.cap.capBytes)}; ${log.droppedBytes} bytes were cut from its middle)`
      : `the full output is in ${log.path}`
  const marker = `\n[… ${read.droppedBytes} bytes not kept in memory; ${where} …]\n`
  return read.text.slice(0, read.gapAt) + marker + read.text.slice(read.gapAt)
}
