import { lstatSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { realPathOf } from '../permissions/real-path.js'
import { replaceInDirAsync } from '../util/safe-files.js'
import { openSafeDir, type SafeDir, UnsafePathError } from '../util/safe-open.js'

/** The path resolves somewhere else than it did (a symlink appeared or changed): nothing was written. */
export class PathMovedError extends Error {
  readonly code = 'EPATHMOVED'
  constructor(
    readonly path: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`${path} now resolves to ${actual}, not ${expected}`)
    this.name = 'PathMovedError'
  }
}

export interface AtomicWriteOptions {
  /** Mode of a new file (umask applies); an existing file keeps its own bits unless `exactMode`. */
  mode?: number
  /** Set exactly `mode`, also over an existing file's bits (files that hold tokens). */
  exactMode?: boolean
  /** Where the permission check judged the write would land (the target's real path). */
  expectedRealPath?: string
  /**
   * A file of agent-tui's own (a setting it saves, an export, OAuth tokens): `below` is a directory whose
   * own path is trusted, and below it nothing is followed — no link on the way, and a link at the name
   * itself is replaced, not written through. Without it the path's links are followed as the permission
   * check judged them (the model's Write of a file behind a link it was allowed to write).
   */
  below?: string
}

/**
 * Writes `data` to `path` atomically: a temp file in the same directory (a fresh random name, O_EXCL) is
 * written, fsynced and renamed over the target, so readers never see a half-written file. Parent
 * directories are created. Returns the final file's stat.
 *
 * Without `below`, a symlink is written through (its target is replaced, the link stays), and the
 * directory of the target's real path is opened component by component without following a link
 * (util/safe-open.ts): the workspace is writable by sandboxed commands, and a directory swapped for a
 * link after the check would otherwise take the write elsewhere. `expectedRealPath` is where the
 * permission check judged the write would land; if the path resolves elsewhere before anything is
 * written or right before the rename, PathMovedError is thrown and nothing is replaced. On Linux the
 * temp file and the rename go through the open directory, so nothing between the check and the rename
 * can redirect them.
 */
export async function atomicWriteFile(
  path: string,
  data: string | Uint8Array,
  opts: AtomicWriteOptions = {},
): Promise<{ mtimeMs: number; size: number }> {
  if (opts.below !== undefined) {
    const full = resolve(path)
    return writeIn(openSafeDir(opts.below, dirname(full), { create: 0o777 }), basename(full), data, opts)
  }
  const target = await realPathOf(path)
  if (opts.expectedRealPath !== undefined && target !== opts.expectedRealPath) {
    throw new PathMovedError(path, opts.expectedRealPath, target)
  }
  const stillThere = async (): Promise<void> => {
    const now = await realPathOf(path)
    if (now !== target) throw new PathMovedError(path, target, now)
  }
  let dir: SafeDir
  try {
    // Every component of a real path is a directory: a link on the way now means it moved.
    dir = openSafeDir('/', dirname(target), { create: 0o777 })
  } catch (error) {
    if (error instanceof UnsafePathError) await stillThere()
    throw error
  }
  const existing = lstatSync(dir.at(basename(target)), { throwIfNoEntry: false })
  if (existing?.isSymbolicLink()) {
    dir.close()
    await stillThere()
    throw new PathMovedError(path, target, `${target} (now a symbolic link)`)
  }
  return writeIn(dir, basename(target), data, { ...opts, beforeRename: stillThere }, existing)
}

async function writeIn(
  dir: SafeDir,
  name: string,
  data: string | Uint8Array,
  opts: AtomicWriteOptions & { beforeRename?: () => Promise<void> },
  existing = lstatSync(dir.at(name), { throwIfNoEntry: false }),
): Promise<{ mtimeMs: number; size: number }> {
  try {
    // Only a regular file's bits are kept: a link or FIFO planted at the name is not ours.
    const existingMode = existing?.isFile() && !opts.exactMode ? existing.mode & 0o7777 : undefined
    const mode = existingMode ?? opts.mode ?? 0o666
    const stat = await replaceInDirAsync(dir, name, data, {
      mode,
      fsync: true,
      ...(opts.exactMode ? { exactMode: true } : {}),
      ...(existingMode !== undefined ? { keepMode: existingMode } : {}),
      ...(opts.beforeRename ? { beforeRename: opts.beforeRename } : {}),
    })
    return { mtimeMs: stat.mtimeMs, size: stat.size }
  } finally {
    dir.close()
  }
}
