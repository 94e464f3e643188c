import type { Stats } from 'node:fs'
import { lstat, readFile, readlink } from 'node:fs/promises'
import { z } from 'zod'
import { isAbsolute, relative, sep } from 'node:path'
import { realPathOf, realPathOfTarget } from '../permissions/real-path.js'
import type { FileChange } from '../store/domain.js'
import { summarizeDiff } from './diff-summary.js'
import { displayPath, resolveToolPath } from './paths.js'
import { decodeText } from './text-file.js'
import { defineTool, type ToolContext, ToolError, type ToolSuccess } from './types.js'
import { checkReadFirst, fsError, judgedRealPath, movedError } from './write-guard.js'

const DESCRIPTION = `Deletes one file.
- Files only: a directory is refused. A symbolic link is removed itself; what it points to is left alone.
- Read the file first in this session; the call is refused if the file changed on disk since.
- The deletion is covered by checkpoints: /rewind brings the file back.`

const schema = z.strictObject({
  file_path: z
    .string()
    .min(1)
    .describe('Path of the file (a relative one resolves against the current directory)'),
})

export type DeleteFileArgs = z.infer<typeof schema>

/** What is at the path, judged by its own name (a link is not followed). */
type Found = { kind: 'file'; real: string; stats: Stats } | { kind: 'link'; real: string; to: string }

async function find(abs: string, ctx: ToolContext): Promise<Found> {
  const shown = displayPath(abs, ctx.workspace)
  const real = await realPathOfTarget({ path: abs, noFollow: true })
  // Checkpoints cover the workspace only: a file deleted elsewhere could not come back with /rewind.
  const rel = relative(await realPathOf(ctx.workspace), real)
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new ToolError(
      'permission',
      `${shown} is outside the workspace; DeleteFile deletes files inside it only. Nothing was deleted.`,
    )
  }
  const stats = await lstat(real).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR')
      throw new ToolError('not_found', `File does not exist: ${shown}`, { hint: 'Check the path with Glob.' })
    throw fsError(error, shown)
  })
  if (stats.isSymbolicLink()) return { kind: 'link', real, to: await readlink(real).catch(() => '?') }
  if (stats.isDirectory()) {
    throw new ToolError(
      'validation',
      `${shown} is a directory; DeleteFile deletes files only. Nothing was deleted.`,
      {
        hint: 'Delete the files in it one by one, or ask the user to remove the directory.',
      },
    )
  }
  if (!stats.isFile())
    throw new ToolError('validation', `${shown} is not a regular file. Nothing was deleted.`)
  return { kind: 'file', real, stats }
}

/** The deletion as a diff: every line of a text file removed; a link or a binary file says what it was. */
async function deletion(found: Found, shown: string): Promise<FileChange> {
  if (found.kind === 'link') {
    return { path: shown, change: 'deleted', diff: `-symbolic link to ${found.to}`, added: 0, removed: 0 }
  }
  const decoded = decodeText(await readFile(found.real))
  if (decoded.kind === 'binary') {
    return {
      path: shown,
      change: 'deleted',
      diff: `-binary file (${decoded.type}, ${found.stats.size} bytes)`,
      added: 0,
      removed: 0,
    }
  }
  const { diff, added, removed } = summarizeDiff(shown, decoded.text, '')
  return { path: shown, change: 'deleted', diff, added, removed }
}

/** The DeleteFile tool: removes one file (or link) in place, an edit of the workspace checkpoints cover. */
export const deleteFileTool = defineTool<DeleteFileArgs>({
  name: 'DeleteFile',
  description: DESCRIPTION,
  schema,
  risk: 'edit',
  isReadOnly: () => false,
  // The name itself is judged (a link in the workspace to a file outside is deleted, not its target).
  permissionTarget: (args, ctx) => ({
    kind: 'path',
    path: resolveToolPath(args.file_path, ctx.cwd()),
    access: 'write',
    noFollow: true,
  }),
  async preview(args, ctx) {
    const abs = resolveToolPath(args.file_path, ctx.cwd())
    const shown = displayPath(abs, ctx.workspace)
    const file = await find(abs, ctx)
      .then((found) => deletion(found, shown))
      .catch(
        (error: Error): FileChange => ({
          path: shown,
          change: 'deleted',
          diff: `(${error.message})`,
          added: 0,
          removed: 0,
        }),
      )
    return { kind: 'diffs', files: [file] }
  },
  summarize: (args) => `DeleteFile ${args.file_path}`,
  async execute(args, ctx): Promise<ToolSuccess> {
    const abs = resolveToolPath(args.file_path, ctx.cwd())
    const shown = displayPath(abs, ctx.workspace)
    const found = await find(abs, ctx)
    const judged = judgedRealPath(ctx.permission, abs)
    if (judged !== undefined && judged !== found.real) throw movedError(shown, judged, found.real)
    // A link holds no content of its own to lose; a file must be the one the model last saw.
    if (found.kind === 'file') checkReadFirst(found.real, found.stats, shown, ctx)
    const change = await deletion(found, shown)
    // Loaded on first use, off the start-up path.
    const { CommitError, commitFiles } = await import('./file-transaction.js')
    await commitFiles([{ kind: 'delete', path: found.real }], {
      // Right before the removal: the name still leads where it was judged (no folder swapped for a link).
      async before() {
        const now = await realPathOfTarget({ path: abs, noFollow: true })
        if (now !== found.real) throw movedError(shown, found.real, now)
      },
    }).catch((error: unknown) => {
      if (!(error instanceof CommitError)) throw error
      if (error.cause instanceof ToolError) throw error.cause
      throw fsError(error.cause as NodeJS.ErrnoException, shown)
    })
    const what =
      found.kind === 'link' ? `the symbolic link ${shown} (to ${found.to}, which is left alone)` : shown
    return {
      forModel: `Deleted ${what}.${found.kind === 'file' ? ` It had ${change.removed} lines.` : ''}`,
      display: { kind: 'diffs', files: [change] },
    }
  },
})
