import { ToolError } from '../types.js'
import { sendHttpRequest } from './http-request.js'
import type { SearchProviderName, SearchSettings } from './types.js'

export interface SearchResult {
  title: string
  url: string
  snippet: string
}

export interface SearchQuery {
  query: string
  allowedDomains: string[]
  blockedDomains: string[]
  /** Results wanted (providers are asked for a few more when domains are filtered here). */
  count: number
}

/** One search backend: the HTTP request it sends and how its JSON answer becomes results. */
export interface SearchProvider {
  readonly name: SearchProviderName
  search(query: SearchQuery, signal: AbortSignal): Promise<SearchResult[]>
}

interface ProviderSpec {
  defaultUrl: string | undefined
  /** Appended to `url` unless it already ends with it. */
  path: string
  defaultKeyEnv: string | undefined
  build(
    q: SearchQuery,
    key: string | undefined,
  ): {
    method: 'GET' | 'POST'
    query?: Record<string, string>
    headers: Record<string, string>
    body?: unknown
  }
  parse(json: unknown): SearchResult[]
}

const SPECS: Record<SearchProviderName, ProviderSpec> = {
  searxng: {
    defaultUrl: undefined,
    path: '/search',
    defaultKeyEnv: undefined,
    build: (q, key) => ({
      method: 'GET',
      query: { q: withSiteOperator(q), format: 'json' },
      headers: key ? { authorization: `Bearer ${key}` } : ({} as Record<string, string>),
    }),
    parse: (json) =>
      list(json, 'results').map((r) => ({ title: str(r.title), url: str(r.url), snippet: str(r.content) })),
  },
  brave: {
    defaultUrl: 'https://api.search.brave.com',
    path: '/res/v1/web/search',
    defaultKeyEnv: 'BRAVE_API_KEY',
    build: (q, key) => ({
      method: 'GET',
      query: { q: withSiteOperator(q), count: String(Math.min(20, q.count)) },
      headers: { 'x-subscription-token': key ?? '' },
    }),
    parse: (json) =>
      list(obj(json).web, 'results').map((r) => ({
        title: str(r.title),
        url: str(r.url),
        snippet: stripTags(str(r.description)),
      })),
  },
  tavily: {
    defaultUrl: 'https://api.tavily.com',
    path: '/search',
    defaultKeyEnv: 'TAVILY_API_KEY',
    build: (q, key) => ({
      method: 'POST',
      headers: { authorization: `Bearer ${key ?? ''}`, 'content-type': 'application/json' },
      body: {
        query: q.query,
        max_results: Math.min(20, q.count),
        ...(q.allowedDomains.length ? { include_domains: q.allowedDomains } : {}),
        ...(q.blockedDomains.length ? { exclude_domains: q.blockedDomains } : {}),
      },
    }),
    parse: (json) =>
      list(json, 'results').map((r) => ({ title: str(r.title), url: str(r.url), snippet: str(r.content) })),
  },
  exa: {
    defaultUrl: 'https://api.exa.ai',
    path: '/search',
    defaultKeyEnv: 'EXA_API_KEY',
    build: (q, key) => ({
      method: 'POST',
      headers: { 'x-api-key': key ?? '', 'content-type': 'application/json' },
      body: {
        query: q.query,
        numResults: q.count,
        ...(q.allowedDomains.length ? { includeDomains: q.allowedDomains } : {}),
        ...(q.blockedDomains.length ? { excludeDomains: q.blockedDomains } : {}),
        contents: { highlights: true },
      },
    }),
    parse: (json) =>
      list(json, 'results').map((r) => {
        const highlights = Array.isArray(r.highlights) ? r.highlights.map(str).filter(Boolean) : []
        const snippet = highlights.join(' … ') || str(r.summary) || str(r.text).slice(0, 400)
        return { title: str(r.title), url: str(r.url), snippet }
      }),
  },
}

/** Why search cannot run with these settings (no URL, no API key): a message and where to fix it. */
export class SearchConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SearchConfigError'
  }
}

/** The provider the settings name, or a SearchConfigError saying exactly what is missing. */
export function createSearchProvider(
  settings: SearchSettings,
  env: Readonly<Record<string, string | undefined>>,
): SearchProvider {
  const name = settings.provider
  const spec = SPECS[name]
  const base = settings.url ?? spec.defaultUrl
  if (!base) {
    throw new SearchConfigError(
      `search provider "${name}" needs "search.url", the address of the instance (e.g. "http://127.0.0.1:8888")`,
    )
  }
  const keyEnv = settings.apiKeyEnv ?? spec.defaultKeyEnv
  const key = keyEnv ? env[keyEnv]?.trim() || undefined : undefined
  if (keyEnv && !key) {
    throw new SearchConfigError(
      `search provider "${name}" needs an API key in the environment variable ${keyEnv}, which is not set`,
    )
  }
  const endpoint = endpointOf(base, spec.path)
  return {
    name,
    async search(q, signal) {
      const request = spec.build(q, key)
      const url = new URL(endpoint)
      for (const [k, v] of Object.entries(request.query ?? {})) url.searchParams.set(k, v)
      const response = await sendHttpRequest({
        url,
        method: request.method,
        headers: { accept: 'application/json', 'user-agent': 'agent-tui WebSearch', ...request.headers },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal,
        maxBytes: 4 * 1024 * 1024,
      })
      const text = response.body.toString('utf8')
      if (response.status < 200 || response.status > 299) throw httpError(name, response.status, text, keyEnv)
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        throw new ToolError(
          'network',
          `${name} at ${url.origin} did not answer with JSON (${String(response.headers['content-type'] ?? 'no content type')}): ${text.slice(0, 200)}`,
          {
            hint:
              name === 'searxng'
                ? 'enable the json format in the instance (search.formats in settings.yml)'
                : '',
          },
        )
      }
      return spec.parse(json).filter((r) => r.url !== '')
    },
  }
}

function endpointOf(base: string, path: string): string {
  const url = new URL(base)
  const current = url.pathname.replace(/\/+$/, '')
  url.pathname = current.endsWith(path) ? current : `${current}${path}`
  return url.href
}

function httpError(name: string, status: number, body: string, keyEnv: string | undefined): ToolError {
  const excerpt = body.replace(/\s+/g, ' ').trim().slice(0, 200)
  const detail = `${name} answered HTTP ${status}${excerpt ? `: ${excerpt}` : ''}`
  if ((status === 401 || status === 403) && keyEnv) {
    return new ToolError('network', `${detail}`, {
      hint: `the API key in ${keyEnv} was rejected; ask the user to check it`,
    })
  }
  if (status === 403 && name === 'searxng') {
    return new ToolError('network', detail, {
      hint: 'the instance refuses the JSON API; enable it with search.formats: [html, json] in its settings.yml',
    })
  }
  const retryable = status === 429 || status >= 500
  return new ToolError('network', detail, {
    retryable,
    ...(status === 429 ? { hint: 'rate limited; wait before searching again' } : {}),
  })
}

/** SearXNG and Brave have no domain parameter; one allowed domain becomes a `site:` operator. */
function withSiteOperator(q: SearchQuery): string {
  return q.allowedDomains.length === 1 ? `${q.query} site:${q.allowedDomains[0]}` : q.query
}

type Json = Record<string, unknown>

function obj(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {}
}

function list(value: unknown, key: string): Json[] {
  const items = obj(value)[key]
  return Array.isArray(items) ? items.map(obj) : []
}

function str(value: unknown): string {
  return typeof value === 'string' ? value.trim() : ''
}

function stripTags(text: string): string {
  return text.replace(/<\/?[a-z][^>]*>/gi, '')
}
