import { relative, sep } from 'node:path'
import { z } from 'zod'
import { isInside, secretName } from '../permissions/protected-paths.js'
import { displayPath, resolveToolPath } from './paths.js'
import { defineTool, type ToolContext, ToolError, type ToolSuccess } from './types.js'

/** One result: a chunk of a file, its lines and how close it is to the query (cosine similarity). */
export interface CodeSearchHit {
  /** Relative to the workspace, with `/`. */
  path: string
  startLine: number
  endLine: number
  score: number
  snippet: string
}

export interface CodeSearchAnswer {
  hits: CodeSearchHit[]
  /**
   * Set while an update runs: what it has read so far. `updating`: the index was complete and is being
   * brought up to date with files changed since (else it is still being built).
   */
  partial?: { done: number; total: number; updating?: true }
  indexed: { files: number; chunks: number }
  /** The last update failed (the endpoint went away…): the index may be out of date. */
  stale?: string
}

/**
 * The session's semantic index (source/codesearch/service.ts implements it). `search` rejects with an
 * Error whose message says what went wrong (the endpoint refused the key, no such model…).
 */
export interface CodeSearchService {
  /** Where the query is sent (the embeddings URL), for the consent preview. */
  readonly endpoint: string
  search(
    query: string,
    opts: { limit: number; under: string; signal: AbortSignal; allowed(absPath: string): boolean },
  ): Promise<CodeSearchAnswer>
}

const DEFAULT_LIMIT = 8
const MAX_LIMIT = 30

const DESCRIPTION = `Semantic search over the workspace: finds code, docs and diagrams by meaning rather than by exact text ("where are retries decided", "the architecture diagram").
- Returns the closest chunks with path, line range, similarity score and a snippet; Read the lines you need.
- limit: how many results (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}); path: search only below this file or folder of the workspace.
- Files ignored by .gitignore, secrets files and files you may not read are not indexed. Files you write are updated in the index before your next search; while an update runs the results say they are partial.
- For an exact name or pattern, Grep is faster and complete.`

const schema = z.strictObject({
  query: z.string().min(1).describe('What you are looking for, in words'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .optional()
    .describe(`Results to return (default ${DEFAULT_LIMIT})`),
  path: z
    .string()
    .optional()
    .describe('Search only below this file or folder (default: the whole workspace)'),
})

export type CodeSearchArgs = z.infer<typeof schema>

const rootOf = (args: CodeSearchArgs, ctx: ToolContext) =>
  args.path ? resolveToolPath(args.path, ctx.cwd()) : ctx.workspace

export function createCodeSearchTool(service: CodeSearchService) {
  return defineTool<CodeSearchArgs>({
    name: 'CodeSearch',
    description: DESCRIPTION,
    schema,
    risk: 'read',
    isReadOnly: () => true,
    permissionTarget: (args, ctx) => ({ kind: 'path', path: rootOf(args, ctx), access: 'read' }),
    preview: async (args, ctx) => ({
      kind: 'json',
      text: `Semantic search for "${args.query}" in ${displayPath(rootOf(args, ctx), ctx.workspace)}; the query is sent to ${service.endpoint}`,
    }),
    summarize: (args) => `CodeSearch "${args.query}"${args.path ? ` in ${args.path}` : ''}`,
    async execute(args, ctx): Promise<ToolSuccess> {
      const root = rootOf(args, ctx)
      if (!isInside(root, ctx.workspace)) {
        throw new ToolError(
          'validation',
          `${args.path} is outside the workspace; the index covers the workspace only.`,
          {
            hint: 'Leave path out, or give a folder of the workspace; use Grep for other places.',
          },
        )
      }
      const under = relative(ctx.workspace, root).split(sep).join('/')
      const boundary = { workspace: ctx.workspace, additionalDirs: [], trustedReadDirs: [] }
      const answer = await service
        .search(args.query, {
          limit: args.limit ?? DEFAULT_LIMIT,
          under,
          signal: ctx.signal,
          // Judged again at query time: rules can change after a file was indexed.
          allowed: (abs) => ctx.deniedRead?.(abs) === undefined && secretName(abs, boundary) === undefined,
        })
        .catch((error: unknown) => {
          if (ctx.signal.aborted) throw new ToolError('aborted', 'The search was cancelled.')
          throw new ToolError('execution', error instanceof Error ? error.message : String(error))
        })
      return formatAnswer(args, answer)
    },
  })
}

export function formatAnswer(args: CodeSearchArgs, answer: CodeSearchAnswer): ToolSuccess {
  const p = answer.partial
  // No total yet: the update is still looking for the files it has to read.
  const read = (what: string) =>
    p && p.total > 0 ? `${p.done} of ${p.total} ${what} read` : 'looking for changes'
  const partial = p?.updating
    ? `[partial: the index is being updated with files changed since it was built (${read('changed files')}); results may miss or show old lines of files changed just now. Search again for up-to-date results.]`
    : p
      ? `[partial: the index is still being built (${read('files')}; ${answer.indexed.files} files indexed so far). Search again later for complete results.]`
      : answer.stale
        ? `[the index may be out of date: ${answer.stale}]`
        : ''
  if (answer.hits.length === 0) {
    const none =
      answer.indexed.chunks === 0
        ? 'The index holds nothing yet.'
        : `No results for "${args.query}"${args.path ? ` in ${args.path}` : ''}.`
    return {
      forModel: [none, partial].filter(Boolean).join('\n'),
      display: { kind: 'list', count: 0, truncated: false, items: [] },
    }
  }
  const blocks = answer.hits.map((h) => {
    const snippet = h.snippet
      .split('\n')
      .map((line) => `  ${line}`)
      .join('\n')
    return `${h.path}:${h.startLine}-${h.endLine} (score ${h.score.toFixed(3)})\n${snippet}`
  })
  const items = answer.hits.map((h) => `${h.path}:${h.startLine}-${h.endLine}  ${h.score.toFixed(2)}`)
  return {
    forModel: [...blocks, partial].filter(Boolean).join('\n\n'),
    display: { kind: 'list', count: answer.hits.length, truncated: answer.partial !== undefined, items },
  }
}
