import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ToolContext } from '../../../source/tools/types.js'
import { ToolError } from '../../../source/tools/types.js'
import { createWebSearchTool, normalizeDomains, passes } from '../../../source/tools/web-search.js'
import type { SearchSettings, WebToolOptions } from '../../../source/tools/web/types.js'
import { send, startWebServer, type WebServer } from '../../support/web-server.ts'
import { createTestEnv, type TestEnv } from './helpers.ts'

let server: WebServer
let env: TestEnv

beforeEach(async () => {
  server = await startWebServer()
  env = await createTestEnv()
})

afterEach(async () => {
  await server.close()
  await env.cleanup()
})

interface Args {
  query: string
  allowed_domains?: string[]
  blocked_domains?: string[]
}

async function search(opts: WebToolOptions, args: Args, tool = createWebSearchTool(opts)) {
  const ctx: ToolContext = { ...env.ctx }
  const parsed = tool.schema.parse(args)
  await tool.permissionTarget(parsed, ctx)
  return tool.execute(parsed, ctx)
}

async function searchError(
  opts: WebToolOptions,
  args: Args,
  tool = createWebSearchTool(opts),
): Promise<ToolError> {
  try {
    await search(opts, args, tool)
  } catch (error) {
    if (error instanceof ToolError) return error
    throw error
  }
  throw new Error('expected a ToolError')
}

const RESULTS = [
  {
    title: 'Node.js 24 release notes',
    url: 'https://nodejs.org/en/blog/release/v24.0.0',
    snippet: 'What is new in 24',
  },
  { title: 'Node 24 on a blog', url: 'https://blog.example.com/node-24', snippet: 'A <b>review</b>' },
  { title: 'Docs', url: 'https://docs.nodejs.org/api/', snippet: 'API reference' },
]

/** Each provider's response format, as its public API documents it. */
const FORMATS: Record<SearchSettings['provider'], { path: string; body: unknown; keyEnv?: string }> = {
  searxng: {
    path: '/search',
    body: {
      query: 'node 24',
      number_of_results: 3,
      results: RESULTS.map((r) => ({ url: r.url, title: r.title, content: r.snippet, engine: 'duckduckgo' })),
      answers: [],
      suggestions: [],
    },
  },
  brave: {
    path: '/res/v1/web/search',
    keyEnv: 'BRAVE_API_KEY',
    body: {
      type: 'search',
      query: { original: 'node 24' },
      web: {
        type: 'search',
        results: RESULTS.map((r) => ({ title: r.title, url: r.url, description: r.snippet })),
      },
    },
  },
  tavily: {
    path: '/search',
    keyEnv: 'TAVILY_API_KEY',
    body: {
      query: 'node 24',
      results: RESULTS.map((r, i) => ({
        title: r.title,
        url: r.url,
        content: r.snippet,
        score: 0.9 - i / 10,
      })),
      response_time: '0.8',
    },
  },
  exa: {
    path: '/search',
    keyEnv: 'EXA_API_KEY',
    body: {
      requestId: 'abc',
      results: RESULTS.map((r) => ({ id: r.url, title: r.title, url: r.url, highlights: [r.snippet] })),
    },
  },
}

describe('WebSearch providers', () => {
  it.each(Object.keys(FORMATS) as Array<SearchSettings['provider']>)(
    '%s: sends its request and lists titles, URLs and snippets',
    async (provider) => {
      const format = FORMATS[provider]
      server.route(format.path, send('application/json', JSON.stringify(format.body)))
      const result = await search(
        { search: { provider, url: server.origin }, env: { [format.keyEnv ?? 'UNUSED']: 'secret-key' } },
        { query: 'node 24', blocked_domains: ['example.com'] },
      )
      expect(result.forModel).toContain(`Web search results for "node 24" (${provider}, 2 results):`)
      expect(result.forModel).toContain(
        '1. Node.js 24 release notes\n   https://nodejs.org/en/blog/release/v24.0.0\n   What is new in 24',
      )
      expect(result.forModel).toContain('2. Docs\n   https://docs.nodejs.org/api/\n   API reference')
      expect(result.forModel).not.toContain('blog.example.com')
      expect(result.display).toEqual({
        kind: 'list',
        count: 2,
        truncated: false,
        items: [
          'Node.js 24 release notes — https://nodejs.org/en/blog/release/v24.0.0',
          'Docs — https://docs.nodejs.org/api/',
        ],
      })
      const request = server.requests[0]!
      expect(request.path).toBe(format.path)
      if (provider === 'searxng') expect(request.method).toBe('GET')
      if (provider === 'brave') expect(request.headers['x-subscription-token']).toBe('secret-key')
      if (provider === 'tavily') {
        expect(request.headers.authorization).toBe('Bearer secret-key')
        expect(JSON.parse(request.body)).toMatchObject({ query: 'node 24', exclude_domains: ['example.com'] })
      }
      if (provider === 'exa') {
        expect(request.headers['x-api-key']).toBe('secret-key')
        expect(JSON.parse(request.body)).toMatchObject({ query: 'node 24', excludeDomains: ['example.com'] })
      }
    },
  )

  it('SearXNG: asks for JSON and turns one allowed domain into a site: operator, filtering the rest here', async () => {
    let query = new URLSearchParams()
    server.route('/search', (req, res) => {
      query = new URL(req.url ?? '/', 'http://x').searchParams
      send('application/json', JSON.stringify(FORMATS.searxng.body))(req, res, '')
    })
    const result = await search(
      { search: { provider: 'searxng', url: `${server.origin}/` } },
      { query: 'node 24', allowed_domains: ['https://www.NodeJS.org/'] },
    )
    expect(query.get('format')).toBe('json')
    expect(query.get('q')).toBe('node 24 site:nodejs.org')
    expect(result.forModel).toContain('(searxng, 2 results)')
    expect(result.forModel).toContain('https://docs.nodejs.org/api/')
  })

  it('says when the domain filters dropped everything', async () => {
    server.route('/search', send('application/json', JSON.stringify(FORMATS.searxng.body)))
    const result = await search(
      { search: { provider: 'searxng', url: server.origin } },
      { query: 'node 24', allowed_domains: ['python.org', 'rust-lang.org'] },
    )
    expect(result.forModel).toBe(
      'No results for "node 24" from searxng (3 were dropped by the domain filters). Try other words or fewer filters.',
    )
  })

  it('explains a SearXNG instance without the JSON API', async () => {
    server.route('/search', send('text/html', '<h1>403 Forbidden</h1>', 403))
    const error = await searchError(
      { search: { provider: 'searxng', url: server.origin } },
      { query: 'node 24' },
    )
    expect(error.message).toContain('searxng answered HTTP 403')
    expect(error.hint).toContain('search.formats: [html, json]')
  })

  it('names the key variable when the provider rejects the key, and retries nothing on 401', async () => {
    server.route('/search', send('application/json', '{"detail":"Unauthorized"}', 401))
    const error = await searchError(
      { search: { provider: 'tavily', url: server.origin }, env: { TAVILY_API_KEY: 'bad' } },
      { query: 'node 24' },
    )
    expect(error.message).toContain('tavily answered HTTP 401')
    expect(error.hint).toBe('the API key in TAVILY_API_KEY was rejected; ask the user to check it')
    expect(error.retryable).toBe(false)
  })
})

describe('WebSearch configuration', () => {
  it('without a provider: an error envelope, and one notice per session with the setting to add', async () => {
    const notices: string[] = []
    const tool = createWebSearchTool({
      notify: (_level, text) => notices.push(text),
      settingsFile: '/home/u/.config/agent-tui/settings.json',
    })
    const first = await searchError({}, { query: 'node 24' }, tool)
    const second = await searchError({}, { query: 'node 25' }, tool)
    for (const error of [first, second]) {
      expect(error.message).toBe('web search is unavailable: no search provider is configured')
      expect(error.hint).toContain('tell the user')
    }
    expect(notices).toEqual([
      'WebSearch: web search is unavailable: no search provider is configured. To enable it, add "search": {"provider": "searxng", "url": "http://127.0.0.1:8888"} to /home/u/.config/agent-tui/settings.json (or "brave", "tavily" or "exa", with the API key in BRAVE_API_KEY, TAVILY_API_KEY or EXA_API_KEY).',
    ])
    expect(server.requests).toEqual([])
  })

  it.each<[SearchSettings, string]>([
    [{ provider: 'brave' }, 'needs an API key in the environment variable BRAVE_API_KEY, which is not set'],
    [
      { provider: 'exa', apiKeyEnv: 'MY_EXA' },
      'needs an API key in the environment variable MY_EXA, which is not set',
    ],
    [{ provider: 'searxng' }, 'needs "search.url"'],
  ])('%j: says exactly what is missing', async (settings, message) => {
    const notices: string[] = []
    const error = await searchError(
      { search: settings, env: {}, notify: (_l, text) => notices.push(text) },
      { query: 'x y' },
    )
    expect(error.message).toContain(message)
    expect(notices).toHaveLength(1)
    expect(notices[0]).toContain(message)
  })
})

describe('domain filters', () => {
  it('normalizes what the model gives', () => {
    expect(normalizeDomains(['https://www.Example.com/path', '*.docs.rs', 'python.org.', ''])).toEqual([
      'example.com',
      'docs.rs',
      'python.org',
    ])
  })

  it.each<[string, string[], string[], boolean]>([
    ['https://docs.python.org/3/', ['python.org'], [], true],
    ['https://notpython.org/', ['python.org'], [], false],
    ['https://a.example.com/', [], ['example.com'], false],
    ['https://example.org/', [], ['example.com'], true],
    ['not a url', [], [], false],
  ])('%s allowed=%j blocked=%j → %s', (url, allowed, blocked, expected) => {
    expect(passes(url, allowed, blocked)).toBe(expected)
  })
})
