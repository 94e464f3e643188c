import { closeSync, fstatSync, fsyncSync, ftruncateSync, readSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { PersistedAction } from '../store/actions.js'
import { PRIVATE_DIR, placeOf } from '../util/safe-files.js'
import { createNew, openExisting, type SafeDir, UnsafePathError } from '../util/safe-open.js'

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
 * glued to it and lost as a corrupt line on the next resume. Below `root` (default: the log's folder)
 * nothing is followed (util/safe-open.ts): a new log is created new — something already at its name is
 * refused — and an existing one is used only as this user's own regular file.
 */
export function openSessionLog(
  path: string,
  header?: SessionHeader,
  root: string = dirname(path),
): SessionLog {
  const { dir, name } = placeOf(root, path, { createDirs: PRIVATE_DIR })
  let fd: number
  let tornTail: TornTail | null = null
  try {
    if (header) fd = createLog(dir, name, path)
    else {
      fd = openExisting(dir, name, 'read-write', { append: true }) ?? createLog(dir, name, path)
      try {
        tornTail = cutTornTailOf(fd, dir, name)
      } catch (error) {
        closeSync(fd)
        throw error
      }
    }
  } finally {
    dir.close()
  }
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

function createLog(dir: SafeDir, name: string, path: string): number {
  try {
    return createNew(dir, name, { mode: 0o600, append: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new UnsafePathError(path, 'already exists, and agent-tui did not make it')
    throw error
  }
}

const NEWLINE = 0x0a
const BLOCK = 64 * 1024

/**
 * Cuts a file back to just after its last newline, appending what followed (a line torn by a crash
 * mid-write) to `<path>.torn` first, so nothing is lost. Null when the file ends in a newline, is empty
 * or does not exist. Neither file is reached through a link (util/safe-open.ts).
 */
export function cutTornTail(path: string, root: string = dirname(path)): TornTail | null {
  const { dir, name } = placeOf(root, path)
  try {
    const fd = openExisting(dir, name, 'read-write')
    if (fd === undefined) return null
    try {
      return cutTornTailOf(fd, dir, name)
    } finally {
      closeSync(fd)
    }
  } finally {
    dir.close()
  }
}

function cutTornTailOf(fd: number, dir: SafeDir, name: string): TornTail | null {
  const size = fstatSync(fd).size
  const keep = endOfLastLine(fd, size)
  if (keep === size) return null
  const fragment = Buffer.alloc(size - keep)
  readSync(fd, fragment, 0, fragment.length, keep)
  const sideName = `${name}.torn`
  // The side file first: a crash between the two steps leaves the fragment in both, never in neither.
  const side =
    openExisting(dir, sideName, 'write', { append: true }) ??
    createNew(dir, sideName, { mode: 0o600, append: true })
  try {
    const bytes = Buffer.concat([fragment, Buffer.from('\n')])
    for (let at = 0; at < bytes.length; ) at += writeSync(side, bytes, at, bytes.length - at)
  } finally {
    closeSync(side)
  }
  ftruncateSync(fd, keep)
  fsyncSync(fd)
  return { bytes: fragment.length, path: join(dir.path, sideName) }
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
