import type { Stats } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import { displayPath } from './paths.js'
import { type ToolContext, ToolError } from './types.js'

export interface WriteTarget {
  /** Where to write: the real path of an existing file, else the resolved path. */
  path: string
  /** The existing file's stat, or undefined for a new file. */
  existing: Stats | undefined
}

/**
 * Enforces the read-before-write rule for Write and Edit: an existing file must have been read (or
 * written) in this session and be unchanged on disk since (same mtime and size). Throws a ToolError
 * telling the model what to do otherwise; a directory at the path is also refused.
 */
export async function checkWriteTarget(absPath: string, ctx: ToolContext): Promise<WriteTarget> {
  const shown = displayPath(absPath, ctx.workspace)
  const existing = await stat(absPath).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw fsError(error, shown)
  })
  if (!existing) return { path: absPath, existing: undefined }
  if (existing.isDirectory()) {
    throw new ToolError('validation', `${shown} is a directory, not a file.`, {
      hint: 'Give the path of a file inside it.',
    })
  }
  const path = await realpath(absPath)
  const seen = ctx.files.get(path)
  if (!seen) {
    throw new ToolError('validation', `${shown} already exists and has not been read in this session.`, {
      hint: `Read ${shown} first, then retry the change.`,
    })
  }
  if (seen.mtimeMs !== existing.mtimeMs || seen.size !== existing.size) {
    throw new ToolError(
      'filesystem',
      `${shown} changed on disk since you last read it (now ${existing.size} bytes, modified ${existing.mtime.toISOString()}).`,
      { hint: `Read ${shown} again and redo the change on its current content.` },
    )
  }
  return { path, existing }
}

/** Maps an fs error to a ToolError with a category the model can act on. */
export function fsError(error: NodeJS.ErrnoException, shown: string): ToolError {
  switch (error.code) {
    case 'ENOENT':
      return new ToolError('not_found', `${shown} does not exist.`)
    case 'EACCES':
    case 'EPERM':
      return new ToolError('permission', `Permission denied for ${shown} (${error.code}).`)
    case 'ENOTDIR':
      return new ToolError('filesystem', `A parent of ${shown} is not a directory.`)
    case 'EISDIR':
      return new ToolError('validation', `${shown} is a directory, not a file.`)
    case 'ENOSPC':
      return new ToolError('filesystem', `No space left on the device while writing ${shown}.`)
    case 'EROFS':
      return new ToolError('filesystem', `${shown} is on a read-only file system.`)
    default:
      return new ToolError('filesystem', `${shown}: ${error.message}`)
  }
}
