import { readFile, realpath } from 'node:fs/promises'
import { z } from 'zod'
import { atomicWriteFile } from './atomic-write.js'
import { summarizeDiff } from './diff-summary.js'
import { displayPath, resolveToolPath, writeTarget } from './paths.js'
import { DEFAULT_FORMAT, decodeText, encodeText, type TextFormat } from './text-file.js'
import { defineTool, type ToolContext, type ToolSuccess } from './types.js'
import { checkWriteTarget, fsError } from './write-guard.js'

const DESCRIPTION = `Writes a file to the local filesystem, replacing it if it exists.
- Creates missing parent directories. The write is atomic.
- An existing file must have been read with Read in this session and be unchanged since; otherwise the write is refused.
- Prefer Edit for changing part of an existing file; use Write for new files or complete rewrites.
- The file keeps its line-ending style (CRLF stays CRLF) and its permissions.`

const schema = z.strictObject({
  file_path: z
    .string()
    .min(1)
    .describe('Absolute path of the file to write (a relative path resolves against the current directory)'),
  content: z.string().describe('The complete content to write to the file'),
})

export type WriteArgs = z.infer<typeof schema>

interface Planned {
  shown: string
  before: string
  after: string
  format: TextFormat
  created: boolean
  replacedBinary: string | undefined
}

/** What the file holds now and what it will hold, both as LF text for diffing. */
async function plan(
  absPath: string,
  content: string,
  ctx: ToolContext,
  targetPath = absPath,
): Promise<Planned> {
  const shown = displayPath(absPath, ctx.workspace)
  const buf = await readFile(targetPath).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw fsError(error, shown)
  })
  if (!buf)
    return {
      shown,
      before: '',
      after: content,
      format: DEFAULT_FORMAT,
      created: true,
      replacedBinary: undefined,
    }
  const decoded = decodeText(buf)
  if (decoded.kind === 'binary') {
    return {
      shown,
      before: '',
      after: content,
      format: DEFAULT_FORMAT,
      created: false,
      replacedBinary: decoded.type,
    }
  }
  const after = decoded.format.eol === '\r\n' ? content.replace(/\r\n/g, '\n') : content
  return {
    shown,
    before: decoded.text,
    after,
    format: decoded.format,
    created: false,
    replacedBinary: undefined,
  }
}

/** The Write tool: whole-file writes with read-first and stale-file protection. */
export const writeTool = defineTool<WriteArgs>({
  name: 'Write',
  description: DESCRIPTION,
  schema,
  risk: 'edit',
  isReadOnly: () => false,
  permissionTarget: (args, ctx) => writeTarget(args.file_path, ctx),
  async preview(args, ctx) {
    const abs = resolveToolPath(args.file_path, ctx.cwd())
    const planned = await plan(abs, args.content, ctx).catch(() => undefined)
    const shown = displayPath(abs, ctx.workspace)
    const diff = summarizeDiff(shown, planned?.before ?? '', planned?.after ?? args.content).diff
    return { kind: 'diff', path: shown, diff }
  },
  summarize: (args) => `Write ${args.file_path}`,
  async precheck(args, ctx) {
    await checkWriteTarget(resolveToolPath(args.file_path, ctx.cwd()), ctx)
  },
  async execute(args, ctx): Promise<ToolSuccess> {
    const abs = resolveToolPath(args.file_path, ctx.cwd())
    const target = await checkWriteTarget(abs, ctx)
    const planned = await plan(abs, args.content, ctx, target.path)
    const { shown } = planned
    const encoded = encodeText(planned.after, planned.format)
    const stat = await atomicWriteFile(target.path, encoded.data, { expectedRealPath: target.path }).catch(
      (error: NodeJS.ErrnoException) => {
        throw fsError(error, shown)
      },
    )
    ctx.files.recordWrite(await realpath(target.path), stat)

    const { diff, added, removed } = summarizeDiff(shown, planned.before, planned.after)
    const notes: string[] = []
    if (planned.replacedBinary) notes.push(`It replaced a binary file (${planned.replacedBinary}).`)
    if (planned.format.eol === '\r\n') notes.push('CRLF line endings were kept.')
    if (encoded.note) notes.push(encoded.note)
    const headline = planned.created
      ? `Created ${shown} (${added} lines).`
      : added === 0 && removed === 0
        ? `Wrote ${shown}; the content is unchanged.`
        : `Updated ${shown} (+${added} −${removed} lines).`
    return {
      forModel: [headline, ...notes].join(' '),
      display: { kind: 'diff', path: shown, diff, added, removed, created: planned.created },
    }
  },
})
