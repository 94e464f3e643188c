import type { FileHandle } from 'node:fs/promises'
import { openOwnForReading } from '../util/safe-files.js'

/** A piece of a background job's log, with where it lies in the file (byte offsets). */
export interface TaskLogSlice {
  text: string
  /** Byte offset of the first byte of `text`. */
  start: number
  /** Byte offset just past `text`. */
  end: number
  /** The log's size when it was read. */
  size: number
}

/** Where to read: the end of the log (default), the bytes before `before`, or from `from` on. */
export interface TaskLogRange {
  before?: number
  from?: number
}

const EMPTY: TaskLogSlice = { text: '', start: 0, end: 0, size: 0 }

/**
 * Reads at most `maxBytes` of a log, cut at line boundaries where the piece is not at the file's edge:
 * a piece read backwards starts at a line start, one read forwards ends at a line end. So pieces read on
 * either side of each other join into whole lines. A missing log reads as empty, and so does one that
 * is no longer the job's own file (a link or FIFO a sandboxed command put in its place).
 */
export async function readLogSlice(
  path: string,
  maxBytes: number,
  range: TaskLogRange = {},
): Promise<TaskLogSlice> {
  let handle: FileHandle
  try {
    handle = await openOwnForReading(path)
  } catch {
    return EMPTY
  }
  try {
    const size = (await handle.stat()).size
    const { from, to } = bounds(size, maxBytes, range)
    const bytes = Buffer.alloc(to - from)
    if (bytes.length > 0) await handle.read(bytes, 0, bytes.length, from)
    return cut(bytes, from, size, range.from !== undefined)
  } finally {
    await handle.close()
  }
}

/** `readLogSlice` over a log held in memory (same bounds and cuts). */
export function sliceOfBuffer(log: Buffer, maxBytes: number, range: TaskLogRange = {}): TaskLogSlice {
  const { from, to } = bounds(log.length, maxBytes, range)
  return cut(log.subarray(from, to), from, log.length, range.from !== undefined)
}

function bounds(size: number, maxBytes: number, range: TaskLogRange): { from: number; to: number } {
  const limit = Math.max(0, Math.floor(maxBytes))
  if (range.from !== undefined) {
    const from = clamp(range.from, size)
    return { from, to: Math.min(size, from + limit) }
  }
  const to = clamp(range.before ?? size, size)
  return { from: Math.max(0, to - limit), to }
}

/** Cuts `bytes` (read at `from`) to whole lines on the side that is not the file's edge. */
function cut(bytes: Buffer, from: number, size: number, forward: boolean): TaskLogSlice {
  let first = 0
  let last = bytes.length
  if (!forward && from > 0) {
    const newline = bytes.indexOf(0x0a)
    if (newline >= 0) first = newline + 1
  }
  if (forward && from + bytes.length < size) {
    const newline = bytes.lastIndexOf(0x0a)
    if (newline >= 0) last = newline + 1
  }
  return { text: bytes.subarray(first, last).toString('utf8'), start: from + first, end: from + last, size }
}

function clamp(offset: number, size: number): number {
  return Math.max(0, Math.min(size, Math.floor(offset)))
}
