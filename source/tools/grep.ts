import { stat } from 'node:fs/promises'
import { z } from 'zod'
import { sortByMtime } from './mtime-sort.js'
import { cutLine } from './numbered-lines.js'
import { SECRET_SEARCH_GLOBS, secretName } from '../permissions/protected-paths.js'
import { DeniedReads } from './denied-reads.js'
import { displayPath, resolveToolPath } from './paths.js'
import { BASE_RG_ARGS, type RipgrepRun, ripgrepError, runRipgrep } from './ripgrep.js'
import { boundOutput } from './spill.js'
import { defineTool, type ToolContext, ToolError, type ToolSuccess } from './types.js'
import { fsError } from './write-guard.js'
import { pinJudged } from './judged-open.js'

const DEFAULT_HEAD_LIMIT = 250
const MAX_MATCH_LINE_CHARS = 500

const DESCRIPTION = `Searches file contents with ripgrep.
- pattern is a regular expression in ripgrep (Rust) syntax: "log.*Error", "function\\s+\\w+"; escape literal braces and parentheses ("interface\\{\\}").
- Filter files with glob ("*.js", "**/*.{ts,tsx}") or type ("js", "py", "rust"); search a file or directory with path (default: the current directory).
- output_mode: "files_with_matches" (default; file paths, newest first), "content" (matching lines; supports -A/-B/-C context, -n line numbers, on by default) or "count" (matching lines per file).
- Results are limited to head_limit lines or files (default ${DEFAULT_HEAD_LIMIT}); page with offset.
- multiline: true lets . and patterns span lines.
- Files ignored by .gitignore are skipped; hidden files are included, .git/ never. Use this tool rather than grep or rg via Bash.
- Secrets files (.env, private keys, credential stores) are left out of a directory search; give one as path to search it (that asks the user).`

const count = z.number().int().min(0)

const schema = z.strictObject({
  pattern: z.string().min(1).describe('The regular expression to search for in file contents'),
  path: z.string().optional().describe('File or directory to search in (default: the current directory)'),
  glob: z
    .string()
    .optional()
    .describe('Glob pattern to filter files, e.g. "*.js" or "*.{ts,tsx}" (rg --glob)'),
  type: z.string().optional().describe('File type to search, e.g. js, py, rust, go, java (rg --type)'),
  output_mode: z
    .enum(['content', 'files_with_matches', 'count'])
    .optional()
    .describe(
      '"content" shows matching lines, "files_with_matches" (default) file paths, "count" match counts per file',
    ),
  '-i': z.boolean().optional().describe('Case-insensitive search'),
  '-n': z.boolean().optional().describe('Show line numbers (content mode only; default true)'),
  '-A': count.optional().describe('Lines of context after each match (content mode only)'),
  '-B': count.optional().describe('Lines of context before each match (content mode only)'),
  '-C': count.optional().describe('Lines of context before and after each match (content mode only)'),
  multiline: z
    .boolean()
    .optional()
    .describe('Let patterns span lines and . match newlines (rg -U --multiline-dotall)'),
  head_limit: count
    .optional()
    .describe(
      `Return only the first N lines (content) or entries (default ${DEFAULT_HEAD_LIMIT}; 0 = no limit)`,
    ),
  offset: count
    .optional()
    .describe('Skip the first N lines or entries before applying head_limit (default 0)'),
})

export type GrepArgs = z.infer<typeof schema>

interface JsonText {
  text?: string
  bytes?: string
}

interface RgEvent {
  type: string
  data?: { path?: JsonText; lines?: JsonText; line_number?: number | null }
}

const textOf = (t: JsonText | undefined): string =>
  t?.text ?? (t?.bytes ? Buffer.from(t.bytes, 'base64').toString('utf8') : '')

/** The Grep tool: ripgrep content search with bounded, pageable results. */
export const grepTool = defineTool<GrepArgs>({
  name: 'Grep',
  description: DESCRIPTION,
  schema,
  risk: 'read',
  isReadOnly: () => true,
  permissionTarget: (args, ctx) => ({
    kind: 'path',
    path: args.path ? resolveToolPath(args.path, ctx.cwd()) : ctx.cwd(),
    access: 'read',
  }),
  preview: async () => ({ kind: 'none' }),
  summarize: (args) => `Grep ${args.pattern}${args.path ? ` in ${args.path}` : ''}`,
  async execute(args, ctx): Promise<ToolSuccess> {
    const root = args.path ? resolveToolPath(args.path, ctx.cwd()) : ctx.cwd()
    const shownRoot = displayPath(root, ctx.workspace)
    await stat(root).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new ToolError('not_found', `Path does not exist: ${shownRoot}`)
      throw fsError(error, shownRoot)
    })
    const flags: string[] = [...BASE_RG_ARGS]
    if (args['-i']) flags.push('-i')
    if (args.multiline) flags.push('-U', '--multiline-dotall')
    if (args.type) flags.push('--type', args.type)
    if (args.glob) flags.push('--glob', args.glob)
    // Last, so no glob of the model's re-includes them: a later glob wins in ripgrep.
    if (
      secretName(root, { workspace: ctx.workspace, additionalDirs: [], trustedReadDirs: [] }) === undefined
    ) {
      for (const glob of SECRET_SEARCH_GLOBS) flags.push('--iglob', `!${glob}`)
    }
    const page = { offset: args.offset ?? 0, limit: args.head_limit ?? DEFAULT_HEAD_LIMIT }
    const mode = args.output_mode ?? 'files_with_matches'
    // ripgrep searches what was judged, not what the path leads to by the time it starts (judged-open.ts).
    const pinned = await pinJudged(root, shownRoot, ctx.permission).catch((error: unknown) => {
      if (error instanceof ToolError) throw error
      throw fsError(error as NodeJS.ErrnoException, shownRoot)
    })
    const tail = ['-e', args.pattern, '--', pinned.path]
    const denied = new DeniedReads(ctx.deniedRead)
    const search = { flags, tail, page, ctx, denied, named: pinned.named }
    const found = await (mode === 'content'
      ? searchContent(args, search)
      : mode === 'count'
        ? searchCount(search)
        : searchFiles(search)
    ).finally(() => pinned.close())
    const leftOut = denied.note()
    if (found.total === 0 && found.lines.length === 0) {
      const none = `No matches for /${args.pattern}/ in ${shownRoot === '.' ? 'the workspace root' : shownRoot}.`
      return {
        forModel: leftOut ? `${none}\n${leftOut}` : none,
        display: { kind: 'list', count: 0, truncated: false, items: [] },
      }
    }
    const notes: string[] = []
    const shownEnd = page.offset + found.lines.length
    if (found.more) {
      const of = found.total !== undefined ? ` of ${found.total}` : ''
      notes.push(`[Showing results ${page.offset + 1}–${shownEnd}${of}. Use offset=${shownEnd} to see more.]`)
    } else if (found.lines.length === 0) {
      notes.push(`[offset ${page.offset} is past the last result (${found.total ?? 0}).]`)
    }
    if (found.partialError) notes.push(`[ripgrep reported errors: ${found.partialError.split('\n')[0]}]`)
    if (leftOut) notes.push(leftOut)
    const text = [found.header, found.lines.join('\n'), ...notes].filter((s) => s !== '').join('\n')
    const bounded = await boundOutput(text, { spiller: ctx.spill, hint: 'grep' })
    return {
      forModel: bounded.text,
      display: {
        kind: 'list',
        count: found.total ?? shownEnd,
        truncated: found.more || bounded.truncated,
        items: found.lines.slice(0, 200),
      },
    }
  },
})

interface Found {
  header: string
  lines: string[]
  /** Total results, when known (content mode stops reading early). */
  total: number | undefined
  more: boolean
  partialError?: string
}

interface Page {
  offset: number
  /** 0 = unlimited. */
  limit: number
}

function takePage<T>(items: readonly T[], page: Page): { items: T[]; more: boolean } {
  const end = page.limit === 0 ? items.length : page.offset + page.limit
  return { items: items.slice(page.offset, end), more: end < items.length }
}

function checkRun(run: RipgrepRun, hasResults: boolean): string | undefined {
  if (run.exitCode !== 2) return undefined
  if (!hasResults) throw ripgrepError(run)
  return run.stderr.replace(/^rg: /gm, '')
}

/** One search's ripgrep arguments and what its results go through (`named`: rg's paths as the caller's). */
interface Search {
  flags: string[]
  tail: string[]
  page: Page
  ctx: ToolContext
  denied: DeniedReads
  named(reported: string): string
}

async function searchFiles({ flags, tail, page, ctx, denied, named }: Search): Promise<Found> {
  const files: string[] = []
  const run = await runRipgrep([...flags, '--files-with-matches', '--null', ...tail], {
    cwd: ctx.cwd(),
    signal: ctx.signal,
    ...(ctx.programs ? { programs: ctx.programs } : {}),
    separator: '\0',
    onRecord: (reported) => {
      const p = named(reported)
      if (p !== '' && denied.allows(p)) files.push(p)
      return undefined
    },
  })
  const partialError = checkRun(run, files.length > 0)
  const sorted = await sortByMtime(files, ctx.signal)
  const { items, more } = takePage(sorted, page)
  return {
    header: `Found ${files.length} file${files.length === 1 ? '' : 's'}`,
    lines: items.map((p) => displayPath(p, ctx.workspace)),
    total: files.length,
    more,
    ...(partialError ? { partialError } : {}),
  }
}

async function searchCount({ flags, tail, page, ctx, denied, named }: Search): Promise<Found> {
  const counts: { path: string; n: number }[] = []
  const run = await runRipgrep([...flags, '--count', '--null', ...tail], {
    cwd: ctx.cwd(),
    signal: ctx.signal,
    ...(ctx.programs ? { programs: ctx.programs } : {}),
    onRecord: (record) => {
      const sep = record.lastIndexOf('\0')
      const path = named(record.slice(0, sep))
      if (sep > 0 && denied.allows(path)) counts.push({ path, n: Number(record.slice(sep + 1)) })
      return undefined
    },
  })
  const partialError = checkRun(run, counts.length > 0)
  counts.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  const totalLines = counts.reduce((sum, c) => sum + c.n, 0)
  const { items, more } = takePage(counts, page)
  return {
    header: `${totalLines} matching line${totalLines === 1 ? '' : 's'} in ${counts.length} file${counts.length === 1 ? '' : 's'}`,
    lines: items.map((c) => `${displayPath(c.path, ctx.workspace)}:${c.n}`),
    total: counts.length,
    more,
    ...(partialError ? { partialError } : {}),
  }
}

async function searchContent(
  args: GrepArgs,
  { flags, tail, page, ctx, denied, named }: Search,
): Promise<Found> {
  const context: string[] = []
  if (args['-C'] !== undefined) context.push('-C', String(args['-C']))
  if (args['-A'] !== undefined) context.push('-A', String(args['-A']))
  if (args['-B'] !== undefined) context.push('-B', String(args['-B']))
  const hasContext = (args['-C'] ?? 0) + (args['-A'] ?? 0) + (args['-B'] ?? 0) > 0
  const numbers = args['-n'] ?? true
  const wanted = page.limit === 0 ? Number.POSITIVE_INFINITY : page.offset + page.limit
  const out: string[] = []
  let more = false
  let lastPath = ''
  let lastLine = -1
  const push = (line: string): boolean => {
    if (out.length >= wanted) {
      more = true
      return false
    }
    out.push(line)
    return true
  }
  // --sort path keeps the order stable, so offset pages line up across calls.
  const run = await runRipgrep([...flags, '--json', '--sort', 'path', ...context, ...tail], {
    cwd: ctx.cwd(),
    signal: ctx.signal,
    ...(ctx.programs ? { programs: ctx.programs } : {}),
    onRecord(record) {
      if (!record.startsWith('{"type":"match"') && !record.startsWith('{"type":"context"')) return undefined
      const event = JSON.parse(record) as RgEvent
      const found = named(textOf(event.data?.path))
      if (!denied.allows(found)) return undefined
      const path = displayPath(found, ctx.workspace)
      const first = event.data?.line_number ?? 0
      const sep = event.type === 'match' ? ':' : '-'
      const lines = textOf(event.data?.lines)
        .replace(/\r?\n$/, '')
        .split('\n')
      for (let i = 0; i < lines.length; i++) {
        const n = first + i
        if (hasContext && out.length > 0 && (path !== lastPath || n !== lastLine + 1) && !push('--'))
          return false
        const text = cutLine((lines[i] ?? '').replace(/\r$/, ''), undefined, MAX_MATCH_LINE_CHARS)
        if (!push(numbers && first > 0 ? `${path}${sep}${n}${sep}${text}` : `${path}${sep}${text}`))
          return false
        lastPath = path
        lastLine = n
      }
      return undefined
    },
  })
  const partialError = run.stopped ? undefined : checkRun(run, out.length > 0)
  return {
    header: '',
    lines: out.slice(page.offset),
    total: more ? undefined : out.length,
    more,
    ...(partialError ? { partialError } : {}),
  }
}
