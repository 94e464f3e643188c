import type { Stats } from 'node:fs'
import { stat } from 'node:fs/promises'
import { realPathOf } from '../permissions/real-path.js'
import type { PermissionTarget } from '../permissions/target.js'
import { PathMovedError } from './atomic-write.js'
import { displayPath } from './paths.js'
import { type ToolContext, ToolError } from './types.js'

export interface WriteTarget {
  /** Where to write: the real path (of the nearest existing parent for a new file), as judged. */
  path: string
  /** The existing file's stat, or undefined for a new file. */
  existing: Stats | undefined
}

/**
 * Enforces the read-before-write rule for Write and Edit: an existing file must have been read (or
 * written) in this session and be unchanged on disk since (same mtime and size). Throws a ToolError
 * telling the model what to do otherwise; a directory at the path is also refused. The path must still
 * resolve where the permission check judged it would (`ctx.permission`): a symlink swapped in since is
 * refused before anything is read or written.
 */
export async function checkWriteTarget(absPath: string, ctx: ToolContext): Promise<WriteTarget> {
  const shown = displayPath(absPath, ctx.workspace)
  const path = await realPathOf(absPath)
  const judged = judgedRealPath(ctx.permission, absPath)
  if (judged !== undefined && judged !== path) throw movedError(shown, judged, path)
  const existing = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw fsError(error, shown)
  })
  if (!existing) return { path, existing: undefined }
  if (existing.isDirectory()) {
    throw new ToolError('validation', `${shown} is a directory, not a file.`, {
      hint: 'Give the path of a file inside it.',
    })
  }
  checkReadFirst(path, existing, shown, ctx)
  return { path, existing }
}

/**
 * The read-before-change rule on its own: the existing file at real path `path` must have been read (or
 * written) in this session and be unchanged since (same mtime and size).
 */
export function checkReadFirst(
  path: string,
  existing: Stats,
  shown: string,
  ctx: Pick<ToolContext, 'files'>,
): void {
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
}

/**
 * Where the permission check judged that a change to `absPath` lands (its real path), when it judged
 * that path: the one path of an edit, or the entry for it among the files of a patch.
 */
export function judgedRealPath(
  permission: PermissionTarget | undefined,
  absPath: string,
): string | undefined {
  if (permission?.kind === 'path') return permission.real
  if (permission?.kind === 'paths') return permission.paths.find((p) => p.path === absPath)?.real
  return undefined
}

export function movedError(shown: string, judged: string, now: string): ToolError {
  return new ToolError(
    'permission',
    `${shown} now resolves to ${now}, not to ${judged} where the permission check judged the write would go (a symlink changed in between); nothing was written.`,
    { hint: 'Look at the path (ls -l) before trying again; the new target needs its own permission.' },
  )
}

/** Maps an fs error to a ToolError with a category the model can act on. */
export function fsError(error: NodeJS.ErrnoException, shown: string): ToolError {
  if (error instanceof PathMovedError) return movedError(shown, error.expected, error.actual)
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
