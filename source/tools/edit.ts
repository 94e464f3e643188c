import { readFile, realpath, stat } from 'node:fs/promises'
import { z } from 'zod'
import { atomicWriteFile } from './atomic-write.js'
import { summarizeDiff } from './diff-summary.js'
import { MATCHER_NOTES, type PlannedStep, planStep, snippet } from './edit-plan.js'
import { displayPath, resolveToolPath, writeTarget } from './paths.js'
import { DEFAULT_FORMAT, decodeText, encodeText, type TextFormat } from './text-file.js'
import { defineTool, type ToolContext, ToolError, type ToolSuccess } from './types.js'
import { checkWriteTarget, fsError, type WriteTarget } from './write-guard.js'

const DESCRIPTION = `Performs an exact string replacement in a file.
- Read the file first in this session; the edit is refused if the file changed on disk since.
- old_string must match the file exactly (indentation included) and be unique in it; add surrounding lines to make it unique, or set replace_all to change every occurrence (e.g. renaming a variable).
- Do not include Read's line-number prefix (number + tab) in old_string or new_string.
- When old_string differs only slightly (trailing whitespace, indentation, typographic dashes and quotes, escaped newlines), a tolerant matcher may apply it if exactly one region fits; the result says so.
- An empty old_string on a file that does not exist creates it with new_string.`

const schema = z.strictObject({
  file_path: z
    .string()
    .min(1)
    .describe('Absolute path of the file to modify (a relative path resolves against the current directory)'),
  old_string: z.string().describe('The text to replace, copied exactly from the file'),
  new_string: z.string().describe('The text to replace it with (must differ from old_string)'),
  replace_all: z.boolean().optional().describe('Replace every occurrence of old_string (default false)'),
})

export type EditArgs = z.infer<typeof schema>

interface ComputedEdit extends PlannedStep {
  shown: string
  before: string
  format: TextFormat
}

/** Plans the edit on the file's current content; throws ToolError when it cannot be applied. */
async function computeEdit(args: EditArgs, ctx: ToolContext, targetPath: string): Promise<ComputedEdit> {
  const shown = displayPath(resolveToolPath(args.file_path, ctx.cwd()), ctx.workspace)
  const { text, format } = await readTextForEdit(targetPath, shown, 'Edit')
  return { shown, before: text, format, ...planStep(text, args, shown, format.eol === '\r\n') }
}

/** A file's text for an edit (LF, how it is stored in `format`); a binary file is refused. */
export async function readTextForEdit(
  path: string,
  shown: string,
  tool: string,
): Promise<{ text: string; format: TextFormat }> {
  const buf = await readFile(path).catch((error: NodeJS.ErrnoException) => {
    throw fsError(error, shown)
  })
  const decoded = decodeText(buf)
  if (decoded.kind === 'binary') {
    throw new ToolError(
      'validation',
      `${shown} is a binary file (${decoded.type}); ${tool} only changes text files.`,
    )
  }
  return decoded
}

/** The Edit tool: exact (or unambiguous tolerant) string replacement with read-first protection. */
export const editTool = defineTool<EditArgs>({
  name: 'Edit',
  description: DESCRIPTION,
  schema,
  risk: 'edit',
  isReadOnly: () => false,
  permissionTarget: (args, ctx) => writeTarget(args.file_path, ctx),
  async preview(args, ctx) {
    const abs = resolveToolPath(args.file_path, ctx.cwd())
    const shown = displayPath(abs, ctx.workspace)
    const computed = await computeEdit(args, ctx, abs).catch(() => undefined)
    // A file that does not exist yet or an edit that will fail still shows what the model asked for.
    const diff = computed
      ? summarizeDiff(shown, computed.before, computed.after).diff
      : summarizeDiff(shown, args.old_string, args.new_string).diff
    return { kind: 'diff', path: shown, diff }
  },
  summarize: (args) => `Edit ${args.file_path}`,
  async precheck(args, ctx) {
    await checkEdit(args, ctx)
  },
  async execute(args, ctx): Promise<ToolSuccess> {
    const checked = await checkEdit(args, ctx)
    if (checked.kind === 'create') return create(checked.abs, checked.shown, args.new_string, ctx)
    const { target, edit } = checked
    const shown = edit.shown
    const encoded = encodeText(edit.after, edit.format)
    const st = await atomicWriteFile(target.path, encoded.data, { expectedRealPath: target.path }).catch(
      (error: NodeJS.ErrnoException) => {
        throw fsError(error, shown)
      },
    )
    ctx.files.recordWrite(await realpath(target.path), st)

    const { diff, added, removed } = summarizeDiff(shown, edit.before, edit.after)
    const count = edit.replacements.length
    const parts = [
      `Edited ${shown}: ${count === 1 ? '1 replacement' : `${count} replacements`} (+${added} −${removed} lines).`,
    ]
    if (edit.matcher !== 'exact') parts.push(MATCHER_NOTES[edit.matcher])
    if (encoded.note) parts.push(encoded.note)
    const head = parts.join(' ')
    return {
      forModel: `${head}\nSnippet of the edited file:\n${snippet(edit.after, edit.replacements)}`,
      display: { kind: 'diff', path: shown, diff, added, removed, created: false },
    }
  },
})

type CheckedEdit =
  | { kind: 'create'; abs: string; shown: string }
  | { kind: 'edit'; target: WriteTarget; edit: ComputedEdit }

/**
 * Every check of an edit, without writing: the precheck (before a prompt) and the run (again, since the
 * file may change while the user reads the prompt). Content is only read once read-first holds.
 */
async function checkEdit(args: EditArgs, ctx: ToolContext): Promise<CheckedEdit> {
  if (args.old_string === args.new_string) {
    throw new ToolError(
      'validation',
      'old_string and new_string are identical, so there is nothing to change.',
    )
  }
  const abs = resolveToolPath(args.file_path, ctx.cwd())
  const shown = displayPath(abs, ctx.workspace)
  const exists = await stat(abs).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false
      throw fsError(error, shown)
    },
  )
  if (!exists) {
    if (args.old_string !== '') {
      throw new ToolError('not_found', `File does not exist: ${shown}`, {
        hint: 'Check the path with Glob. To create a new file, use Write (or Edit with an empty old_string).',
      })
    }
    return { kind: 'create', abs, shown }
  }
  const target = await checkWriteTarget(abs, ctx)
  return { kind: 'edit', target, edit: await computeEdit(args, ctx, target.path) }
}

async function create(abs: string, shown: string, content: string, ctx: ToolContext): Promise<ToolSuccess> {
  const target = await checkWriteTarget(abs, ctx)
  const st = await atomicWriteFile(target.path, encodeText(content, DEFAULT_FORMAT).data, {
    expectedRealPath: target.path,
  }).catch((error: NodeJS.ErrnoException) => {
    throw fsError(error, shown)
  })
  ctx.files.recordWrite(await realpath(target.path), st)
  const { diff, added, removed } = summarizeDiff(shown, '', content)
  return {
    forModel: `Created ${shown} (${added} lines).`,
    display: { kind: 'diff', path: shown, diff, added, removed, created: true },
  }
}
