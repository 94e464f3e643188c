import { randomBytes } from 'node:crypto'
import { ToolError } from './types.js'

/**
 * Pure helpers for Jupyter notebooks (nbformat 4): parsing with the file's formatting remembered,
 * cell lookup, serialisation that changes nothing but the edited cells, and the text rendering Read
 * shows the model. No I/O here.
 */

/** One cell as stored; unknown keys are kept as they are. */
export interface NotebookCell {
  cell_type: string
  id?: string
  source: string | string[]
  metadata?: Record<string, unknown>
  outputs?: unknown[]
  execution_count?: number | null
  [key: string]: unknown
}

export interface Notebook {
  nbformat: number
  nbformat_minor: number
  metadata: Record<string, unknown>
  cells: NotebookCell[]
  [key: string]: unknown
}

/** How the file was written, so a rewrite keeps its look (and its diff stays small). */
export interface NotebookFormat {
  /** JSON.stringify indent: spaces count, a tab, or 0 for single-line JSON. */
  indent: number | string
  trailingNewline: boolean
  crlf: boolean
}

export interface ParsedNotebook {
  notebook: Notebook
  format: NotebookFormat
}

/** Parses notebook JSON; throws a ToolError naming `shown` for invalid JSON or anything but nbformat 4. */
export function parseNotebook(raw: string, shown: string): ParsedNotebook {
  const notebook = checkNotebook(raw, shown)
  return { notebook, format: detectFormat(raw) }
}

function checkNotebook(raw: string, shown: string): Notebook {
  let value: unknown
  try {
    value = JSON.parse(raw.replace(/^\uFEFF/, ''))
  } catch (error) {
    throw new ToolError('validation', `${shown} is not valid JSON (${(error as Error).message}).`, {
      hint: 'Read the notebook to see its content; fix the JSON with Write if it is damaged.',
    })
  }
  if (!isRecord(value) || !Array.isArray(value.cells) || typeof value.nbformat !== 'number') {
    throw new ToolError('validation', `${shown} is not a Jupyter notebook (no "nbformat" and "cells").`)
  }
  if (value.nbformat !== 4) {
    throw new ToolError(
      'validation',
      `${shown} is nbformat ${value.nbformat}; only nbformat 4 notebooks can be edited.`,
      { hint: 'Convert it first, e.g. `jupyter nbconvert --to notebook --nbformat 4` via Bash.' },
    )
  }
  if (!value.cells.every((cell) => isRecord(cell) && typeof cell.cell_type === 'string')) {
    throw new ToolError('validation', `${shown} has a cell without a "cell_type"; the notebook is damaged.`)
  }
  if (!isRecord(value.metadata)) value.metadata = {}
  if (typeof value.nbformat_minor !== 'number') value.nbformat_minor = 0
  return value as Notebook
}

/** Detects the indent (1, 2 or 4 spaces as Jupyter and editors write, or tabs), final newline and CRLF. */
export function detectFormat(raw: string): NotebookFormat {
  const match = /\n([ \t]+)\S/.exec(raw)
  let indent: number | string = 0
  if (match) {
    const ws = match[1] ?? ''
    indent = ws.startsWith('\t') ? '\t' : Math.min(ws.length, 10)
  }
  return { indent, trailingNewline: /\n$/.test(raw), crlf: raw.includes('\r\n') }
}

/** Serialises with the original formatting. */
export function serializeNotebook(notebook: Notebook, format: NotebookFormat): string {
  let text = JSON.stringify(notebook, null, format.indent)
  if (format.trailingNewline) text += '\n'
  return format.crlf ? text.replace(/\n/g, '\r\n') : text
}

/** A cell's source as one string (nbformat allows a string or a list of lines). */
export function sourceText(source: unknown): string {
  if (Array.isArray(source)) return source.map((part) => (typeof part === 'string' ? part : '')).join('')
  return typeof source === 'string' ? source : ''
}

/** Splits text into nbformat source lines: every line keeps its "\n" except the last. */
export function splitSource(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/)
}

/** Whether the notebook format supports cell ids (nbformat ≥ 4.5). */
export function supportsCellIds(notebook: Notebook): boolean {
  return notebook.nbformat > 4 || (notebook.nbformat === 4 && notebook.nbformat_minor >= 5)
}

/** A random 8-hex-digit id not used by any cell yet. */
export function newCellId(cells: readonly NotebookCell[]): string {
  const used = new Set(cells.map((cell) => cell.id))
  for (;;) {
    const id = randomBytes(4).toString('hex')
    if (!used.has(id)) return id
  }
}

/** How a cell is named in messages: `3 (id "1a2b3c4d")` or just `3`. */
export function cellLabel(cell: NotebookCell, index: number): string {
  return typeof cell.id === 'string' ? `${index} (id "${cell.id}")` : String(index)
}

/**
 * Finds a cell by id (preferred) or 0-based number. Returns undefined when neither is given. Throws a
 * ToolError listing the valid ids/numbers when the target does not exist or the two disagree.
 */
export function findCell(
  notebook: Notebook,
  target: { cell_id?: string | undefined; cell_number?: number | undefined },
  shown: string,
): number | undefined {
  const { cells } = notebook
  let byId: number | undefined
  if (target.cell_id !== undefined) {
    byId = cells.findIndex((cell) => cell.id === target.cell_id)
    if (byId < 0) {
      const ids = cells.map((cell) => cell.id).filter((id): id is string => typeof id === 'string')
      const valid =
        ids.length === 0
          ? `Its cells have no ids; use cell_number (0–${cells.length - 1}) instead.`
          : `Valid ids: ${ids.map((id, i) => `"${id}" (cell ${i})`).join(', ')}.`
      throw new ToolError('not_found', `${shown} has no cell with id "${target.cell_id}". ${valid}`, {
        hint: 'Read the notebook to see the cells with their ids and numbers.',
      })
    }
  }
  if (target.cell_number !== undefined) {
    const n = target.cell_number
    if (!Number.isInteger(n) || n < 0 || n >= cells.length) {
      const valid =
        cells.length === 0 ? 'The notebook has no cells.' : `Valid numbers: 0–${cells.length - 1}.`
      throw new ToolError('not_found', `${shown} has no cell number ${n} (${cells.length} cells). ${valid}`, {
        hint: 'Cell numbers start at 0; Read the notebook to see them.',
      })
    }
    if (byId !== undefined && byId !== n) {
      throw new ToolError(
        'validation',
        `cell_id "${target.cell_id}" is cell ${byId}, but cell_number is ${n}; give only one of them.`,
      )
    }
    return n
  }
  return byId
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

// ---------------------------------------------------------------------------------------------------
// Rendering for Read

export interface RenderNotebookOptions {
  /** First cell to show (0-based cell number, as NotebookEdit's cell_number). */
  offset?: number
  /** Number of cells to show from `offset`. */
  limit?: number
}

/** Caps that keep one noisy cell (a long traceback, a huge print loop) from filling the context. */
const MAX_OUTPUT_CHARS = 4_000
const MAX_SOURCE_CHARS = 50_000
const MAX_TRACEBACK_LINES = 40

/**
 * Renders a notebook as text for the model: a header, then every cell with its number, id, type and
 * source, followed by its outputs (stream text, text/plain results, errors with ename/evalue and a
 * bounded traceback, images and other rich data as notes with their size). Outputs and very long
 * sources are cut with a marker. Never throws: JSON that is not an nbformat 4 notebook comes back
 * with a note followed by the raw text, so the model can still see and repair it.
 */
export function renderNotebook(json: string, opts: RenderNotebookOptions = {}): string {
  let notebook: Notebook
  try {
    notebook = checkNotebook(json, 'This file')
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return `[agent-tui] ${reason} It cannot be shown as cells; the raw text follows.\n${json}`
  }
  const { cells } = notebook
  const from = Math.min(Math.max(0, Math.floor(opts.offset ?? 0)), cells.length)
  const to = opts.limit === undefined ? cells.length : Math.min(cells.length, from + Math.max(0, opts.limit))
  const parts = [header(notebook, from, to)]
  for (let i = from; i < to; i++) {
    const cell = cells[i]
    if (cell) parts.push(renderCell(cell, i))
  }
  return parts.join('\n\n')
}

function header(notebook: Notebook, from: number, to: number): string {
  const meta = notebook.metadata
  const kernel = isRecord(meta.kernelspec) ? meta.kernelspec.display_name : undefined
  const language = isRecord(meta.language_info) ? meta.language_info.name : undefined
  const about = [
    typeof kernel === 'string' ? `kernel ${kernel}` : '',
    typeof language === 'string' ? language : '',
  ]
    .filter(Boolean)
    .join(', ')
  const total = notebook.cells.length
  const range = from === 0 && to === total ? '' : `; showing cells ${from}–${to - 1}`
  return (
    `Jupyter notebook (nbformat ${notebook.nbformat}.${notebook.nbformat_minor}${about ? `, ${about}` : ''}), ` +
    `${total} cell${total === 1 ? '' : 's'}${range}. Cells are numbered from 0 (NotebookEdit's cell_number); ` +
    'use the id as cell_id when there is one.'
  )
}

function renderCell(cell: NotebookCell, index: number): string {
  const attrs = [`number="${index}"`]
  if (typeof cell.id === 'string') attrs.push(`id="${cell.id}"`)
  attrs.push(`type="${cell.cell_type}"`)
  if (cell.cell_type === 'code') attrs.push(`execution_count="${cell.execution_count ?? ''}"`)
  let source = sourceText(cell.source)
  if (source.length > MAX_SOURCE_CHARS) {
    source = `${source.slice(0, MAX_SOURCE_CHARS)}\n[… ${source.length - MAX_SOURCE_CHARS} more characters of this cell not shown …]`
  }
  const lines = [`<cell ${attrs.join(' ')}>`, source, '</cell>']
  const attachments = isRecord(cell.attachments) ? Object.keys(cell.attachments) : []
  if (attachments.length > 0) lines.push(`[attachments: ${attachments.join(', ')}]`)
  const outputs = Array.isArray(cell.outputs) ? cell.outputs : []
  if (outputs.length > 0) {
    let text = outputs.map(renderOutput).join('\n')
    if (text.length > MAX_OUTPUT_CHARS) {
      const half = MAX_OUTPUT_CHARS / 2
      text = `${text.slice(0, half)}\n[… ${text.length - MAX_OUTPUT_CHARS} characters of output not shown …]\n${text.slice(-half)}`
    }
    lines.push(`<outputs of cell ${index}>`, text, '</outputs>')
  }
  return lines.join('\n')
}

function renderOutput(output: unknown): string {
  if (!isRecord(output)) return '[unreadable output]'
  switch (output.output_type) {
    case 'stream': {
      const name = typeof output.name === 'string' ? output.name : 'stream'
      return `[${name}]\n${collapseCarriageReturns(sourceText(output.text))}`.replace(/\n$/, '')
    }
    case 'execute_result':
    case 'display_data':
      return renderMimeBundle(output.data, output.output_type)
    case 'error': {
      const ename = typeof output.ename === 'string' ? output.ename : 'Error'
      const evalue = typeof output.evalue === 'string' ? output.evalue : ''
      const traceback = Array.isArray(output.traceback)
        ? output.traceback
            .filter((line): line is string => typeof line === 'string')
            .join('\n')
            .replace(ANSI, '')
            .split('\n')
        : []
      const kept = traceback.slice(-MAX_TRACEBACK_LINES)
      const cut = traceback.length - kept.length
      const body = kept.length
        ? `\n${cut > 0 ? `[… ${cut} traceback lines not shown …]\n` : ''}${kept.join('\n')}`
        : ''
      return `[error] ${ename}: ${evalue}${body}`
    }
    default:
      return `[${String(output.output_type ?? 'unknown')} output]`
  }
}

const TEXT_MIMES = ['text/plain', 'text/markdown', 'text/latex']

function renderMimeBundle(data: unknown, kind: string): string {
  if (!isRecord(data)) return `[${kind}: no data]`
  const parts: string[] = []
  const textMime = TEXT_MIMES.find((mime) => mime in data)
  if (textMime) parts.push(sourceText(data[textMime]).replace(/\n$/, ''))
  for (const [mime, value] of Object.entries(data)) {
    if (mime === textMime) continue
    if (mime.startsWith('image/')) {
      const raw = sourceText(value)
      // Binary images are base64; SVG is plain text.
      const bytes = mime === 'image/svg+xml' ? Buffer.byteLength(raw) : Buffer.from(raw, 'base64').length
      parts.push(`[${mime} output, ${bytes} bytes]`)
    } else if (!textMime || !TEXT_MIMES.includes(mime)) {
      const size =
        typeof value === 'string' || Array.isArray(value)
          ? sourceText(value).length
          : JSON.stringify(value).length
      parts.push(`[${mime} output, ${size} characters]`)
    }
  }
  return parts.join('\n')
}

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g

/** Progress bars redraw a line with "\r"; only the final state of each line is worth showing. */
function collapseCarriageReturns(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const trimmed = line.replace(/\r+$/, '')
      return trimmed.slice(trimmed.lastIndexOf('\r') + 1)
    })
    .join('\n')
}
