import { type FileHandle, readdir, stat } from 'node:fs/promises'
import { basename, dirname, extname, join } from 'node:path'
import { z } from 'zod'
import { numberLines } from './numbered-lines.js'
import { displayPath, resolveToolPath } from './paths.js'
import { type LineWindow, lineWindowOf, readLineWindow, type WindowOptions } from './read-window.js'
import { SNIFF_BYTES, sniffBytes } from './sniff.js'
import { boundOutput } from './spill.js'
import { defineTool, type Tool, type ToolContext, ToolError, type ToolSuccess } from './types.js'
import { fsError } from './write-guard.js'
import { openJudged } from './judged-open.js'

const DEFAULT_LIMIT = 2000
const MAX_WINDOW_CHARS = 100_000
const MAX_IMAGE_BYTES = 20 * 1024 * 1024
// Below this size the whole file is scanned so the paging note can give the total line count.
const COUNT_LINES_UP_TO = 16 * 1024 * 1024
// Files up to this size are read in one read: the sniff and the lines come from the same bytes, which
// saves the stream's round trips to the thread pool on the common small file.
const READ_WHOLE_UP_TO = 256 * 1024

const DESCRIPTION = `Reads a file from the local filesystem.
- file_path should be absolute; a relative path resolves against the current directory.
- By default returns up to ${DEFAULT_LIMIT} lines from the start. For long files pass offset (1-based line number) and limit (number of lines) to read another window; the result says how to continue.
- Output is numbered like \`cat -n\`: line number, a tab, then the line. Lines over 2000 characters are cut. The numbers and the tab are not part of the file.
- Images (PNG, JPEG, GIF, WebP) are shown to you when the model supports images.
- When a tool result says "full output: <path>", Read that path to see the omitted part.
- A directory cannot be read: use Glob, or \`ls\` via Bash.
- Read a file before changing it with Write or Edit.`

const schema = z.strictObject({
  file_path: z
    .string()
    .min(1)
    .describe('Absolute path of the file to read (a relative path resolves against the current directory)'),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('1-based line number to start reading from. Only needed for files too long to read at once'),
  limit: z.number().int().min(1).optional().describe(`Number of lines to read (default ${DEFAULT_LIMIT})`),
})

export type ReadArgs = z.infer<typeof schema>

/** Turns a notebook's raw JSON into the text the model sees; supplied by the notebook module. */
export type NotebookRenderer = (raw: string, absPath: string) => string

export interface ReadToolOptions {
  /** Renders `.ipynb` files as cells with outputs; without it notebooks are read as plain JSON text. */
  renderNotebook?: NotebookRenderer
}

/** Builds the Read tool; the options are the seam for renderers of special file types. */
export function createReadTool(opts: ReadToolOptions = {}): Tool<ReadArgs> {
  return defineTool<ReadArgs>({
    name: 'Read',
    description: DESCRIPTION,
    schema,
    risk: 'read',
    isReadOnly: () => true,
    permissionTarget(args, ctx) {
      const path = resolveToolPath(args.file_path, ctx.cwd())
      // Spilled outputs belong to the session; restoring them never needs consent.
      return ctx.spill.isSpillPath(path) ? { kind: 'none' } : { kind: 'path', path, access: 'read' }
    },
    preview: async () => ({ kind: 'none' }),
    summarize(args) {
      const range =
        args.offset !== undefined || args.limit !== undefined
          ? ` (lines ${args.offset ?? 1}–${(args.offset ?? 1) + (args.limit ?? DEFAULT_LIMIT) - 1})`
          : ''
      return `Read ${args.file_path}${range}`
    },
    execute: (args, ctx) => executeRead(args, ctx, opts),
  })
}

async function executeRead(args: ReadArgs, ctx: ToolContext, opts: ReadToolOptions): Promise<ToolSuccess> {
  const abs = resolveToolPath(args.file_path, ctx.cwd())
  const shown = displayPath(abs, ctx.workspace)
  const st = await stat(abs).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw await notFound(abs, shown, ctx.workspace)
    throw fsError(error, shown)
  })
  if (st.isDirectory()) {
    throw new ToolError('validation', `${shown} is a directory, not a file.`, {
      hint: `List it with Glob (pattern "*" and path "${shown}") or with \`ls\` via Bash.`,
    })
  }
  if (!st.isFile()) {
    throw new ToolError('validation', `${shown} is not a regular file (device, socket or pipe).`)
  }
  // Everything after this reads the one file the gate judged, through its descriptor (judged-open.ts).
  const { handle, real } = await openJudged(abs, shown, {
    target: ctx.permission,
    exempt: (path) => ctx.spill.isSpillPath(path),
  }).catch((error: unknown) => {
    if (error instanceof ToolError) throw error
    throw fsError(error as NodeJS.ErrnoException, shown)
  })
  try {
    return await readOpened(args, ctx, opts, { handle, real, shown, abs })
  } finally {
    await handle.close()
  }
}

async function readOpened(
  args: ReadArgs,
  ctx: ToolContext,
  opts: ReadToolOptions,
  file: { handle: FileHandle; real: string; shown: string; abs: string },
): Promise<ToolSuccess> {
  const { handle, real, shown, abs } = file
  const st = await handle.stat()
  // What was opened, not what the name was a moment ago: a FIFO or a directory swapped in is not read.
  if (!st.isFile())
    throw new ToolError('validation', `${shown} is not a regular file (device, socket or pipe).`)
  const renderNotebook = extname(abs).toLowerCase() === '.ipynb' ? opts.renderNotebook : undefined
  const headBytes = renderNotebook ? 0 : st.size <= READ_WHOLE_UP_TO ? st.size : SNIFF_BYTES
  const head = await readHead(handle, headBytes).catch((error: NodeJS.ErrnoException) => {
    throw fsError(error, shown)
  })
  const record = () => ctx.files.recordRead(real, { mtimeMs: st.mtimeMs, size: st.size })

  if (renderNotebook) {
    const raw = await handle.readFile('utf8').catch((error: NodeJS.ErrnoException) => {
      throw fsError(error, shown)
    })
    const bounded = await boundOutput(renderNotebook(raw, real), {
      spiller: ctx.spill,
      hint: 'notebook',
    })
    record()
    return { forModel: bounded.text, display: { kind: 'file', path: shown, lines: 0, note: 'notebook' } }
  }

  const whole = st.size <= READ_WHOLE_UP_TO && head.length === st.size
  const sniffed = head.subarray(0, SNIFF_BYTES)
  const sniff = sniffBytes(sniffed, st.size > sniffed.length)
  if (sniff.kind === 'binary') {
    throw new ToolError('validation', `${shown} is a binary file (${sniff.type}, ${formatSize(st.size)}).`, {
      hint: 'Read only shows text and images. Inspect binary files with Bash tools such as `file`, `xxd | head` or `unzip -l`.',
    })
  }
  if (sniff.kind === 'image') {
    if (st.size > MAX_IMAGE_BYTES) {
      throw new ToolError(
        'validation',
        `${shown} is a ${sniff.label} of ${formatSize(st.size)}; the limit is 20 MB.`,
      )
    }
    record()
    const display = { kind: 'file' as const, path: shown, lines: 0, note: sniff.label }
    if (!ctx.supportsVision) {
      return {
        forModel: `${shown} is a ${sniff.label} (${formatSize(st.size)}). The current model cannot see images, so its content is not available to you. Ask the user to describe it if it matters.`,
        display,
      }
    }
    const data = whole ? head : await handle.readFile()
    return {
      forModel: `${shown}: ${sniff.label}, ${formatSize(st.size)}. The image follows.`,
      images: [
        { type: 'image_url', image_url: { url: `data:${sniff.mime};base64,${data.toString('base64')}` } },
      ],
      display,
    }
  }

  const offset = Math.max(1, args.offset ?? 1)
  const limit = args.limit ?? DEFAULT_LIMIT
  const windowOpts: WindowOptions = {
    offset,
    limit,
    encoding: sniff.encoding,
    maxChars: MAX_WINDOW_CHARS,
    countAll: st.size <= COUNT_LINES_UP_TO,
    signal: ctx.signal,
  }
  const window: LineWindow = whole
    ? lineWindowOf(head.toString(sniff.encoding), windowOpts)
    : await readLineWindow(handle, windowOpts).catch((error: NodeJS.ErrnoException) => {
        if (error.name === 'AbortError') throw new ToolError('aborted', `Reading ${shown} was cancelled.`)
        throw fsError(error, shown)
      })
  record()

  if (window.totalLines === 0) {
    return {
      forModel: `(${shown} exists but is empty.)`,
      display: { kind: 'file', path: shown, lines: 0, note: 'empty' },
    }
  }
  if (window.lines.length === 0) {
    throw new ToolError(
      'validation',
      `offset ${offset} is past the end of ${shown}, which has ${window.totalLines} lines.`,
      {
        hint: 'Use an offset within the file, or omit it to read from the start.',
      },
    )
  }
  const notes: string[] = []
  if (sniff.encoding === 'latin1') notes.push('[The file is not valid UTF-8; it was decoded as Latin-1.]')
  const lastShown = offset + window.lines.length - 1
  if (window.hasMore) {
    const of =
      window.totalLines !== undefined
        ? ` of ${window.totalLines}`
        : ` (the file continues; ${formatSize(st.size)} total)`
    const why = window.stoppedByChars ? ' (the output size limit was reached)' : ''
    notes.push(
      `[Showing lines ${offset}–${lastShown}${of}${why}. To read more, call Read with offset=${lastShown + 1}.]`,
    )
  }
  if (window.cutLines > 0) {
    notes.push(
      `[${window.cutLines} line(s) longer than 2000 characters were cut; use Grep or Bash to see them whole.]`,
    )
  }
  const body = numberLines(window.lines, offset)
  return {
    forModel: notes.length > 0 ? `${body}\n\n${notes.join('\n')}` : body,
    display: {
      kind: 'file',
      path: shown,
      lines: window.lines.length,
      ...(window.hasMore ? { note: 'partial' } : {}),
    },
  }
}

async function readHead(handle: FileHandle, bytes: number): Promise<Buffer> {
  if (bytes === 0) return Buffer.alloc(0)
  const buf = Buffer.alloc(bytes)
  const { bytesRead } = await handle.read(buf, 0, bytes, 0)
  return buf.subarray(0, bytesRead)
}

/** Not-found error that suggests near-miss names in the same directory (case or extension differs). */
async function notFound(abs: string, shown: string, workspace: string): Promise<ToolError> {
  const name = basename(abs).toLowerCase()
  const stem = name.replace(/\.[^.]*$/, '')
  const entries = await readdir(dirname(abs)).catch(() => [] as string[])
  const near = entries
    .filter((e) => e.toLowerCase() === name || e.toLowerCase().replace(/\.[^.]*$/, '') === stem)
    .slice(0, 3)
    .map((e) => displayPath(join(dirname(abs), e), workspace))
  const hint =
    near.length > 0 ? `Did you mean ${near.join(' or ')}?` : 'Check the path, or find the file with Glob.'
  return new ToolError('not_found', `File does not exist: ${shown}`, { hint })
}

/** Human-readable size: 512 B, 12.3 KB, 4.0 MB. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/** The Read tool with no special renderers. */
export const readTool = createReadTool()
