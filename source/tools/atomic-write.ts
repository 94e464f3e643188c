import { randomBytes } from 'node:crypto'
import { chmod, mkdir, open, realpath, rename, stat, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/**
 * Writes `data` to `path` atomically: a temp file in the same directory is written, fsynced and
 * renamed over the target, so readers never see a half-written file. Parent directories are created.
 * An existing file keeps its mode bits; a symlink is written through (its target is replaced, the
 * link stays). Returns the final file's stat. Throws the underlying fs error on failure, after
 * removing the temp file.
 */
export async function atomicWriteFile(
  path: string,
  data: string | Uint8Array,
  opts: { mode?: number } = {},
): Promise<{ mtimeMs: number; size: number }> {
  const target = await realpath(path).catch(() => path)
  const dir = dirname(target)
  await mkdir(dir, { recursive: true })
  const existingMode = await stat(target).then(
    (s) => s.mode & 0o7777,
    () => undefined,
  )
  const mode = existingMode ?? opts.mode ?? 0o666
  const temp = join(dir, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`)
  const handle = await open(temp, 'wx', mode)
  try {
    try {
      await handle.writeFile(data)
      await handle.sync()
    } finally {
      await handle.close()
    }
    // open() applies the umask; an existing file's exact bits must survive the replacement.
    if (existingMode !== undefined) await chmod(temp, existingMode)
    await rename(temp, target)
  } catch (error) {
    await unlink(temp).catch(() => undefined)
    throw error
  }
  const final = await stat(target)
  return { mtimeMs: final.mtimeMs, size: final.size }
}
