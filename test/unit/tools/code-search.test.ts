import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type CodeSearchService, createCodeSearchTool } from '../../../source/tools/code-search.ts'
import { createTestEnv, run, runError, type TestEnv } from './helpers.ts'

let env: TestEnv
beforeEach(async () => {
  env = await createTestEnv()
})
afterEach(() => env.cleanup())

/** A service over fixed hits that records what the tool asked of it. */
function service(hits = HITS, partial?: { done: number; total: number }) {
  const asked: Array<{ query: string; limit: number; under: string; allowed: string[] }> = []
  const s: CodeSearchService = {
    endpoint: 'http://127.0.0.1:9/v1/embeddings',
    async search(query, opts) {
      const allowed = hits.filter((h) => opts.allowed(join(env.workspace, h.path))).map((h) => h.path)
      asked.push({ query, limit: opts.limit, under: opts.under, allowed })
      return {
        hits: hits.filter((h) => allowed.includes(h.path)).slice(0, opts.limit),
        indexed: { files: 3, chunks: 9 },
        ...(partial ? { partial } : {}),
      }
    },
  }
  return { s, asked }
}

const HITS = [
  {
    path: 'src/retry.ts',
    startLine: 3,
    endLine: 20,
    score: 0.91234,
    snippet: 'export function retry() {\n  return 1',
  },
  { path: 'private/plan.md', startLine: 1, endLine: 4, score: 0.5, snippet: 'secret plan' },
  { path: '.env', startLine: 1, endLine: 1, score: 0.4, snippet: 'TOKEN=x' },
]

describe('CodeSearch', () => {
  it('lists path, line range, score and snippet; drops what a deny rule or the secrets list hides now', async () => {
    const { s, asked } = service()
    const ctx = {
      ...env.ctx,
      deniedRead: (p: string) => (p.includes('/private/') ? 'Read(private/**)' : undefined),
    }
    const result = await run(createCodeSearchTool(s), { query: 'retries', limit: 5 }, ctx)
    expect(result.forModel).toBe('src/retry.ts:3-20 (score 0.912)\n  export function retry() {\n    return 1')
    expect(result.display).toEqual({
      kind: 'list',
      count: 1,
      truncated: false,
      items: ['src/retry.ts:3-20  0.91'],
    })
    expect(asked).toEqual([{ query: 'retries', limit: 5, under: '', allowed: ['src/retry.ts'] }])
  })

  it('path narrows the search to a folder of the workspace; one outside is refused', async () => {
    const { s, asked } = service()
    await run(createCodeSearchTool(s), { query: 'x', path: 'src' }, env.ctx)
    expect(asked[0]?.under).toBe('src')
    expect(asked[0]?.limit).toBe(8)
    const error = await runError(createCodeSearchTool(s), { query: 'x', path: '/etc' }, env.ctx)
    expect(error.category).toBe('validation')
    expect(error.message).toMatch(/outside the workspace/)
  })

  it('says when the index is still being built', async () => {
    const { s } = service(HITS.slice(0, 1), { done: 10, total: 40 })
    const result = await run(createCodeSearchTool(s), { query: 'x' }, env.ctx)
    expect(result.forModel).toMatch(
      /\[partial: the index is still being built \(10 of 40 files read; 3 files indexed so far\)/,
    )
  })

  it('says when the last update failed and the index may be out of date', async () => {
    const s: CodeSearchService = {
      endpoint: 'http://x/v1/embeddings',
      search: async () => ({
        hits: HITS.slice(0, 1),
        indexed: { files: 1, chunks: 1 },
        stale: 'CodeSearch could not index the workspace: gone',
      }),
    }
    const result = await run(createCodeSearchTool(s), { query: 'x' }, env.ctx)
    expect(result.forModel).toMatch(
      /\n\n\[the index may be out of date: CodeSearch could not index the workspace: gone\]$/,
    )
  })

  it("the service's failure reaches the model as an execution error with its message", async () => {
    const s: CodeSearchService = {
      endpoint: 'http://x/v1/embeddings',
      search: async () => {
        throw new Error('http://x/v1/embeddings refused the request (401)')
      },
    }
    const error = await runError(createCodeSearchTool(s), { query: 'x' }, env.ctx)
    expect([error.category, error.message]).toEqual([
      'execution',
      'http://x/v1/embeddings refused the request (401)',
    ])
  })

  it('the consent preview says what is searched and where the query goes', async () => {
    const tool = createCodeSearchTool(service().s)
    const args = tool.schema.parse({ query: 'auth flow', path: 'src' })
    expect(await tool.preview(args, env.ctx)).toEqual({
      kind: 'json',
      text: 'Semantic search for "auth flow" in src; the query is sent to http://127.0.0.1:9/v1/embeddings',
    })
    expect(tool.risk).toBe('read')
    expect(tool.isReadOnly(args)).toBe(true)
    expect(tool.schema.safeParse({ query: 'x', limit: 31 }).success).toBe(false)
  })
})
