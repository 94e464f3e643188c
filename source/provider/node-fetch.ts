import http, { type IncomingMessage } from 'node:http'
import https from 'node:https'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'

/**
 * A `fetch` for the openai SDK over `node:http`, because the global fetch (undici) spends more CPU on
 * its own machinery than an agent step spends on everything else: per request it builds and validates a
 * Request, copies the body twice and pipes every chunk through several stream layers. Only what the SDK
 * sends is taken here: a string or byte body; anything else goes to the global fetch.
 */
export type NodeFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

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

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError')
}

function headerRecord(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  if (init === undefined) return out
  new Headers(init).forEach((value, name) => {
    out[name] = value
  })
  return out
}

function responseHeaders(res: IncomingMessage): Headers {
  const headers = new Headers()
  const raw = res.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string)
  return headers
}

function decoded(res: IncomingMessage): NodeJS.ReadableStream {
  const encoding = res.headers['content-encoding']?.trim().toLowerCase()
  if (encoding === 'gzip' || encoding === 'x-gzip') return res.pipe(createGunzip())
  if (encoding === 'deflate') return res.pipe(createInflate())
  if (encoding === 'br') return res.pipe(createBrotliDecompress())
  return res
}

/** A web stream over a node one that pauses the socket while the reader is behind and closes it on cancel. */
function webBody(res: IncomingMessage, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  const source = decoded(res)
  const destroy = () => {
    res.destroy()
    if (source !== res) (source as NodeJS.ReadableStream & { destroy(): void }).destroy()
  }
  let onAbort: (() => void) | undefined
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let done = false
      const finish = (err?: unknown) => {
        if (done) return
        done = true
        if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort)
        if (err === undefined) controller.close()
        else controller.error(err)
      }
      source.on('data', (chunk: Buffer) => {
        if (done) return
        controller.enqueue(chunk)
        if ((controller.desiredSize ?? 1) <= 0) source.pause()
      })
      source.on('end', () => finish())
      source.on('error', (err) => finish(err))
      // A decoder does not see its source fail: listen on the response itself too.
      if (source !== res) res.on('error', (err) => finish(err))
      // A socket closed before the body ended is an error, as fetch reports it ("terminated").
      res.on('close', () => {
        if (!res.complete) finish(Object.assign(new Error('terminated'), { code: 'ECONNRESET' }))
      })
      if (signal !== undefined) {
        onAbort = () => {
          finish(abortReason(signal))
          destroy()
        }
        signal.addEventListener('abort', onAbort, { once: true })
      }
    },
    pull() {
      source.resume()
    },
    cancel() {
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort)
      destroy()
    },
  })
}

function send(attempt: Attempt, agents: { http: http.Agent; https: https.Agent }): Promise<IncomingMessage> {
  const { url, method, headers, body, signal } = attempt
  return new Promise((resolve, reject) => {
    const secure = url.protocol === 'https:'
    const request = (secure ? https : http).request(url, {
      method,
      headers,
      agent: secure ? agents.https : agents.http,
      ...(signal !== undefined ? { signal } : {}),
    })
    request.once('response', resolve)
    request.once('error', (err) => reject(signal?.aborted === true ? abortReason(signal) : err))
    request.end(body)
  })
}

function redirected(attempt: Attempt, res: IncomingMessage): Attempt | null {
  const location = res.headers.location
  if (!REDIRECT_STATUS.has(res.statusCode ?? 0) || location === undefined) return null
  const url = new URL(location, attempt.url)
  const headers = { ...attempt.headers }
  // As fetch does: credentials stay with their origin, and a 303 (or a POST moved by 301/302) becomes a GET.
  if (url.origin !== attempt.url.origin) delete headers.authorization
  const status = res.statusCode ?? 0
  const toGet = status === 303 || ((status === 301 || status === 302) && attempt.method === 'POST')
  if (!toGet) return { ...attempt, url, headers }
  delete headers['content-type']
  delete headers['content-length']
  return { ...attempt, url, headers, method: 'GET', body: undefined }
}

/** One keep-alive connection pool per fetch, so a session reuses its sockets across steps. */
export function createNodeFetch(): NodeFetch {
  const proxyEnv = process.env.NODE_USE_ENV_PROXY === '1' ? { proxyEnv: process.env } : {}
  const agents = {
    http: new http.Agent({ keepAlive: true, scheduling: 'lifo', ...proxyEnv }),
    https: new https.Agent({ keepAlive: true, scheduling: 'lifo', ...proxyEnv }),
  }
  return async (input, init = {}) => {
    const body = init.body ?? undefined
    const plainBody = body === undefined || typeof body === 'string' || body instanceof Uint8Array
    if (input instanceof Request || !plainBody) return fetch(input, init)
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
      const next = init.redirect === 'manual' ? null : redirected(attempt, res)
      if (next !== null) {
        res.resume()
        if (hops >= MAX_REDIRECTS) throw new TypeError(`too many redirects from ${attempt.url.href}`)
        attempt = next
        continue
      }
      const status = res.statusCode ?? 0
      const hasBody = !NULL_BODY_STATUS.has(status) && attempt.method !== 'HEAD'
      if (!hasBody) res.resume()
      return new Response(hasBody ? webBody(res, attempt.signal) : null, {
        status,
        statusText: res.statusMessage ?? '',
        headers: responseHeaders(res),
      })
    }
  }
}
