import type { ChildProcess } from 'node:child_process'
import { closeSync, fstatSync, writeSync } from 'node:fs'
import type { Readable } from 'node:stream'
import type { JobOutput, OutputSource, SourceEvents } from './job-output.js'
import { type CutState, cutIfOver, type LogCap, NO_CUT } from './log-cap.js'

export interface PipeReaderInit {
  child: ChildProcess
  logPath: string
  /**
   * The log, created by the task manager (safe-open.ts: never through a planted link) and owned by the
   * reader from here on; or why it could not be, and the output stays in memory only.
   */
  log: { fd: number } | { error: unknown }
  output: JobOutput
  /** Output collected before the hand-over; written to the log and the output first. */
  initialOutput: string
  /** Keeps the log under this size (see log-cap.ts); none: it grows with the output. */
  cap?: LogCap
}

/**
 * The output source of an adopted process: reads its stdout/stderr pipes, keeps the bytes in the
 * JobOutput and appends them to the log file. The writes are synchronous: while the disk is slow, no
 * more is read, and the pipe pushes back on the process instead of output queueing in memory. Being
 * the log's only writer, it cuts the log back under the cap exactly (nothing is lost but the middle).
 */
export function createPipeReader(init: PipeReaderInit, events: SourceEvents): OutputSource {
  const { child, logPath, output, cap } = init
  const streams = new Set<Readable>()
  let fd: number | undefined
  let end = 0
  let cut: CutState = NO_CUT
  let scratch: Buffer | undefined

  const note = (error: unknown): void => {
    const reason = error instanceof Error ? error.message : String(error)
    // Recorded in memory only: the log is what just failed.
    output.append(
      Buffer.from(`[agent-tui] the log file ${logPath} failed (${reason}); output is kept in memory only\n`),
    )
  }

  const fail = (error: unknown): void => {
    if (fd === undefined) return
    try {
      closeSync(fd)
    } catch {
      // Already failing; the note says what matters.
    }
    fd = undefined
    note(error)
  }

  if ('fd' in init.log) fd = init.log.fd
  else note(init.log.error)

  const record = (chunk: Buffer): void => {
    output.append(chunk)
    if (fd === undefined) return
    try {
      for (let at = 0; at < chunk.length; ) {
        const n = writeSync(fd, chunk, at, chunk.length - at, end)
        at += n
        end += n
      }
      if (cap && end > cap.capBytes) {
        scratch ??= Buffer.allocUnsafe(64 * 1024)
        cut = cutIfOver(fd, cap, cut, scratch)
        end = fstatSync(fd).size
      }
    } catch (error) {
      fail(error)
    }
  }

  if (init.initialOutput !== '') record(Buffer.from(init.initialOutput))

  for (const stream of [child.stdout, child.stderr]) {
    if (!stream || stream.destroyed || stream.closed) continue
    streams.add(stream)
    stream.on('data', (chunk: Buffer | string) => {
      record(Buffer.from(chunk))
      events.changed()
    })
    // Read errors end in 'close' like a normal end; the listener keeps them from crashing the app.
    stream.on('error', () => {})
    stream.once('close', () => {
      streams.delete(stream)
      events.closed()
    })
    // The previous owner may have paused the stream; ours must flow.
    stream.resume()
  }

  return {
    refresh() {},
    rearm() {},
    get open() {
      return streams.size > 0
    },
    get logDroppedBytes() {
      return cut.droppedBytes
    },
    abandon() {
      for (const stream of streams) stream.destroy()
    },
    close(note, done) {
      if (note !== undefined) record(Buffer.from(note))
      if (fd !== undefined) {
        try {
          closeSync(fd)
        } catch {
          // Everything was written synchronously; a failing close loses nothing.
        }
        fd = undefined
      }
      done()
    },
  }
}
