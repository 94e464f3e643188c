import { randomBytes } from 'node:crypto'
import {
  closeSync,
  constants,
  type Dirent,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  type Stats,
  statSync,
} from 'node:fs'
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path'

/**
 * How agent-tui opens its own files in directories that something else can write: the session's outputs
 * dir (writable inside the Bash sandbox by design), the workspace, the state dir. A sandboxed command can
 * plant a symlink named like the next job log, replace a directory on the way with a link, put a FIFO
 * where a file will be read, or fill a folder with names. So:
 *
 * - a directory is opened component by component from a root whose own path is trusted (the user chose
 *   it), and no component below the root may be a symlink or anything but a directory;
 * - a file is then reached through the open directory — on Linux `/proc/self/fd/N/name`, which the kernel
 *   resolves from the directory actually opened, so swapping a parent for a link after the check changes
 *   nothing — never through the path again;
 * - a new file is created with O_CREAT | O_EXCL | O_NOFOLLOW (a link, a FIFO or a planted file at the
 *   name makes the create fail, never redirects it), or under a fresh random name (`createFresh`);
 * - an existing file is opened with O_NOFOLLOW | O_NONBLOCK (a FIFO cannot block the open) and used only
 *   when it is a regular file of this user with no other hard link.
 *
 * Without /proc (macOS) the walk checks each component with lstat instead: the same refusals, with a gap
 * between check and use that Node (which has no openat) cannot close there.
 */

const { O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY, O_RDONLY, O_WRONLY, O_RDWR, O_APPEND } =
  constants
/** Linux's O_PATH: a directory descriptor for lookups, which needs no read permission on it. */
const O_PATH = process.platform === 'linux' ? 0o10000000 : 0

/** A link, a non-directory or a file agent-tui did not make was in the way: nothing was written. */
export class UnsafePathError extends Error {
  readonly code = 'EUNSAFEPATH'
  constructor(
    readonly path: string,
    readonly why: string,
  ) {
    super(`${path} ${why}; agent-tui does not write through links or into files it did not make`)
    this.name = 'UnsafePathError'
  }
}

/** A directory opened without following links; names in it are reached through it (`at`), not by path. */
export interface SafeDir {
  /** The directory's path as walked (for messages, and for the paths callers report). */
  readonly path: string
  /** `name` in this directory, spelled so that the kernel reaches it through the open directory. */
  at(name: string): string
  /** A subdirectory that is not a link; made with `create` (a mode) when missing. */
  sub(name: string, opts?: { create?: number }): SafeDir
  /** The directory's entries (types as they are: a link is reported as a link). */
  list(): Dirent[]
  close(): void
}

export type Access = 'read' | 'write' | 'read-write'

const ACCESS: Record<Access, number> = { read: O_RDONLY, write: O_WRONLY, 'read-write': O_RDWR }

const errno = (error: unknown): string | undefined =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined

function checkName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes(sep)) {
    throw new Error(`"${name}" is not a plain file name`)
  }
}

/**
 * Opens `dir` (default: `root` itself). `root` is taken as named, links and all: it is where the user (or
 * agent-tui's configuration) put things. Every component of `dir` below it must be a directory, not a
 * link; with `create` (a mode) missing ones are made. Close the result when done.
 */
export function openSafeDir(
  root: string,
  dir: string = root,
  /** `byPath`: walk with lstat as without /proc (how macOS works; for tests of that walk). */
  opts: { create?: number; byPath?: boolean } = {},
): SafeDir {
  const rel = relative(resolve(root), resolve(dir))
  if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${dir} is not inside ${root}`)
  if (opts.create !== undefined) mkdirSync(root, { recursive: true, mode: opts.create })
  let at = openRoot(resolve(root), opts.byPath === true, rel === '')
  try {
    for (const name of rel === '' ? [] : rel.split(sep)) {
      const next = at.sub(name, opts)
      at.close()
      at = next
    }
    return at
  } catch (error) {
    at.close()
    throw error
  }
}

/**
 * The root, as named: its links are the user's. `alone`: nothing below it is walked now, so names in it
 * are plain paths (a descriptor would only add system calls: the registry is written on every command);
 * its subdirectories are still opened through descriptors.
 */
function openRoot(root: string, byPath: boolean, alone: boolean): SafeDir {
  // /proc may be missing (some containers): then walk by path as elsewhere.
  const viaFd = O_PATH !== 0 && !byPath && existsSync('/proc/self/fd')
  if (viaFd && !alone) return fdDir(openSync(root, O_PATH | O_DIRECTORY), root)
  if (!statSync(root).isDirectory()) throw new UnsafePathError(root, 'is not a directory')
  return pathDir(root, viaFd)
}

/** A directory held open (Linux, O_PATH): names resolve from the descriptor. */
function fdDir(fd: number, path: string): SafeDir {
  let open = true
  const at = (name: string): string => {
    checkName(name)
    return `/proc/self/fd/${fd}/${name}`
  }
  return {
    path,
    at,
    sub(name, opts = {}) {
      const childPath = join(path, name)
      const tryOpen = (): number => openSync(at(name), O_PATH | O_DIRECTORY | O_NOFOLLOW)
      try {
        return fdDir(tryOpen(), childPath)
      } catch (error) {
        if (errno(error) !== 'ENOENT' || opts.create === undefined) throw fdError(error, at(name), childPath)
        makeDir(at(name), opts.create)
        return fdDir(sub(tryOpen, childPath, at(name)), childPath)
      }
    },
    list: () => readdirSync(`/proc/self/fd/${fd}`, { withFileTypes: true }),
    close() {
      if (!open) return
      open = false
      closeSync(fd)
    },
  }
}

/** The second try after making the directory: someone may have put a link there in between. */
function sub(tryOpen: () => number, childPath: string, spelled: string): number {
  try {
    return tryOpen()
  } catch (error) {
    throw fdError(error, spelled, childPath)
  }
}

/** A directory open that failed: a link or a file in the way says so; anything else as it is. */
function fdError(error: unknown, spelled: string, shown: string): unknown {
  const code = errno(error)
  return code === 'ENOTDIR' || code === 'ELOOP' ? notADirectory(spelled, shown) : error
}

function makeDir(spelled: string, mode: number): void {
  try {
    mkdirSync(spelled, { mode })
  } catch (made) {
    if (errno(made) !== 'EEXIST') throw made
  }
}

function notADirectory(spelled: string, shown: string): UnsafePathError {
  const stat = lstatSync(spelled, { throwIfNoEntry: false })
  return new UnsafePathError(shown, stat?.isSymbolicLink() ? 'is a symbolic link' : 'is not a directory')
}

/**
 * Names as plain paths. Without /proc each component is checked with lstat; with it (`viaFd`, a trusted
 * root used by path) a subdirectory is opened O_NOFOLLOW into a descriptor, and walked through that.
 */
function pathDir(path: string, viaFd = false): SafeDir {
  return {
    path,
    at(name) {
      checkName(name)
      return join(path, name)
    },
    sub(name, opts = {}) {
      checkName(name)
      const child = join(path, name)
      if (viaFd) {
        const tryOpen = (): number => openSync(child, O_PATH | O_DIRECTORY | O_NOFOLLOW)
        try {
          return fdDir(tryOpen(), child)
        } catch (error) {
          if (errno(error) !== 'ENOENT' || opts.create === undefined) throw fdError(error, child, child)
          makeDir(child, opts.create)
          return fdDir(sub(tryOpen, child, child), child)
        }
      }
      if (opts.create !== undefined && lstatSync(child, { throwIfNoEntry: false }) === undefined)
        makeDir(child, opts.create)
      // Throws ENOENT for a missing one.
      const stat = lstatSync(child)
      if (stat.isSymbolicLink()) throw new UnsafePathError(child, 'is a symbolic link')
      if (!stat.isDirectory()) throw new UnsafePathError(child, 'is not a directory')
      return pathDir(child)
    },
    list: () => readdirSync(path, { withFileTypes: true }),
    close() {},
  }
}

/**
 * Creates `name` in `dir` as a new file and opens it. Whatever sits at the name already — a link, a FIFO,
 * a file — makes it fail with EEXIST: the create never follows or reuses it.
 */
export function createNew(
  dir: SafeDir,
  name: string,
  opts: { mode: number; access?: Exclude<Access, 'read'>; append?: boolean },
): number {
  const flags = ACCESS[opts.access ?? 'write'] | O_CREAT | O_EXCL | O_NOFOLLOW | (opts.append ? O_APPEND : 0)
  return openSync(dir.at(name), flags, opts.mode)
}

/** `b3.log` → `b3.<random>.log`: a name nobody can have planted in advance. */
export function freshName(name: string): string {
  const ext = extname(name)
  const stem = ext === '' ? name : name.slice(0, -ext.length)
  return `${stem}.${randomBytes(6).toString('hex')}${ext}`
}

/**
 * `createNew`, and when the name is taken (a planted link or file, a leftover), the same under a fresh
 * random name: a log is never lost and never written through what was planted. Returns the name used.
 */
export function createFresh(
  dir: SafeDir,
  name: string,
  opts: { mode: number; access?: Exclude<Access, 'read'>; append?: boolean },
): { fd: number; name: string } {
  let candidate = name
  for (let attempt = 0; ; attempt++) {
    try {
      return { fd: createNew(dir, candidate, opts), name: candidate }
    } catch (error) {
      if (errno(error) !== 'EEXIST') throw error
      // Random names do not collide; a folder that keeps answering EEXIST is not one to write in.
      if (attempt >= 3)
        throw new UnsafePathError(join(dir.path, name), 'and every fresh name tried already exist')
      candidate = freshName(name)
    }
  }
}

/**
 * Opens an existing file in `dir` without following a link (O_NOFOLLOW) or blocking on a FIFO
 * (O_NONBLOCK); undefined when there is none. Anything but a regular file of this user with no other hard
 * link is refused (UnsafePathError): it is not one agent-tui made.
 */
export function openExisting(
  dir: SafeDir,
  name: string,
  access: Access,
  opts: { append?: boolean } = {},
): number | undefined {
  const shown = join(dir.path, name)
  let fd: number
  try {
    fd = openSync(dir.at(name), ACCESS[access] | O_NOFOLLOW | O_NONBLOCK | (opts.append ? O_APPEND : 0))
  } catch (error) {
    const code = errno(error)
    if (code === 'ENOENT') return undefined
    if (code === 'ELOOP' || code === 'EMLINK') throw new UnsafePathError(shown, 'is a symbolic link')
    // A FIFO opened for writing without a reader.
    if (code === 'ENXIO') throw new UnsafePathError(shown, 'is a FIFO or a socket, not a regular file')
    if (code === 'EISDIR') throw new UnsafePathError(shown, 'is a directory, not a regular file')
    throw error
  }
  try {
    checkOwnFile(fstatSync(fd), shown)
    return fd
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/** Throws unless `stat` is a regular file of this user that no other name links to. */
export function checkOwnFile(stat: Stats, shown: string): void {
  if (!stat.isFile()) throw new UnsafePathError(shown, `is ${kindOf(stat)}, not a regular file`)
  if (stat.nlink > 1) throw new UnsafePathError(shown, `has ${stat.nlink - 1} other hard link(s)`)
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined
  if (uid !== undefined && stat.uid !== uid) throw new UnsafePathError(shown, `belongs to uid ${stat.uid}`)
}

function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO'
  if (stat.isSocket()) return 'a socket'
  if (stat.isDirectory()) return 'a directory'
  if (stat.isSymbolicLink()) return 'a symbolic link'
  return 'a device'
}

/**
 * A second open file description of a file this process created and still holds as `fd` (e.g. one
 * without O_APPEND beside the job's own). Linux reopens the very inode through /proc; elsewhere the name
 * is opened without following links and must still be the same file.
 */
export function reopen(fd: number, dir: SafeDir, name: string, access: Access): number {
  const held = fstatSync(fd)
  const viaProc = O_PATH !== 0 && existsSync(`/proc/self/fd/${fd}`)
  const again = viaProc
    ? openSync(`/proc/self/fd/${fd}`, ACCESS[access])
    : openSync(dir.at(name), ACCESS[access] | O_NOFOLLOW | O_NONBLOCK)
  const now = fstatSync(again)
  if (now.ino !== held.ino || now.dev !== held.dev) {
    closeSync(again)
    throw new UnsafePathError(join(dir.path, name), 'was replaced since agent-tui made it')
  }
  return again
}
