import { realpath, stat } from 'node:fs/promises'
import { z } from 'zod'
import { atomicWriteFile } from './atomic-write.js'
import { summarizeDiff } from './diff-summary.js'
import { readTextForEdit } from './edit.js'
import { MATCHER_NOTES, type PlannedStep, planStep, snippet } from './edit-plan.js'
import { displayPath, resolveToolPath, writeTarget } from './paths.js'
import { DEFAULT_FORMAT, encodeText, type TextFormat } from './text-file.js'
import { defineTool, type ToolContext, ToolError, type ToolSuccess } from './types.js'
import { checkWriteTarget, fsError } from './write-guard.js'

const DESCRIPTION = `Makes several exact string replacements in one file, in one call.
- The edits apply in order, each to the result of the ones before; if one fails, none is applied.
- Each works like Edit: old_string exact and unique (or replace_all); a tolerant matcher may place a near miss.
- Read the file first in this session; refused if the file changed on disk since.
- An empty old_string in the first edit creates a missing file.`

const edit = z.strictObject({
  old_string: z
    .string()
    .describe('The text to replace, copied exactly from the file as it is after the earlier edits'),
  new_string: z.string().describe('The text to replace it with (must differ from old_string)'),
  replace_all: z.boolean().optional().describe('Replace every occurrence of old_string (default false)'),
})

const schema = z.strictObject({
  file_path: z
    .string()
    .min(1)
    .describe('Path of the file (a relative one resolves against the current directory)'),
  edits: z.array(edit).min(1).describe('Replacements, applied in order'),
})

export type MultiEditArgs = z.infer<typeof schema>

interface Planned {
  shown: string
  before: string
  after: string
  format: TextFormat
  created: boolean
  steps: PlannedStep[]
}

/**
 * Applies every edit in memory, in order, on the running text. The first one that cannot be applied
 * throws, naming it, and nothing is written.
 */
function planAll(args: MultiEditArgs, before: string, format: TextFormat, shown: string): PlannedStep[] {
  const steps: PlannedStep[] = []
  let text = before
  args.edits.forEach((step, i) => {
    const which = `edits[${i}]${args.edits.length > 1 ? ` (edit ${i + 1} of ${args.edits.length})` : ''}`
    try {
      if (step.old_string === step.new_string)
        throw new ToolError(
          'validation',
          'old_string and new_string are identical, so there is nothing to change.',
        )
      const planned = planStep(text, step, shown, format.eol === '\r\n')
      steps.push(planned)
      text = planned.after
    } catch (error) {
      if (!(error instanceof ToolError)) throw error
      const earlier = i === 0 ? '' : ' (its text is the file as the edits before it left it)'
      throw new ToolError(error.category, `${which}: ${error.message}${earlier} No edit was applied.`, {
        ...(error.hint ? { hint: error.hint } : {}),
      })
    }
  })
  return steps
}

/** What the file holds and will hold; a missing file is created only by an empty first old_string. */
async function plan(args: MultiEditArgs, ctx: ToolContext, path: string): Promise<Planned> {
  const shown = displayPath(resolveToolPath(args.file_path, ctx.cwd()), ctx.workspace)
  const exists = await stat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false
      throw fsError(error, shown)
    },
  )
  if (!exists && args.edits[0]?.old_string !== '') {
    throw new ToolError('not_found', `File does not exist: ${shown}`, {
      hint: 'Check the path with Glob. To create a new file, give an empty old_string in the first edit (or use Write).',
    })
  }
  const { text, format } = exists
    ? await readTextForEdit(path, shown, 'MultiEdit')
    : { text: '', format: DEFAULT_FORMAT }
  const steps = planAll(args, text, format, shown)
  const after = steps.at(-1)?.after ?? text
  return { shown, before: text, after, format, created: !exists, steps }
}

/** The MultiEdit tool (Claude Code's): several replacements in one file, all of them or none. */
export const multiEditTool = defineTool<MultiEditArgs>({
  name: 'MultiEdit',
  description: DESCRIPTION,
  schema,
  risk: 'edit',
  isReadOnly: () => false,
  permissionTarget: (args, ctx) => writeTarget(args.file_path, ctx),
  async preview(args, ctx) {
    const abs = resolveToolPath(args.file_path, ctx.cwd())
    const shown = displayPath(abs, ctx.workspace)
    const planned = await plan(args, ctx, abs).catch(() => undefined)
    // Edits that will fail still show what the model asked for, one after the other.
    const diff = planned
      ? summarizeDiff(shown, planned.before, planned.after).diff
      : summarizeDiff(
          shown,
          args.edits.map((e) => e.old_string).join('\n'),
          args.edits.map((e) => e.new_string).join('\n'),
        ).diff
    return { kind: 'diff', path: shown, diff }
  },
  summarize: (args) =>
    `MultiEdit ${args.file_path}${args.edits.length === 1 ? '' : ` (${args.edits.length} edits)`}`,
  async execute(args, ctx): Promise<ToolSuccess> {
    const abs = resolveToolPath(args.file_path, ctx.cwd())
    const target = await checkWriteTarget(abs, ctx)
    const planned = await plan(args, ctx, target.path)
    const { shown } = planned
    const encoded = encodeText(planned.after, planned.format)
    const st = await atomicWriteFile(target.path, encoded.data, { expectedRealPath: target.path }).catch(
      (error: NodeJS.ErrnoException) => {
        throw fsError(error, shown)
      },
    )
    ctx.files.recordWrite(await realpath(target.path), st)

    const { diff, added, removed } = summarizeDiff(shown, planned.before, planned.after)
    const count = planned.steps.reduce((n, s) => n + s.replacements.length, 0)
    const edits = args.edits.length === 1 ? '1 edit' : `${args.edits.length} edits`
    const parts = [
      `${planned.created ? 'Created' : 'Edited'} ${shown}: ${edits}, ${count === 1 ? '1 replacement' : `${count} replacements`} (+${added} −${removed} lines).`,
    ]
    planned.steps.forEach((step, i) => {
      if (step.matcher !== 'exact') parts.push(`edits[${i}]: ${MATCHER_NOTES[step.matcher]}`)
    })
    if (encoded.note) parts.push(encoded.note)
    const last = planned.steps.at(-1)
    const shownSnippet = last
      ? `\nSnippet of the edited file (around the last edit):\n${snippet(planned.after, last.replacements)}`
      : ''
    return {
      forModel: `${parts.join(' ')}${shownSnippet}`,
      display: { kind: 'diff', path: shown, diff, added, removed, created: planned.created },
    }
  },
})
