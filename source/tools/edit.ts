import { readFile, realpath, stat } from 'node:fs/promises'
import { z } from 'zod'
import { atomicWriteFile } from './atomic-write.js'
import { summarizeDiff } from './diff-summary.js'
import { findClosestRegion } from './edit-closest.js'
import { type MatcherName, planEdit, type Replacement } from './edit-matchers.js'
import { cutLine, numberLines } from './numbered-lines.js'
import { displayPath, resolveToolPath, writeTarget } from './paths.js'
import { DEFAULT_FORMAT, decodeText, encodeText, type TextFormat } from './text-file.js'
import { defineTool, type ToolContext, ToolError, type ToolSuccess } from './types.js'
import { checkWriteTarget, fsError, type WriteTarget } from './write-guard.js'

const DESCRIPTION = `Performs an exact string replacement in a file.
- Read the file first in this session; the edit is refused if the file changed on disk since.
- old_string must match the file exactly (indentation included) and be unique in it; add surrounding lines to make it unique, or set replace_all to change every occurrence (e.g. renaming a variable).
- Do not include Read's line-number prefix (number + tab) in old_string or new_string.
- When old_string differs only slightly (trailing whitespace, indentation, escaped newlines), a tolerant matcher may apply it if exactly one region fits; the result says so.
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

const SNIPPET_CONTEXT = 4
const SNIPPET_MAX_LINES = 60

interface ComputedEdit {
  shown: string
  before: string
  after: string
  format: TextFormat
  matcher: MatcherName
  replacements: Replacement[]
}

const MATCHER_NOTES: Record<MatcherName, string> = {
  exact: '',
  'trailing-whitespace': 'old_string did not match exactly; it matched after ignoring trailing whitespace.',
  'indentation-relative':
    'old_string did not match exactly; it matched with different indentation, and new_string was re-indented to fit.',
  'line-trimmed': 'old_string did not match exactly; it matched after trimming whitespace on every line.',
  'escaped-newline':
    'old_string did not match exactly; it matched after unescaping \\n, \\t and quotes in both strings.',
}

/** Plans the edit on the file's current content; throws ToolError when it cannot be applied. */
async function computeEdit(args: EditArgs, ctx: ToolContext, targetPath: string): Promise<ComputedEdit> {
  const shown = displayPath(resolveToolPath(args.file_path, ctx.cwd()), ctx.workspace)
  const buf = await readFile(targetPath).catch((error: NodeJS.ErrnoException) => {
    throw fsError(error, shown)
  })
  const decoded = decodeText(buf)
  if (decoded.kind === 'binary') {
    throw new ToolError(
      'validation',
      `${shown} is a binary file (${decoded.type}); Edit only changes text files.`,
    )
  }
  const { text, format } = decoded
  if (args.old_string === '') {
    if (text !== '') {
      throw new ToolError('validation', `old_string is empty, but ${shown} is not empty.`, {
        hint: 'Put the text to replace in old_string, or use Write to replace the whole file.',
      })
    }
    const replacements = [{ start: 0, end: 0, text: args.new_string }]
    return { shown, before: '', after: args.new_string, format, matcher: 'exact', replacements }
  }
  const crlf = format.eol === '\r\n'
  const oldString = crlf ? args.old_string.replace(/\r\n/g, '\n') : args.old_string
  const newString = crlf ? args.new_string.replace(/\r\n/g, '\n') : args.new_string
  const plan = planEdit(text, oldString, newString, args.replace_all ?? false)
  if (!plan.ok && plan.reason === 'ambiguous') {
    if (plan.matcher === 'exact') {
      throw new ToolError(
        'validation',
        `old_string occurs ${plan.count} times in ${shown}, so it is not unique.`,
        {
          hint: 'Add surrounding lines to old_string so it matches one place, or set replace_all: true to change all of them.',
        },
      )
    }
    throw new ToolError(
      'validation',
      `old_string does not match ${shown} exactly, and the ${plan.matcher} matcher found ${plan.count} candidate regions, so nothing was changed.`,
      {
        hint: 'Read the file again and copy old_string exactly, with enough surrounding lines to be unique.',
      },
    )
  }
  if (!plan.ok) throw notFound(shown, text, oldString)
  if (plan.content === text) {
    throw new ToolError('validation', `The edit would not change ${shown}.`, {
      hint: 'Check that new_string contains the change you intend.',
    })
  }
  return {
    shown,
    before: text,
    after: plan.content,
    format,
    matcher: plan.matcher,
    replacements: plan.replacements,
  }
}

function notFound(shown: string, text: string, oldString: string): ToolError {
  const closest = findClosestRegion(text, oldString)
  let message = `old_string was not found in ${shown}.`
  if (closest && closest.similarity >= 0.3) {
    const shownLines = closest.lines.slice(0, SNIPPET_MAX_LINES).map((l) => cutLine(l, l.length, 500))
    const end = closest.startLine + closest.lines.length - 1
    message += ` The most similar region (lines ${closest.startLine}–${end}, ${Math.round(closest.similarity * 100)}% similar) is:\n${numberLines(shownLines, closest.startLine)}`
  } else {
    message += ' No similar region was found.'
  }
  return new ToolError('not_found', message, {
    hint: 'Read the file again and copy old_string exactly, including indentation and whitespace (without the line-number prefix).',
  })
}

/** Numbered lines of `after` around the first replacement, ±SNIPPET_CONTEXT lines. */
function snippet(after: string, replacements: readonly Replacement[]): string {
  const lines = after.split('\n')
  const first = replacements[0]
  const startOffset = first?.start ?? 0
  const firstLine = after.slice(0, startOffset).split('\n').length - 1
  const changedLines = first ? first.text.replace(/\n$/, '').split('\n').length : lines.length
  const from = Math.max(0, firstLine - SNIPPET_CONTEXT)
  const to = Math.min(lines.length, firstLine + changedLines + SNIPPET_CONTEXT)
  const picked = lines.slice(from, Math.min(to, from + SNIPPET_MAX_LINES)).map((l) => cutLine(l))
  const more = to - from > SNIPPET_MAX_LINES ? `\n… ${to - from - SNIPPET_MAX_LINES} more changed lines` : ''
  return numberLines(picked, from + 1) + more
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
