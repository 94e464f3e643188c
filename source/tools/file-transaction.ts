import {
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  readFileSync,
  renameSync,
  rmdirSync,
  type Stats,
  unlinkSync,
  writeSync,
} from 'node:fs'
import { basename, dirname } from 'node:path'
import { createFresh, freshName, openSafeDir, type SafeDir } from '../util/safe-open.js'

/**
 * Changes to several files made all together or not at all (apply_patch). Every new content is first
 * written to a temp file beside its target and every file to be replaced or deleted is kept under a
 * second name (a hard link: the same file, so nothing is copied); only then are the temps renamed over
 * their targets and the deleted files moved aside, one by one. A failure before that changes nothing; a
 * failure on the way puts back what was already renamed, in reverse order, and removes the folders it
 * made. Like the one-file write (atomic-write.ts), each target's folder is opened without following a
 * link (util/safe-open.ts), and its names are reached through the open folder, so a folder swapped for
 * a link after the permission check cannot take a write elsewhere.
 */

export type FileOp =
  /** `path`: where the write lands (a real path, as the permission check judged it). */
  | { kind: 'write'; path: string; data: Uint8Array; mode?: number }
  /** `path`: the name to remove (the real path of its folder and its own name). */
  | { kind: 'delete'; path: string }

export interface CommitOptions {
  /** A last look right before op `index` is carried out; what it throws stops the commit (and rolls it back). */
  before?(op: FileOp, index: number): Promise<void>
}

/** The commit failed at `op` (nothing changed, or everything was put back): `cause` says why. */
export class CommitError extends Error {
  constructor(
    readonly op: FileOp,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause })
    this.name = 'CommitError'
  }
}

/** Some of what the failed commit had changed could not be put back: the files to look at. */
export class RollbackError extends Error {
  constructor(
    cause: unknown,
    readonly unrestored: readonly string[],
  ) {
    super(
      `${cause instanceof Error ? cause.message : String(cause)}; putting back the files already changed failed for ${unrestored.join(', ')}`,
      { cause },
    )
    this.name = 'RollbackError'
  }
}

interface Prepared {
  op: FileOp
  dir: SafeDir
  name: string
  /** The new content's temp file (writes). */
  temp?: string
  /** The old file under a second name (a replaced or deleted file; a delete takes it when it runs). */
  backup?: string
  stat?: { mtimeMs: number; size: number }
}

/**
 * Carries out `ops` all together. Resolves with the new stat of each write (undefined for deletes), in
 * order; rejects with a CommitError naming the op that failed, after putting everything back (its
 * cause a RollbackError when that failed too).
 */
export async function commitFiles(
  ops: readonly FileOp[],
  opts: CommitOptions = {},
): Promise<Array<{ mtimeMs: number; size: number } | undefined>> {
  const prepared: Prepared[] = []
  const madeDirs: string[] = []
  let at: FileOp | undefined
  try {
    for (const op of ops) {
      at = op
      prepared.push(prepare(op, madeDirs))
    }
  } catch (error) {
    cleanUp(prepared, madeDirs, 'failed')
    throw new CommitError(at as FileOp, error)
  }
  const done: Prepared[] = []
  try {
    for (const [index, p] of prepared.entries()) {
      at = p.op
      await opts.before?.(p.op, index)
      if (p.temp !== undefined) renameSync(p.dir.at(p.temp), p.dir.at(p.name))
      else {
        p.backup = freshName(`.${p.name}.deleted`)
        renameSync(p.dir.at(p.name), p.dir.at(p.backup))
      }
      done.push(p)
    }
  } catch (error) {
    const unrestored = rollBack(done)
    cleanUp(prepared, madeDirs, 'failed', new Set(done))
    throw new CommitError(at as FileOp, unrestored.length > 0 ? new RollbackError(error, unrestored) : error)
  }
  cleanUp(prepared, madeDirs, 'done')
  return prepared.map((p) => p.stat)
}

/** The temp file of a write and the second name of a file to be replaced; nothing visible changes. */
function prepare(op: FileOp, madeDirs: string[]): Prepared {
  const folder = dirname(op.path)
  const name = basename(op.path)
  if (op.kind === 'write') madeDirs.push(...missingFolders(folder))
  const dir = openSafeDir('/', folder, op.kind === 'write' ? { create: 0o777 } : {})
  const p: Prepared = { op, dir, name }
  try {
    const existing = lstatSync(dir.at(name), { throwIfNoEntry: false })
    if (existing?.isDirectory()) throw codeError('EISDIR', `${op.path} is a directory`)
    if (op.kind === 'delete') {
      if (!existing) throw codeError('ENOENT', `${op.path} does not exist`)
      return p
    }
    if (existing?.isSymbolicLink()) throw codeError('EPATHMOVED', `${op.path} is now a symbolic link`)
    // Only a regular file's bits are kept, as the one-file write keeps them.
    const keep = existing?.isFile() ? existing.mode & 0o7777 : undefined
    const { fd, name: temp } = createFresh(dir, freshName(`.${name}.tmp`), { mode: keep ?? op.mode ?? 0o666 })
    p.temp = temp
    try {
      for (let at = 0; at < op.data.length; ) at += writeSync(fd, op.data, at, op.data.length - at)
      if (keep !== undefined) fchmodSync(fd, keep)
      fsyncSync(fd)
      const st = fstatSync(fd)
      p.stat = { mtimeMs: st.mtimeMs, size: st.size }
    } finally {
      closeSync(fd)
    }
    if (existing) p.backup = keepAside(dir, name, existing)
    return p
  } catch (error) {
    cleanUp([p], [], 'failed')
    throw error
  }
}

/** The file at `name` under a second name: a hard link, or where links are refused, a copy. */
function keepAside(dir: SafeDir, name: string, existing: Stats): string {
  const backup = freshName(`.${name}.orig`)
  try {
    linkSync(dir.at(name), dir.at(backup))
  } catch {
    const { fd } = createFresh(dir, backup, { mode: existing.mode & 0o7777 })
    try {
      const data = readFileSync(dir.at(name))
      for (let at = 0; at < data.length; ) at += writeSync(fd, data, at, data.length - at)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  }
  return backup
}

/** Puts back what the commit changed, newest first; returns the files it could not put back. */
function rollBack(done: readonly Prepared[]): string[] {
  const unrestored: string[] = []
  for (const p of [...done].reverse()) {
    try {
      if (p.backup !== undefined) renameSync(p.dir.at(p.backup), p.dir.at(p.name))
      else unlinkSync(p.dir.at(p.name))
      p.backup = undefined
    } catch {
      unrestored.push(
        p.backup === undefined ? p.op.path : `${p.op.path} (its old content is kept as ${p.backup})`,
      )
    }
  }
  return unrestored
}

/**
 * Removes the temps not renamed and, after success, the second names of replaced and deleted files;
 * after a failure also the folders this commit made (when they are empty again). Closes the folders.
 */
function cleanUp(
  prepared: readonly Prepared[],
  madeDirs: readonly string[],
  outcome: 'done' | 'failed',
  committed: ReadonlySet<Prepared> = new Set(),
): void {
  for (const p of prepared) {
    const remove = (name: string | undefined) => {
      if (name === undefined) return
      try {
        unlinkSync(p.dir.at(name))
      } catch {
        // Renamed already, or never made.
      }
    }
    if (outcome === 'failed' && !committed.has(p)) remove(p.temp)
    // After a failure a backup still there was never renamed back (its file was not changed).
    if (outcome === 'done' || !committed.has(p)) remove(p.backup)
    p.dir.close()
  }
  if (outcome === 'failed') {
    for (const folder of [...madeDirs].reverse()) {
      try {
        rmdirSync(folder)
      } catch {
        // Not empty (something else put a file there), or gone.
      }
    }
  }
}

/** The folders on the way to `folder` that do not exist yet, outermost first. */
function missingFolders(folder: string): string[] {
  const missing: string[] = []
  for (let at = folder; lstatSync(at, { throwIfNoEntry: false }) === undefined; at = dirname(at)) {
    if (dirname(at) === at) break
    missing.unshift(at)
  }
  return missing
}

function codeError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code })
}
