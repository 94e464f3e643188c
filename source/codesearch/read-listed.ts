import { constants } from 'node:fs'
import { open, readlink, realpath } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { type Boundary, isInside, secretName } from '../permissions/protected-paths.js'
import { type ListedFile, MAX_IMAGE_BYTES, MAX_TEXT_BYTES } from './file-list.js'

/**
 * Reads a listed file for the index as a Read would see it, or not at all. Between the listing and the
 * read a sandboxed command can swap the file (or a folder on its way) for a link to `~/.aws/credentials`;
 * so the file is opened without following a link, must be the very file the listing saw (dev and inode),
 * and its real path — the kernel's name for the open descriptor where /proc has it, else the real path of
 * its folder — must still be inside the workspace and pass the secrets-name and deny-read checks.
 */

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

export interface ReadCheck {
  /** The workspace's real path (resolved once per update). */
  realWorkspace: string
  boundary: Boundary
  deniedRead?: (abs: string) => string | undefined
}

/** The file's bytes, or undefined when it is gone, replaced, outside the workspace or kept from Read. */
export async function readListed(
  workspace: string,
  path: string,
  listed: ListedFile,
  check: ReadCheck,
): Promise<Buffer | undefined> {
  const abs = join(workspace, path)
  const handle = await open(abs, OPEN_FLAGS).catch(() => undefined)
  if (!handle) return undefined
  try {
    const st = await handle.stat()
    if (!st.isFile() || st.dev !== listed.dev || st.ino !== listed.ino) return undefined
    if (st.size > (listed.kind === 'image' ? MAX_IMAGE_BYTES : MAX_TEXT_BYTES)) return undefined
    const real = await realOf(handle.fd, abs)
    if (real === undefined || !isInside(real, check.realWorkspace) || real === check.realWorkspace)
      return undefined
    if (secretName(real, check.boundary) !== undefined || check.deniedRead?.(real) !== undefined)
      return undefined
    return await handle.readFile()
  } catch {
    return undefined
  } finally {
    await handle.close().catch(() => undefined)
  }
}

async function realOf(fd: number, abs: string): Promise<string | undefined> {
  if (process.platform === 'linux') {
    const named = await readlink(`/proc/self/fd/${fd}`).catch(() => undefined)
    // A file unlinked since it was opened is named "… (deleted)": not one to index.
    if (named !== undefined) return named.endsWith(' (deleted)') ? undefined : named
  }
  const dir = await realpath(dirname(abs)).catch(() => undefined)
  return dir === undefined ? undefined : join(dir, basename(abs))
}
