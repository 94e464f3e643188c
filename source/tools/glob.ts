import { stat } from 'node:fs/promises'
import { isAbsolute, join, resolve } from 'node:path'
import picomatch from 'picomatch'
import { z } from 'zod'
import { DeniedReads } from './denied-reads.js'
import { sortByMtime } from './mtime-sort.js'
import { displayPath, resolveToolPath } from './paths.js'
import { BASE_RG_ARGS, ripgrepError, runRipgrep } from './ripgrep.js'
import { pinJudged } from './judged-open.js'
import { defineTool, type ToolContext, ToolError, type ToolSuccess } from './types.js'
import { fsError } from './write-guard.js'

const MAX_RESULTS = 100

const DESCRIPTION = `Finds files by glob pattern, newest-modified first.
- Patterns like "**/*.ts", "src/**/*.{ts,tsx}", "*.md" (a pattern without "/" matches only directly inside the search directory; use "**/" to search below it).
- Searches the current directory, or path when given. Files ignored by .gitignore are skipped; hidden files are included, .git/ never.
- Returns at most ${MAX_RESULTS} paths; narrow the pattern or path when the result says it was truncated.
- To search file contents, use Grep.`

const schema = z.strictObject({
  pattern: z.string().min(1).describe('The glob pattern to match files against, e.g. "**/*.ts"'),
  path: z
    .string()
    .optional()
    .describe(
      'Directory to search in (default: the current directory). Omit it rather than passing "undefined" or "null"',
    ),
})

export type GlobArgs = z.infer<typeof schema>

/** Search root and the glob relative to it; a pattern's static prefix narrows the root. */
function splitPattern(args: GlobArgs, ctx: ToolContext): { root: string; glob: string; isGlob: boolean } {
  const base = args.path ? resolveToolPath(args.path, ctx.cwd()) : ctx.cwd()
  const pattern = args.pattern.startsWith('~/') ? resolveToolPath(args.pattern, base) : args.pattern
  const scan = picomatch.scan(pattern)
  const root = scan.base === '' ? base : isAbsolute(scan.base) ? scan.base : resolve(base, scan.base)
  return { root, glob: scan.isGlob ? scan.glob : '', isGlob: scan.isGlob }
}

/** The Glob tool: file-name search via `rg --files`, filtered with picomatch for exact glob semantics. */
export const globTool = defineTool<GlobArgs>({
  name: 'Glob',
  description: DESCRIPTION,
  schema,
  risk: 'read',
  isReadOnly: () => true,
  permissionTarget: (args, ctx) => ({ kind: 'path', path: splitPattern(args, ctx).root, access: 'read' }),
  preview: async () => ({ kind: 'none' }),
  summarize: (args) => `Glob ${args.pattern}${args.path ? ` in ${args.path}` : ''}`,
  async execute(args, ctx): Promise<ToolSuccess> {
    const { root, glob, isGlob } = splitPattern(args, ctx)
    const shownRoot = displayPath(root, ctx.workspace)
    const st = await stat(root).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' && !isGlob) return undefined
      if (error.code === 'ENOENT') throw new ToolError('not_found', `Directory does not exist: ${shownRoot}`)
      throw fsError(error, shownRoot)
    })
    if (!isGlob) {
      // A pattern without wildcards names one path.
      const items = st?.isFile() ? [shownRoot] : []
      return result(items, items.length, args.pattern, shownRoot)
    }
    if (!st?.isDirectory()) {
      throw new ToolError('validation', `${shownRoot} is not a directory.`, {
        hint: 'Give a directory as path, or use Read for a single file.',
      })
    }
    const isMatch = picomatch(glob, { dot: true })
    const denied = new DeniedReads(ctx.deniedRead)
    const matches: string[] = []
    // ripgrep lists the folder that was judged, not where the path leads by the time it starts (judged-open.ts).
    const pinned = await pinJudged(root, shownRoot, ctx.permission).catch((error: unknown) => {
      if (error instanceof ToolError) throw error
      throw fsError(error as NodeJS.ErrnoException, shownRoot)
    })
    const run = await runRipgrep([...BASE_RG_ARGS, '--files', '--null'], {
      cwd: pinned.path,
      signal: ctx.signal,
      ...(ctx.programs ? { programs: ctx.programs } : {}),
      separator: '\0',
      onRecord(rel) {
        if (rel !== '' && isMatch(rel) && denied.allows(join(root, rel))) matches.push(join(root, rel))
        return undefined
      },
    }).finally(() => pinned.close())
    if (run.exitCode === 2 && matches.length === 0 && run.stderr !== '') throw ripgrepError(run)
    const sorted = await sortByMtime(matches, ctx.signal)
    if (ctx.signal.aborted) throw new ToolError('aborted', 'The search was cancelled.')
    const items = sorted.slice(0, MAX_RESULTS).map((p) => displayPath(p, ctx.workspace))
    return result(items, matches.length, args.pattern, shownRoot, denied.note())
  },
})

function result(
  items: string[],
  total: number,
  pattern: string,
  shownRoot: string,
  leftOut = '',
): ToolSuccess {
  const truncated = total > items.length
  const after = leftOut ? `\n${leftOut}` : ''
  if (items.length === 0) {
    return {
      forModel: `No files match "${pattern}" in ${shownRoot === '.' ? 'the workspace root' : shownRoot}.${after}`,
      display: { kind: 'list', count: 0, truncated: false, items: [] },
    }
  }
  const note = truncated
    ? `\n(Showing the ${items.length} most recently modified of ${total} matching files. Use a more specific pattern or path to see the others.)`
    : ''
  return {
    forModel: items.join('\n') + note + after,
    display: { kind: 'list', count: total, truncated, items },
  }
}
