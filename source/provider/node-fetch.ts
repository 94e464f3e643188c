import type { IncomingMessage } from 'node:http'
import { createRequire } from 'node:module'
import { abortReason, NodeResponse, readResponseText } from './node-response.js'
import { PlainHeaders } from './plain-headers.js'

/**
 * A `fetch` for the openai SDK over `node:http`, because the global fetch (undici) spends more CPU on
 * its own machinery than an agent step spends on everything else: per request it builds and validates a
 * Request, copies the body twice and pipes every chunk through several stream layers. Only what the SDK
 * sends is taken here: a string or byte body; anything else goes to the global fetch.
 */
export interface NodeFetch {
  (input: string | URL | Request, init?: RequestInit): Promise<Response>
  /**
   * Reads a response's body as UTF-8 text, handed to `onText` chunk by chunk as it arrives (a character
   * split between chunks arrives whole). For a response of this fetch it takes the body straight from
   * the socket, with no web stream or promise per chunk: a token stream arrives as hundreds of small
   * chunks a second. Resolves at the end of the body; rejects on a network error, an abort, or when
   * `onText` throws (the body is then closed).
   */
  readText(response: Response, onText: (text: string) => void): Promise<void>
}

// Required, not imported: an ES import of node:http reads every export for its namespace, and three of
// them (WebSocket, CloseEvent, MessageEvent) are getters that load undici (~5 MB, ~45 ms of CPU).
// node:https (and with it tls, ~3 MB) only once an https URL is fetched: a local server needs neither.
const require = createRequire(import.meta.url)
const http: typeof import('node:http') = require('node:http')
const loadHttps = (): typeof import('node:https') => require('node:https')

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304])
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308])
const MAX_REDIRECTS = 20

interface Attempt {
  url: URL
  method: string
  headers: Record<string, string>
  body: string | Uint8Array | undefined
  signal: AbortSignal | undefined
}

function headerRecord(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  if (init === undefined) return out
  new PlainHeaders(init).forEach((value, name) => {
    out[name] = value
  })
  return out
}

function responseHeaders(res: IncomingMessage): PlainHeaders {
  const headers = new PlainHeaders()
  const raw = res.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string)
  return headers
}

/** The keep-alive pool for a URL's protocol: the https one is made on the first https request. */
interface Agents {
  http: import('node:http').Agent
  https(): import('node:https').Agent
}

function send(attempt: Attempt, agents: Agents): Promise<IncomingMessage> {
  const { url, method, headers, body, signal } = attempt
  return new Promise((resolve, reject) => {
    const secure = url.protocol === 'https:'
    const request = (secure ? loadHttps() : http).request(url, {
      method,
      headers,
      agent: secure ? agents.https() : agents.http,
      ...(signal !== undefined ? { signal } : {}),
    })
    request.once('response', resolve)
    request.once('error', (err) => reject(signal?.aborted === true ? abortReason(signal) : err))
    request.end(body)
  })
}

function redirected(attempt: Attempt, res: IncomingMessage, originOnly: ReadonlySet<string>): Attempt | null {
  const location = res.headers.location
  if (!REDIRECT_STATUS.has(res.statusCode ?? 0) || location === undefined) return null
  const url = new URL(location, attempt.url)
  const headers = { ...attempt.headers }
  // As fetch does: credentials stay with their origin, and a 303 (or a POST moved by 301/302) becomes a GET.
  // The user's own endpoint headers (a gateway key) stay with it too.
  if (url.origin !== attempt.url.origin) {
    for (const name of Object.keys(headers))
      if (name.toLowerCase() === 'authorization' || originOnly.has(name.toLowerCase())) delete headers[name]
  }
  const status = res.statusCode ?? 0
  const toGet = status === 303 || ((status === 301 || status === 302) && attempt.method === 'POST')
  if (!toGet) return { ...attempt, url, headers }
  delete headers['content-type']
  delete headers['content-length']
  return { ...attempt, url, headers, method: 'GET', body: undefined }
}

export interface NodeFetchOptions {
  /** Header names (any case) that are dropped, like `authorization`, when a redirect leaves the origin. */
  originOnlyHeaders?: readonly string[]
}

/** One keep-alive connection pool per fetch, so a session reuses its sockets across steps. */
export function createNodeFetch(opts: NodeFetchOptions = {}): NodeFetch {
  const originOnly = new Set((opts.originOnlyHeaders ?? []).map((name) => name.toLowerCase()))
  const proxyEnv = process.env.NODE_USE_ENV_PROXY === '1' ? { proxyEnv: process.env } : {}
  let httpsAgent: import('node:https').Agent | undefined
  const agents: Agents = {
    http: new http.Agent({ keepAlive: true, scheduling: 'lifo', ...proxyEnv }),
    https: () => {
      httpsAgent ??= new (loadHttps().Agent)({ keepAlive: true, scheduling: 'lifo', ...proxyEnv })
      return httpsAgent
    },
  }
  const fetchOver = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const body = init.body ?? undefined
    const plainBody = body === undefined || typeof body === 'string' || body instanceof Uint8Array
    // A Request is the one object input; asking `instanceof Request` would load undici.
    const isRequest = typeof input === 'object' && !(input instanceof URL)
    if (isRequest || !plainBody) return fetch(input, init)
    if (init.signal?.aborted) throw abortReason(init.signal)
    const headers = headerRecord(init.headers)
    // A known length, as fetch sends it: some servers and proxies refuse chunked request bodies.
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body as string | Uint8Array))
    headers['accept-encoding'] ??= 'gzip, deflate, br'
    let attempt: Attempt = {
      url: new URL(String(input)),
      method: (init.method ?? 'GET').toUpperCase(),
      headers,
      body: body as string | Uint8Array | undefined,
      signal: init.signal ?? undefined,
    }
    for (let hops = 0; ; hops++) {
      const res = await send(attempt, agents)
      const next = init.redirect === 'manual' ? null : redirected(attempt, res, originOnly)
      if (next !== null) {
        res.resume()
        if (hops >= MAX_REDIRECTS) throw new TypeError(`too many redirects from ${attempt.url.href}`)
        attempt = next
        continue
      }
      const status = res.statusCode ?? 0
      // As the Response constructor refuses them.
      if (status < 200 || status > 599) {
        res.resume()
        throw new RangeError(`${attempt.url.href} answered with status ${status}`)
      }
      const hasBody = !NULL_BODY_STATUS.has(status) && attempt.method !== 'HEAD'
      if (!hasBody) res.resume()
      return new NodeResponse({
        status,
        statusText: res.statusMessage ?? '',
        headers: responseHeaders(res),
        res: hasBody ? res : null,
        signal: attempt.signal,
      })
    }
  }
  const readText = readResponseText
  return Object.assign(fetchOver, { readText })
}
