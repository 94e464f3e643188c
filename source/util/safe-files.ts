import {
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  readSync,
  renameSync,
  type Stats,
  unlinkSync,
  constants,
  fsync,
  write,
  writeSync,
} from 'node:fs'
import { type FileHandle, open, rename, unlink } from 'node:fs/promises'
import { promisify } from 'node:util'
import { basename, dirname, resolve } from 'node:path'
import {
  checkOwnFile,
  createFresh,
  createNew,
  freshName,
  openExisting,
  openSafeDir,
  type SafeDir,
  UnsafePathError,
} from './safe-open.js'

const writeAsync = promisify(write)
const fsyncAsync = promisify(fsync)

/**
 * agent-tui's own files, by path, on top of safe-open.ts: read, replace and append without following a
 * link anywhere below a root whose own path is trusted, and without blocking on a planted FIFO. Each
 * call opens the directory afresh, so a directory swapped for a link since the last call is refused too.
 */

/** Directories agent-tui makes for its own files: only this user can list or enter them. */
export const PRIVATE_DIR = 0o700

export interface PlaceOptions {
  /** Make missing directories between `root` and the file, with this mode. */
  createDirs?: number
}

/** The directory of `path` below `root`, opened safely, and the file's name in it. */
export function placeOf(root: string, path: string, opts: PlaceOptions = {}): { dir: SafeDir; name: string } {
  const full = resolve(path)
  return {
    dir: openSafeDir(root, dirname(full), opts.createDirs === undefined ? {} : { create: opts.createDirs }),
    name: basename(full),
  }
}

/**
 * Reads `path` (below `root`) if it is a regular file of this user: a link, a FIFO or a device at the name
 * is refused (UnsafePathError), a missing file or directory reads as undefined. At most `maxBytes`.
 */
export function readOwnFile(
  root: string,
  path: string,
  opts: { maxBytes?: number } = {},
): Buffer | undefined {
  let place: { dir: SafeDir; name: string }
  try {
    place = placeOf(root, path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  try {
    const fd = openExisting(place.dir, place.name, 'read')
    if (fd === undefined) return undefined
    try {
      return readAll(fd, opts.maxBytes ?? 64 * 1024 * 1024)
    } finally {
      closeSync(fd)
    }
  } finally {
    place.dir.close()
  }
}

function readAll(fd: number, maxBytes: number): Buffer {
  const size = Math.min(fstatSync(fd).size, maxBytes)
  const buffer = Buffer.alloc(size)
  let at = 0
  while (at < size) {
    const n = readSync(fd, buffer, at, size - at, at)
    if (n === 0) break
    at += n
  }
  return buffer.subarray(0, at)
}

function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at)
}

export interface ReplaceOptions {
  /** Mode of a new file (umask applies unless `exactMode`). */
  mode: number
  /** Set exactly `mode`, also over an existing file's bits (files that hold tokens). */
  exactMode?: boolean
  /** fsync before the rename (durability across a crash of the machine). */
  fsync?: boolean
}

/**
 * Replaces `name` in `dir` with `data` atomically: a temp file under a fresh random name (O_EXCL) is
 * written and renamed over the name through the open directory. The rename replaces whatever sits at the
 * name itself — a planted link is replaced, its target untouched. Returns the new file's stat.
 */
export function replaceInDir(
  dir: SafeDir,
  name: string,
  data: string | Uint8Array,
  opts: ReplaceOptions,
): Stats {
  const { fd, name: temp } = createFresh(dir, freshName(`.${name}.tmp`), { mode: opts.mode })
  try {
    writeAll(fd, data)
    if (opts.exactMode) fchmodSync(fd, opts.mode)
    if (opts.fsync) fsyncSync(fd)
    const stat = fstatSync(fd)
    renameSync(dir.at(temp), dir.at(name))
    return stat
  } catch (error) {
    try {
      unlinkSync(dir.at(temp))
    } catch {
      // Renamed already, or never made.
    }
    throw error
  } finally {
    closeSync(fd)
  }
}

/** `replaceInDir` for `path` below `root`. */
export function replaceOwnFile(
  root: string,
  path: string,
  data: string | Uint8Array,
  opts: ReplaceOptions & PlaceOptions,
): Stats {
  const { dir, name } = placeOf(root, path, opts)
  try {
    return replaceInDir(dir, name, data, opts)
  } finally {
    dir.close()
  }
}

/** `replaceInDir` with the writing and fsync off the event loop (for files of any size). */
export async function replaceInDirAsync(
  dir: SafeDir,
  name: string,
  data: string | Uint8Array,
  opts: ReplaceOptions & {
    /** An existing file's exact bits, kept through the replacement. */
    keepMode?: number
    /** Last look before the rename (e.g. that a path still resolves where it was judged); throw to stop. */
    beforeRename?: () => Promise<void>
  },
): Promise<Stats> {
  const { fd, name: temp } = createFresh(dir, freshName(`.${name}.tmp`), { mode: opts.mode })
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data
    for (let at = 0; at < bytes.length; )
      at += (await writeAsync(fd, bytes, at, bytes.length - at)).bytesWritten
    // open() applied the umask; an existing file's exact bits (or the asked ones) must survive.
    const exact = opts.keepMode ?? (opts.exactMode ? opts.mode : undefined)
    if (exact !== undefined) fchmodSync(fd, exact)
    if (opts.fsync) await fsyncAsync(fd)
    const stat = fstatSync(fd)
    await opts.beforeRename?.()
    await rename(dir.at(temp), dir.at(name))
    return stat
  } catch (error) {
    await unlink(dir.at(temp)).catch(() => undefined)
    throw error
  } finally {
    closeSync(fd)
  }
}

/**
 * Opens `path` (below `root`) for appending: the existing file if it is a regular file of this user,
 * else a new one (O_EXCL). Returns the descriptor; a link or FIFO at the name is refused.
 */
export function openOwnFileForAppend(
  root: string,
  path: string,
  opts: { mode: number; access?: 'write' | 'read-write' } & PlaceOptions,
): number {
  const { dir, name } = placeOf(root, path, opts)
  try {
    for (let attempt = 0; ; attempt++) {
      const fd = openExisting(dir, name, opts.access ?? 'write', { append: true })
      if (fd !== undefined) return fd
      try {
        return createNew(dir, name, { mode: opts.mode, access: opts.access ?? 'write', append: true })
      } catch (error) {
        // Made by someone else between the two opens: look again, once.
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error
      }
    }
  } finally {
    dir.close()
  }
}

/**
 * Opens a file of agent-tui's (a job log, a session log) for reading without following a link at its
 * name or blocking on a FIFO there, and only if it is this user's own regular file (else UnsafePathError).
 */
export async function openOwnForReading(path: string): Promise<FileHandle> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ELOOP' || error.code === 'EMLINK')
        throw new UnsafePathError(path, 'is a symbolic link')
      throw error
    },
  )
  try {
    checkOwnFile(await handle.stat(), path)
    return handle
  } catch (error) {
    await handle.close()
    throw error
  }
}

export { checkOwnFile }
