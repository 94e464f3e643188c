import {
  appendFileSync,
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs'
import { dirname } from 'node:path'
import type { PersistedAction } from '../store/actions.js'

export const SESSION_FORMAT = 1

export interface SessionHeader {
  type: 'header'
  format: number
  id: string
  cwd: string
  createdAt: number
}

/** A torn last line cut off a log before appending to it. */
export interface TornTail {
  /** Bytes of the fragment. */
  bytes: number
  /** Side file that keeps it (`<log>.torn`). */
  path: string
}

/**
 * Append-only JSONL log of persisted actions. Every event is written with one synchronous write so a
 * crash can lose at most the line being written (a torn tail, which the reader skips).
 */
export interface SessionLog {
  readonly path: string
  /** What was cut off the end of an existing log before this run appended to it, if anything. */
  readonly tornTail: TornTail | null
  append(action: PersistedAction): void
  close(): void
}

/**
 * Opens a log for appending. An existing log (no header given: a resumed session) first loses a torn
 * last line, kept in a side file: appended straight after the fragment, the next event would be
 * glued to it and lost as a corrupt line on the next resume.
 */
export function openSessionLog(path: string, header?: SessionHeader): SessionLog {
  mkdirSync(dirname(path), { recursive: true })
  const tornTail = header ? null : cutTornTail(path)
  const fd = openSync(path, 'a')
  let closed = false
  const write = (value: unknown) => {
    if (closed) return
    writeSync(fd, `${JSON.stringify(value)}\n`)
  }
  if (header) write(header)
  return {
    path,
    tornTail,
    append: (action) => write({ ...action, ts: Date.now() }),
    close() {
      if (closed) return
      closed = true
      closeSync(fd)
    },
  }
}

const NEWLINE = 0x0a
const BLOCK = 64 * 1024

/**
 * Cuts a file back to just after its last newline, appending what followed (a line torn by a crash
 * mid-write) to `<path>.torn` first, so nothing is lost. Null when the file ends in a newline, is empty
 * or does not exist.
 */
export function cutTornTail(path: string): TornTail | null {
  let fd: number
  try {
    fd = openSync(path, 'r+')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
  try {
    const size = fstatSync(fd).size
    const keep = endOfLastLine(fd, size)
    if (keep === size) return null
    const fragment = Buffer.alloc(size - keep)
    readSync(fd, fragment, 0, fragment.length, keep)
    const side = `${path}.torn`
    // The side file first: a crash between the two steps leaves the fragment in both, never in neither.
    appendFileSync(side, Buffer.concat([fragment, Buffer.from('\n')]))
    ftruncateSync(fd, keep)
    fsyncSync(fd)
    return { bytes: fragment.length, path: side }
  } finally {
    closeSync(fd)
  }
}

/** Offset just past the last newline of the file (0 when it has none), reading backwards in blocks. */
function endOfLastLine(fd: number, size: number): number {
  const block = Buffer.alloc(Math.min(BLOCK, Math.max(1, size)))
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - block.length)
    const read = readSync(fd, block, 0, end - start, start)
    const at = block.subarray(0, read).lastIndexOf(NEWLINE)
    if (at !== -1) return start + at + 1
    end = start
  }
  return 0
}
