import http, { type IncomingMessage } from 'node:http'
import https from 'node:https'
import { StringDecoder } from 'node:string_decoder'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'

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

interface BodyEvents {
  data(chunk: Buffer): void
  /** Exactly one of `end` and `error` is called, once. */
  end(): void
  error(err: unknown): void
}

interface AttachedBody {
  pause(): void
  resume(): void
  /** Stops delivering and destroys the body (a reader that gave up). */
  stop(): void
}

function terminated(): Error {
  return Object.assign(new Error('terminated'), { code: 'ECONNRESET' })
}

/**
 * Starts reading a response body into `events`. Until this is called the body waits unread in the
 * socket, so whoever reads it first (a web stream or `readText`) sees all of it. An abort or a socket
 * closed before the body ended (as fetch reports it: "terminated") is an error.
 */
function attachBody(res: IncomingMessage, signal: AbortSignal | undefined, events: BodyEvents): AttachedBody {
  let done = false
  let onAbort: (() => void) | undefined
  let source: NodeJS.ReadableStream = res
  const destroy = () => {
    res.destroy()
    if (source !== res) (source as NodeJS.ReadableStream & { destroy(): void }).destroy()
  }
  const finish = (err?: unknown) => {
    if (done) return
    done = true
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort)
    if (err === undefined) events.end()
    else events.error(err)
  }
  const handle: AttachedBody = {
    pause: () => source.pause(),
    resume: () => source.resume(),
    stop: () => {
      finish(new Error('body reading stopped'))
      destroy()
    },
  }
  if (signal?.aborted === true) {
    finish(abortReason(signal))
    res.destroy()
    return handle
  }
  if (res.destroyed && !res.complete) {
    finish(terminated())
    return handle
  }
  source = decoded(res)
  source.on('data', (chunk: Buffer) => {
    if (!done) events.data(chunk)
  })
  source.on('end', () => finish())
  source.on('error', (err) => finish(err))
  // A decoder does not see its source fail: listen on the response itself too.
  if (source !== res) res.on('error', (err) => finish(err))
  res.on('close', () => {
    if (!res.complete) finish(terminated())
  })
  if (signal !== undefined) {
    onAbort = () => {
      finish(abortReason(signal))
      destroy()
    }
    signal.addEventListener('abort', onAbort, { once: true })
  }
  return handle
}

/** A response body nobody has started reading; `claimed` once a reader took it. */
interface PendingBody {
  res: IncomingMessage
  signal: AbortSignal | undefined
  claimed: boolean
}

function claimedTwice(): TypeError {
  return new TypeError('the response body was already taken by another reader')
}

/** A web stream over the body that starts reading it only when read, and pauses the socket while behind. */
function webBody(body: PendingBody): ReadableStream<Uint8Array> {
  let attached: AttachedBody | undefined
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (attached !== undefined) {
          attached.resume()
          return
        }
        if (body.claimed) {
          controller.error(claimedTwice())
          return
        }
        body.claimed = true
        attached = attachBody(body.res, body.signal, {
          data(chunk) {
            controller.enqueue(chunk)
            if ((controller.desiredSize ?? 1) <= 0) attached?.pause()
          },
          end: () => controller.close(),
          error: (err) => controller.error(err),
        })
      },
      cancel() {
        if (attached !== undefined) attached.stop()
        else if (!body.claimed) {
          body.claimed = true
          body.res.destroy()
        }
      },
    },
    // Nothing is read ahead of a reader: until one asks, the body stays in the socket, claimable by readText.
    { highWaterMark: 0 },
  )
}

/** Reads a body that did not come from this fetch (or was already opened as a web stream). */
async function readWebText(response: Response, onText: (text: string) => void): Promise<void> {
  if (response.body === null) return
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      const text = decoder.decode(r.value, { stream: true })
      if (text !== '') onText(text)
    }
    const rest = decoder.decode()
    if (rest !== '') onText(rest)
  } catch (err) {
    reader.cancel(err).catch(() => {})
    throw err
  }
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
  const pending = new WeakMap<Response, PendingBody>()
  const fetchOver = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
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
      const body: PendingBody = { res, signal: attempt.signal, claimed: false }
      const response = new Response(hasBody ? webBody(body) : null, {
        status,
        statusText: res.statusMessage ?? '',
        headers: responseHeaders(res),
      })
      if (hasBody) pending.set(response, body)
      return response
    }
  }
  const readText = (response: Response, onText: (text: string) => void): Promise<void> => {
    const body = pending.get(response)
    if (body === undefined || body.claimed) return readWebText(response, onText)
    body.claimed = true
    return new Promise<void>((resolve, reject) => {
      const decoder = new StringDecoder('utf8')
      const deliver = (text: string): boolean => {
        if (text === '') return true
        try {
          onText(text)
          return true
        } catch (err) {
          reject(err)
          return false
        }
      }
      const attached = attachBody(body.res, body.signal, {
        data(chunk) {
          if (!deliver(decoder.write(chunk))) attached.stop()
        },
        end() {
          if (deliver(decoder.end())) resolve()
        },
        error: reject,
      })
    })
  }
  return Object.assign(fetchOver, { readText })
}
