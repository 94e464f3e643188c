import { constants, existsSync } from 'node:fs'
import { type FileHandle, open, readlink, realpath, stat } from 'node:fs/promises'
import type { PermissionTarget } from '../permissions/target.js'
import { ToolError } from './types.js'

/**
 * Opens the file a read was judged for, and only that file. The gate judges where a path really leads
 * (`target.real`); opening the path again afterwards would resolve its links a second time, and a program
 * that can write the workspace (a sandboxed background job, which cannot read the credentials the sandbox
 * hides) could swap a link between the check and the open so that the read lands outside the boundary.
 * So the file is opened once, and the descriptor's own path — what the kernel actually opened — must be
 * the judged one; every later read goes through the descriptor.
 *
 * On Linux that path is `/proc/self/fd/N`. Without /proc (macOS) the opened file must be the same file
 * (device and inode) as the judged path's: the same refusal for a swapped last link, with a gap for a
 * swapped parent folder that Node, which has no openat, cannot close there.
 */
export async function openJudged(
  abs: string,
  shown: string,
  judged: {
    /** What the gate judged (`ToolContext.permission`); absent when the call was not judged (a direct use). */
    target: PermissionTarget | undefined
    /** For a target of kind `none` (nothing to judge, such as the session's own outputs): what it may be. */
    exempt: (real: string) => boolean
  },
): Promise<{ handle: FileHandle; real: string }> {
  // O_NONBLOCK: a FIFO put at the name after the check cannot hang the call.
  const handle = await open(abs, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const real = await openedPath(handle, abs)
    const { target } = judged
    const ok =
      target === undefined
        ? true
        : target.kind === 'path'
          ? target.real === undefined || (await sameFile(handle, real, target.real))
          : target.kind === 'none'
            ? judged.exempt(real)
            : false
    if (!ok)
      throw new ToolError(
        'permission',
        `${shown} changed between the permission check and the read (it now leads to ${real}); nothing was read`,
        {
          hint: 'a link on the way was replaced while the call ran; read the file again once nothing changes it',
        },
      )
    return { handle, real }
  } catch (error) {
    await handle.close()
    throw error
  }
}

const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd')

/** The path of the file the descriptor holds (the kernel's answer on Linux; the path resolved again elsewhere). */
async function openedPath(handle: FileHandle, abs: string): Promise<string> {
  if (PROC_FD) return readlink(`/proc/self/fd/${handle.fd}`)
  return realpath(abs)
}

async function sameFile(handle: FileHandle, real: string, judged: string): Promise<boolean> {
  if (PROC_FD) return real === judged
  const [opened, at] = await Promise.all([handle.stat(), stat(judged).catch(() => undefined)])
  return at !== undefined && opened.dev === at.dev && opened.ino === at.ino
}
