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

/** Linux's O_PATH: a descriptor that names a file or folder without opening it for reading. */
const O_PATH = 0o10000000

/** A judged path held open for a program that reads it itself (ripgrep): `path` reaches only what was judged. */
export interface PinnedPath {
  /** What to hand the program: on Linux `/proc/<pid>/fd/N`, which the kernel resolves from the descriptor. */
  path: string
  /** A path the program reports (under `path`) as under the path the caller named. */
  named(reported: string): string
  close(): Promise<void>
}

/**
 * Pins the file or folder a search was judged for, as openJudged does for a read, for a program started
 * after the check: handed the path again it would resolve the links on it again, when a swapped one may
 * lead out of the boundary. Without /proc (macOS) the path is handed on as named: a gap Node cannot close
 * there.
 */
export async function pinJudged(
  abs: string,
  shown: string,
  target: PermissionTarget | undefined,
): Promise<PinnedPath> {
  const judged = target?.kind === 'path' ? target.real : undefined
  if (!PROC_FD || judged === undefined)
    return { path: abs, named: (reported) => reported, close: async () => undefined }
  const handle = await open(abs, O_PATH)
  try {
    const real = await readlink(`/proc/self/fd/${handle.fd}`)
    if (real !== judged)
      throw new ToolError(
        'permission',
        `${shown} changed between the permission check and the search (it now leads to ${real}); nothing was searched`,
        { hint: 'a link on the way was replaced while the call ran; search again once nothing changes it' },
      )
  } catch (error) {
    await handle.close()
    throw error
  }
  const path = `/proc/${process.pid}/fd/${handle.fd}`
  return {
    path,
    named: (reported) =>
      reported === path
        ? abs
        : reported.startsWith(`${path}/`)
          ? abs + reported.slice(path.length)
          : reported,
    close: () => handle.close(),
  }
}
