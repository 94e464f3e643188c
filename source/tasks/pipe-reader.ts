import type { ChildProcess } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import type { Readable } from 'node:stream'
import type { JobOutput, OutputSource, SourceEvents } from './job-output.js'

export interface PipeReaderInit {
  child: ChildProcess
  logPath: string
  output: JobOutput
  /** Output collected before the hand-over; written to the log and the output first. */
  initialOutput: string
}

/**
 * The output source of an adopted process: reads its stdout/stderr pipes, keeps the bytes in the
 * JobOutput and appends them to the log file. When the disk is slower than the process, reading pauses
 * and the pipe pushes back on the process instead of output queueing in memory.
 */
export function createPipeReader(init: PipeReaderInit, events: SourceEvents): OutputSource {
  const { child, logPath, output } = init
  const log = createWriteStream(logPath)
  const streams = new Set<Readable>()
  let logFailed = false
  let paused = false

  const resume = (): void => {
    paused = false
    for (const stream of streams) stream.resume()
  }

  const record = (chunk: Buffer): void => {
    output.append(chunk)
    if (!logFailed && !log.write(chunk) && !paused) {
      paused = true
      for (const stream of streams) stream.pause()
      log.once('drain', resume)
    }
  }

  log.on('error', (error) => {
    if (logFailed) return
    logFailed = true
    if (paused) resume()
    // Recorded in memory only: the log is what just failed.
    output.append(
      Buffer.from(
        `[agent-tui] the log file ${logPath} failed (${error.message}); output is kept in memory only\n`,
      ),
    )
  })

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
    abandon() {
      for (const stream of streams) stream.destroy()
    },
    close(note, done) {
      if (note !== undefined) record(Buffer.from(note))
      if (logFailed) done()
      else log.end(() => done())
    },
  }
}
