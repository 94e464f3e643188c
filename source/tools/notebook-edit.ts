import { readFile, realpath } from 'node:fs/promises'
import { extname } from 'node:path'
import { z } from 'zod'
import { atomicWriteFile } from './atomic-write.js'
import { summarizeDiff } from './diff-summary.js'
import {
  cellLabel,
  findCell,
  type Notebook,
  type NotebookCell,
  newCellId,
  parseNotebook,
  serializeNotebook,
  sourceText,
  splitSource,
  supportsCellIds,
} from './notebook.js'
import { displayPath, resolveToolPath, writeTarget } from './paths.js'
import { defineTool, type ToolContext, ToolError, type ToolSuccess } from './types.js'
import { checkWriteTarget, fsError } from './write-guard.js'

const DESCRIPTION = `Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb, nbformat 4).
- Read the notebook first in this session; the edit is refused if it changed on disk since.
- Pick the cell with cell_id (preferred; Read shows the ids) or with cell_number (0-based).
- edit_mode "replace" (default) sets the cell's source; a replaced code cell loses its outputs and execution count. cell_type changes the cell's type.
- edit_mode "insert" adds a new cell AFTER the given cell, or at the start when no cell is given; cell_type is required.
- edit_mode "delete" removes the given cell (new_source is ignored; pass "").
- Metadata, other cells and their outputs are kept. Cell numbers shift after an insert or delete.`

const schema = z.strictObject({
  notebook_path: z
    .string()
    .min(1)
    .describe('Absolute path of the .ipynb file (a relative path resolves against the current directory)'),
  cell_id: z
    .string()
    .min(1)
    .optional()
    .describe('Id of the cell to edit; for insert, the new cell goes after it (omit to insert at the start)'),
  cell_number: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('0-based number of the cell to edit, when you do not use cell_id'),
  new_source: z.string().describe('The new source of the cell (ignored for delete)'),
  cell_type: z
    .enum(['code', 'markdown'])
    .optional()
    .describe('Type of the cell: required for insert; for replace, changes the type (default: unchanged)'),
  edit_mode: z
    .enum(['replace', 'insert', 'delete'])
    .optional()
    .describe('replace (default), insert a new cell, or delete the cell'),
})

export type NotebookEditArgs = z.infer<typeof schema>

interface PlannedEdit {
  shown: string
  /** The serialised notebook to write. */
  text: string
  /** Source of the affected cell before/after, for the diff. */
  before: string
  after: string
  /** Where the diff says the change happened. */
  diffPath: string
  message: string
}

/** Applies the edit to the notebook text; throws ToolError when it cannot. Pure apart from random ids. */
function planEdit(raw: string, args: NotebookEditArgs, shown: string): PlannedEdit {
  const { notebook, format } = parseNotebook(raw, shown)
  const mode = args.edit_mode ?? 'replace'
  const index = findCell(notebook, args, shown)
  const result =
    mode === 'insert'
      ? insertCell(notebook, index, args, shown)
      : mode === 'delete'
        ? deleteCell(notebook, requireTarget(index, mode, notebook, shown), shown)
        : replaceCell(notebook, requireTarget(index, mode, notebook, shown), args, shown)
  return { ...result, shown, text: serializeNotebook(notebook, format) }
}

function requireTarget(index: number | undefined, mode: string, notebook: Notebook, shown: string): number {
  if (index !== undefined) return index
  const count = notebook.cells.length
  throw new ToolError('validation', `edit_mode "${mode}" needs cell_id or cell_number to say which cell.`, {
    hint:
      count === 0
        ? `${shown} has no cells; use edit_mode "insert" to add one.`
        : `Read ${shown} to see its ${count} cells (numbers 0–${count - 1}) and their ids.`,
  })
}

type EditResult = Omit<PlannedEdit, 'shown' | 'text'>

function replaceCell(notebook: Notebook, index: number, args: NotebookEditArgs, shown: string): EditResult {
  const cell = notebook.cells[index] as NotebookCell
  const before = sourceText(cell.source)
  const fromType = cell.cell_type
  const toType = args.cell_type ?? fromType
  if (before === args.new_source && toType === fromType) {
    throw new ToolError(
      'validation',
      `Cell ${cellLabel(cell, index)} already has this source; nothing to change.`,
    )
  }
  // Keep the source style of the cell (list of lines, as Jupyter writes, or one string).
  cell.source = Array.isArray(cell.source) ? splitSource(args.new_source) : args.new_source
  const notes: string[] = []
  if (toType !== fromType) {
    cell.cell_type = toType
    notes.push(`its type changed from ${fromType} to ${toType}`)
    if (toType === 'code') {
      cell.execution_count = null
      cell.outputs = []
      // Attachments are only valid on markdown and raw cells.
      delete cell.attachments
    } else {
      delete cell.outputs
      delete cell.execution_count
    }
  } else if (toType === 'code') {
    // The code changed, so the old outputs no longer describe it.
    const had = Array.isArray(cell.outputs) ? cell.outputs.length : 0
    cell.outputs = []
    cell.execution_count = null
    if (had > 0) notes.push(`its ${had} output${had === 1 ? ' was' : 's were'} cleared`)
  }
  return {
    before,
    after: args.new_source,
    diffPath: diffPath(shown, cell, index),
    message: `Replaced the source of cell ${cellLabel(cell, index)} (${toType}) in ${shown}${notes.length ? `; ${notes.join(' and ')}` : ''}.`,
  }
}

function insertCell(
  notebook: Notebook,
  after: number | undefined,
  args: NotebookEditArgs,
  shown: string,
): EditResult {
  if (!args.cell_type) {
    throw new ToolError('validation', 'edit_mode "insert" needs cell_type ("code" or "markdown").')
  }
  const { cells } = notebook
  const position = after === undefined ? 0 : after + 1
  // Follow the notebook's own source style; Jupyter writes lists of lines.
  const asString = cells.length > 0 && cells.every((c) => typeof c.source === 'string')
  const source = asString ? args.new_source : splitSource(args.new_source)
  const withId = supportsCellIds(notebook) ? { id: newCellId(cells) } : {}
  // Keys in the order Jupyter writes them (sorted), so the file diff stays minimal.
  const cell: NotebookCell =
    args.cell_type === 'code'
      ? { cell_type: 'code', execution_count: null, ...withId, metadata: {}, outputs: [], source }
      : { cell_type: 'markdown', ...withId, metadata: {}, source }
  cells.splice(position, 0, cell)
  const where =
    after === undefined ? 'at the start' : `after cell ${cellLabel(cells[after] as NotebookCell, after)}`
  return {
    before: '',
    after: args.new_source,
    diffPath: diffPath(shown, cell, position),
    message: `Inserted a new ${args.cell_type} cell ${where} of ${shown}; it is now cell ${cellLabel(cell, position)}. Later cells are renumbered (+1).`,
  }
}

function deleteCell(notebook: Notebook, index: number, shown: string): EditResult {
  const [cell] = notebook.cells.splice(index, 1) as [NotebookCell]
  return {
    before: sourceText(cell.source),
    after: '',
    diffPath: diffPath(shown, cell, index),
    message: `Deleted cell ${cellLabel(cell, index)} (${cell.cell_type}) from ${shown}; ${notebook.cells.length} cells remain and later cells are renumbered (−1).`,
  }
}

/** Cell sources rarely end with a newline; adding one keeps "no newline at end of file" noise out of diffs. */
const diffText = (source: string): string => (source === '' || source.endsWith('\n') ? source : `${source}\n`)

const diffPath = (shown: string, cell: NotebookCell, index: number): string =>
  `${shown}#${typeof cell.id === 'string' ? cell.id : `cell-${index}`}`

async function readNotebook(path: string, shown: string): Promise<string> {
  return readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw fsError(error, shown)
  })
}

function checkPath(abs: string, shown: string): void {
  if (extname(abs).toLowerCase() !== '.ipynb') {
    throw new ToolError(
      'validation',
      `${shown} is not a .ipynb notebook; NotebookEdit only edits notebooks.`,
      {
        hint: 'Use Edit or Write for other files.',
      },
    )
  }
}

/**
 * Every check of a notebook edit, without writing: the precheck (before a prompt) and the run (again).
 * The notebook is only read once read-first holds.
 */
async function checkNotebookEdit(args: NotebookEditArgs, ctx: ToolContext) {
  const abs = resolveToolPath(args.notebook_path, ctx.cwd())
  const shown = displayPath(abs, ctx.workspace)
  checkPath(abs, shown)
  const target = await checkWriteTarget(abs, ctx)
  if (!target.existing) {
    throw new ToolError('not_found', `Notebook does not exist: ${shown}`, {
      hint: 'Check the path with Glob. To create a notebook, Write it as nbformat 4 JSON.',
    })
  }
  return { shown, target, planned: planEdit(await readNotebook(target.path, shown), args, shown) }
}

/** The NotebookEdit tool: one-cell edits of nbformat 4 notebooks with read-first protection. */
export const notebookEditTool = defineTool<NotebookEditArgs>({
  name: 'NotebookEdit',
  description: DESCRIPTION,
  schema,
  risk: 'edit',
  isReadOnly: () => false,
  permissionTarget: (args, ctx) => writeTarget(args.notebook_path, ctx),
  async preview(args, ctx) {
    const abs = resolveToolPath(args.notebook_path, ctx.cwd())
    const shown = displayPath(abs, ctx.workspace)
    const planned = await readNotebook(abs, shown)
      .then((raw) => planEdit(raw, args, shown))
      .catch(() => undefined)
    // An edit that will fail still shows what the model asked for.
    const diff = planned
      ? summarizeDiff(planned.diffPath, diffText(planned.before), diffText(planned.after)).diff
      : summarizeDiff(shown, '', args.edit_mode === 'delete' ? '' : diffText(args.new_source)).diff
    return { kind: 'diff', path: shown, diff }
  },
  summarize(args) {
    const cell =
      args.cell_id !== undefined
        ? ` cell ${args.cell_id}`
        : args.cell_number !== undefined
          ? ` cell ${args.cell_number}`
          : ''
    return `NotebookEdit ${args.edit_mode ?? 'replace'}${cell} in ${args.notebook_path}`
  },
  async precheck(args, ctx) {
    await checkNotebookEdit(args, ctx)
  },
  async execute(args, ctx: ToolContext): Promise<ToolSuccess> {
    const { shown, target, planned } = await checkNotebookEdit(args, ctx)
    const st = await atomicWriteFile(target.path, planned.text, { expectedRealPath: target.path }).catch(
      (error: NodeJS.ErrnoException) => {
        throw fsError(error, shown)
      },
    )
    ctx.files.recordWrite(await realpath(target.path), st)
    const { diff, added, removed } = summarizeDiff(
      planned.diffPath,
      diffText(planned.before),
      diffText(planned.after),
    )
    return {
      forModel: planned.message,
      display: { kind: 'diff', path: shown, diff, added, removed, created: false },
    }
  },
})
