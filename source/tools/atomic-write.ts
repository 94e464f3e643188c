import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { chmod, mkdir, open, realpath, rename, stat, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { realPathOf } from '../permissions/real-path.js'

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

/**
 * Writes `data` to `path` atomically: a temp file in the same directory is written, fsynced and
 * renamed over the target, so readers never see a half-written file. Parent directories are created.
 * An existing file keeps its mode bits; a symlink is written through (its target is replaced, the
 * link stays). Returns the final file's stat. Throws the underlying fs error on failure, after
 * removing the temp file.
 *
 * `expectedRealPath` is where the permission check judged the write would land. The path is resolved
 * again before anything is written and right before the rename; if it lands elsewhere (a symlink
 * swapped in after the check), PathMovedError is thrown and nothing is replaced. The temp file is
 * created with O_EXCL | O_NOFOLLOW, so it never follows a link either. (The last re-check and the
 * rename are two system calls; without openat-style calls in Node that gap cannot be closed.)
 */
export async function atomicWriteFile(
  path: string,
  data: string | Uint8Array,
  opts: { mode?: number; expectedRealPath?: string } = {},
): Promise<{ mtimeMs: number; size: number }> {
  const target = await realPathOf(path)
  if (opts.expectedRealPath !== undefined && target !== opts.expectedRealPath) {
    throw new PathMovedError(path, opts.expectedRealPath, target)
  }
  const dir = dirname(target)
  await mkdir(dir, { recursive: true })
  const existingMode = await stat(target).then(
    (s) => s.mode & 0o7777,
    () => undefined,
  )
  const mode = existingMode ?? opts.mode ?? 0o666
  const temp = join(dir, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`)
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0)
  const handle = await open(temp, flags, mode)
  try {
    try {
      await handle.writeFile(data)
      await handle.sync()
    } finally {
      await handle.close()
    }
    // open() applies the umask; an existing file's exact bits must survive the replacement.
    if (existingMode !== undefined) await chmod(temp, existingMode)
    const [now, nowDir] = await Promise.all([realPathOf(path), realpath(dir)])
    if (now !== target || nowDir !== dir)
      throw new PathMovedError(path, target, now === target ? nowDir : now)
    await rename(temp, target)
  } catch (error) {
    await unlink(temp).catch(() => undefined)
    throw error
  }
  const final = await stat(target)
  return { mtimeMs: final.mtimeMs, size: final.size }
}
