import { createHash, randomBytes } from 'node:crypto'
import { closeSync, fstatSync, futimesSync, readSync, realpathSync, writeSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { type CutState, cutIfOver, formatBytes, type LogCap, logCap, NO_CUT } from '../tasks/log-cap.js'
import { PRIVATE_DIR, replaceInDirAsync } from '../util/safe-files.js'
import { createFresh, openExisting, openSafeDir, type SafeDir, UnsafePathError } from '../util/safe-open.js'
import { countNewlines, type HeadTailBuffer } from './head-tail-buffer.js'
import { isInside } from './paths.js'
import type { OutputSpiller, SpillStream } from './types.js'

/**
 * Creates the spiller for one session's outputs dir. Files are content-addressed
 * (`<hint>-<sha256 prefix>.txt`), so spilling the same text twice reuses one file; a reuse refreshes
 * the mtime, which the TTL cleanup reads as "last used". The dir is created on the first spill.
 *
 * Sandboxed commands can write the outputs dir, and a content-addressed name can be predicted: a spill
 * never follows a link (util/safe-open.ts). Only a regular file of this user that holds exactly the text
 * is reused; anything else at the name (a link, a FIFO, a planted file) is replaced by an atomic rename,
 * which replaces the entry itself and never touches what a link pointed to.
 */
export function createOutputSpiller(dir: string, opts: { capBytes?: number } = {}): OutputSpiller {
  const root = resolve(dir)
  const cap = logCap(opts.capBytes)
  const openRoot = (): SafeDir => openSafeDir(root, root, { create: PRIVATE_DIR })
  return {
    dir: root,
    async spill(text, hint) {
      const hash = createHash('sha256').update(text).digest('hex').slice(0, 16)
      const name = `${slugOf(hint)}-${hash}.txt`
      const at = openRoot()
      try {
        if (!reuse(at, name, text)) await replaceInDirAsync(at, name, text, { mode: 0o600 })
        return join(at.path, name)
      } finally {
        at.close()
      }
    },
    open(hint) {
      const at = openRoot()
      try {
        // Not content-addressed: the content is not known yet. The stream marks it apart from those.
        const made = createFresh(at, `${slugOf(hint)}-stream-${randomBytes(8).toString('hex')}.txt`, {
          mode: 0o600,
          access: 'read-write',
        })
        return openSpillStream(made.fd, join(at.path, made.name), cap)
      } finally {
        at.close()
      }
    },
    // Judged after resolving symlinks: a link in the outputs dir to a file elsewhere is not ours to trust.
    isSpillPath(absPath) {
      const realRoot = realOrSelf(root)
      const real = realOrSelf(absPath)
      return real !== realRoot && isInside(realRoot, real)
    },
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

function slugOf(hint: string): string {
  return (
    hint
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 32) || 'output'
  )
}

/**
 * Whether `name` already holds exactly `text` as a file of ours; if so its mtime is refreshed ("last
 * used"). Anything that is not our own regular file with this content is not reused.
 */
function reuse(dir: SafeDir, name: string, text: string): boolean {
  let fd: number | undefined
  try {
    fd = openExisting(dir, name, 'read')
  } catch (error) {
    if (error instanceof UnsafePathError) return false
    throw error
  }
  if (fd === undefined) return false
  try {
    const bytes = Buffer.from(text)
    if (fstatSync(fd).size !== bytes.length) return false
    const held = Buffer.alloc(bytes.length)
    for (let at = 0; at < held.length; ) {
      const n = readSync(fd, held, at, held.length - at, at)
      if (n === 0) return false
      at += n
    }
    if (!held.equals(bytes)) return false
    const now = new Date()
    futimesSync(fd, now, now)
    return true
  } finally {
    closeSync(fd)
  }
}

/** A stream into the new file `fd` at `path`, cut back under `cap` as it grows. */
function openSpillStream(created: number, path: string, cap: LogCap): SpillStream {
  let fd: number | undefined = created
  let end = 0
  let cut: CutState = NO_CUT
  let scratch: Buffer | undefined
  let error: string | undefined
  const close = (): void => {
    if (fd === undefined) return
    try {
      closeSync(fd)
    } catch {
      // Every write was synchronous; a failing close loses nothing.
    }
    fd = undefined
  }
  return {
    path,
    write(text) {
      if (fd === undefined || text === '') return
      try {
        const bytes = Buffer.from(text)
        for (let at = 0; at < bytes.length; ) {
          const n = writeSync(fd, bytes, at, bytes.length - at, end)
          at += n
          end += n
        }
        if (end > cap.capBytes) {
          scratch ??= Buffer.allocUnsafe(64 * 1024)
          cut = cutIfOver(fd, cap, cut, scratch)
          end = fstatSync(fd).size
        }
      } catch (failure) {
        error = failure instanceof Error ? failure.message : String(failure)
        close()
      }
    },
    close,
    capBytes: cap.capBytes,
    headBytes: cap.headBytes,
    get droppedBytes() {
      return cut.droppedBytes
    },
    get error() {
      return error
    },
  }
}

export interface BoundedOutput {
  text: string
  /** Where the full text was stored; absent when it fit inline or could not be saved. */
  spilledPath?: string
  truncated: boolean
}

/**
 * Keeps `text` inline when it fits in `limit` chars; otherwise spills the full text and returns the
 * head and tail around a marker naming the spill file, so the model can restore the middle with Read.
 * A failed spill still bounds the output and says the full text could not be saved.
 */
export async function boundOutput(
  text: string,
  opts: { limit?: number; spiller: OutputSpiller; hint: string },
): Promise<BoundedOutput> {
  const limit = opts.limit ?? 30_000
  if (text.length <= limit) return { text, truncated: false }
  let spilledPath: string | undefined
  let where: string
  try {
    spilledPath = await opts.spiller.spill(text, opts.hint)
    where = `full output: ${spilledPath} (Read it with offset/limit)`
  } catch (error) {
    where = `the full output could not be saved (${error instanceof Error ? error.message : String(error)})`
  }
  const headLen = Math.floor(limit * 0.4)
  const head = cutAtLineEnd(text.slice(0, headLen))
  const tail = cutAtLineStart(text.slice(text.length - (limit - headLen)))
  const omitted = text.length - head.length - tail.length
  const marker = `\n… ${omitted} chars omitted; ${where} …\n`
  return { text: head + marker + tail, truncated: true, ...(spilledPath ? { spilledPath } : {}) }
}

/**
 * The inline view of a command's output that was streamed to `spill` as it arrived (the full output
 * never sits in memory): head and tail around a marker saying exactly how many characters and whole
 * lines are not shown, and where they are.
 */
export function boundCommandOutput(
  output: HeadTailBuffer,
  opts: { limit: number; spill: SpillStream | undefined; spillError: string | undefined },
): BoundedOutput {
  const { limit, spill } = opts
  if (output.totalChars <= limit) return { text: output.text(), truncated: false }
  const headLen = Math.floor(limit * 0.4)
  const head = cutAtLineEnd(output.head(headLen))
  const tail = cutAtLineStart(output.tail(limit - headLen))
  const chars = output.totalChars - head.length - tail.length
  // 1-based lines: the head ends in one, the tail starts in another; the lines between are not shown.
  const headEndLine = countNewlines(head) + 1
  const tailStartLine = output.totalNewlines - countNewlines(tail) + 1
  const lines = Math.max(0, tailStartLine - headEndLine - 1)
  const omitted = `${chars} chars (${lines} ${lines === 1 ? 'line' : 'lines'}) omitted`
  const error = spill?.error
  let where: string
  if (!spill) {
    where = `the full output could not be saved (${opts.spillError ?? 'no file to save it to'})`
  } else if (error !== undefined) {
    where = `the output file ${spill.path} is incomplete: writing it failed (${error}); Read it with offset/limit`
  } else if (spill.droppedBytes > 0) {
    where = `the output file ${spill.path} keeps the first ${formatBytes(spill.headBytes)} and the latest output: it is capped at ${formatBytes(spill.capBytes)}, and ${spill.droppedBytes} bytes were cut from its middle (Read it with offset/limit)`
  } else {
    const range = lines > 0 ? `lines ${headEndLine + 1}–${tailStartLine - 1}; ` : ''
    where = `full output: ${spill.path} (${range}Read it with offset/limit)`
  }
  return {
    text: `${head}\n… ${omitted}; ${where} …\n${tail}`,
    truncated: true,
    ...(spill && error === undefined ? { spilledPath: spill.path } : {}),
  }
}

/** Drops a trailing partial line when a line break is near the end, so the head ends cleanly. */
function cutAtLineEnd(head: string): string {
  const nl = head.lastIndexOf('\n')
  return nl >= head.length * 0.8 ? head.slice(0, nl) : head
}

function cutAtLineStart(tail: string): string {
  const nl = tail.indexOf('\n')
  return nl >= 0 && nl <= tail.length * 0.2 ? tail.slice(nl + 1) : tail
}
