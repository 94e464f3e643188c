/**
 * A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for tests and benchmarks. Replies are
 * queued in order; each chat request takes the next one. Every request is recorded and its history is
 * checked against the tool_calls ↔ tool pairing rule. Only `node:` imports, so it also runs directly
 * under Node's type stripping (see serve-scenario.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { checkPairing, checkWellFormed } from './pairing-check.ts'
import { buildCompletion, buildStreamChunks, type ChunkContext } from './scripted-chunks.ts'
import { countPromptTokens, nativeAnswer, overWindowError } from './scripted-window.ts'
import type {
  RecordedRequest,
  ReplySource,
  ScriptedCompletion,
  ScriptedHttpError,
  ScriptedReply,
  ScriptedServer,
  ScriptedServerOptions,
} from './scripted-types.ts'

export { checkPairing, checkWellFormed } from './pairing-check.ts'
export type {
  RecordedRequest,
  ReplySource,
  ScriptedCompletion,
  ScriptedHttpError,
  ScriptedModel,
  ScriptedNative,
  ScriptedReply,
  ScriptedReset,
  ScriptedServer,
  ScriptedServerOptions,
  ScriptedToolCall,
  ScriptedUsage,
  ScriptedWindow,
} from './scripted-types.ts'

const EXHAUSTED: ScriptedCompletion = { text: '(script exhausted)' }

interface Waiter {
  n: number
  resolve: () => void
  reject: (err: Error) => void
  timer: NodeJS.Timeout
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')))
    req.on('error', reject)
  })
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

function sendHttpError(res: ServerResponse, reply: ScriptedHttpError): void {
  const headers = reply.headers ?? {}
  if (typeof reply.body === 'string') {
    res.writeHead(reply.status, { 'content-type': 'text/plain; charset=utf-8', ...headers })
    res.end(reply.body)
    return
  }
  const body = reply.body ?? {
    error: {
      message: `scripted error ${reply.status}`,
      type: reply.status >= 500 ? 'server_error' : 'invalid_request_error',
      code: null,
    },
  }
  sendJson(res, reply.status, body, headers)
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Streams the chunks, applying the scripted faults at their chunk counts. */
async function writeStream(res: ServerResponse, reply: ScriptedCompletion, chunks: unknown[]): Promise<void> {
  let closed = false
  const closedPromise = new Promise<void>((resolve) => {
    res.on('close', () => {
      closed = true
      resolve()
    })
  })
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  })
  res.flushHeaders()
  // Without a delay, chunks are batched into one write: "as fast as the endpoint can" for benchmarks.
  let pending: string[] = []
  const flush = () => {
    if (pending.length > 0 && !closed) res.write(pending.join(''))
    pending = []
  }
  const pace = reply.chunkDelayMs ?? 0
  for (let sent = 0; sent <= chunks.length; sent++) {
    if (closed) return
    if (sent === reply.cutAfterChunks) {
      flush()
      res.end()
      return
    }
    if (sent === reply.hangAfterChunks) {
      flush()
      await closedPromise
      return
    }
    if (sent === reply.malformedAfterChunks) pending.push('data: {"id":"broken", "choices": [\n\n')
    if (sent === reply.streamErrorAfterChunks) {
      const error = { message: 'scripted stream error', type: 'server_error', code: 500 }
      pending.push(`data: ${JSON.stringify({ error })}\n\n`)
      flush()
      res.end()
      return
    }
    const chunk = chunks[sent]
    if (chunk === undefined) break
    pending.push(`data: ${JSON.stringify(chunk)}\n\n`)
    if (pace > 0) {
      flush()
      await delay(pace)
    }
  }
  if (reply.noDone !== true) pending.push('data: [DONE]\n\n')
  flush()
  if (!closed) res.end()
}

/**
 * Starts the server on 127.0.0.1 (random port unless `port` is given). Routes: POST /v1/chat/completions
 * (streaming and non-streaming), GET /v1/models. Everything else answers 404.
 */
export async function startScriptedServer(opts: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  const queue: ReplySource[] = [...(opts.replies ?? [])]
  const requests: RecordedRequest[] = []
  const pairingViolations: string[] = []
  const modelListings: Array<Record<string, string>> = []
  const models = opts.models ?? [{ id: 'test-model' }]
  const modelsFaults = [...(opts.modelsFaults ?? [])]
  const waiters = new Set<Waiter>()
  const counters = { unexpected: 0, responses: 0, inFlight: 0, maxInFlight: 0, overWindow: 0 }
  const inFlightWaiters = new Set<() => void>()
  /** Resolves once `n` requests are open at once, or after `timeoutMs`. */
  const waitInFlight = (n: number, timeoutMs: number) =>
    new Promise<void>((resolve) => {
      if (counters.inFlight >= n) return resolve()
      const check = () => {
        if (counters.inFlight < n) return
        clearTimeout(timer)
        inFlightWaiters.delete(check)
        resolve()
      }
      const timer = setTimeout(() => {
        inFlightWaiters.delete(check)
        resolve()
      }, timeoutMs)
      inFlightWaiters.add(check)
    })

  const notify = () => {
    for (const waiter of waiters) {
      if (requests.length >= waiter.n) {
        clearTimeout(waiter.timer)
        waiters.delete(waiter)
        waiter.resolve()
      }
    }
  }

  const nextReply = (recorded: RecordedRequest): ScriptedReply => {
    const source = queue.shift() ?? opts.fallback
    if (source === undefined) {
      counters.unexpected += 1
      return EXHAUSTED
    }
    return typeof source === 'function' ? source(recorded) : source
  }

  const handleChat = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    const arrivedAt = performance.now()
    const raw = await readBody(req)
    let body: Record<string, unknown>
    try {
      const parsed: unknown = JSON.parse(raw)
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('not an object')
      body = parsed as Record<string, unknown>
    } catch {
      sendJson(res, 400, {
        error: { message: 'request body is not a JSON object', type: 'invalid_request_error' },
      })
      return
    }
    const recorded: RecordedRequest = {
      body,
      headers: flatHeaders(req),
      path,
      receivedAt: Date.now(),
      arrivedAt,
      respondedAt: null,
    }
    res.once('finish', () => {
      recorded.respondedAt = performance.now()
    })
    counters.inFlight += 1
    counters.maxInFlight = Math.max(counters.maxInFlight, counters.inFlight)
    res.once('close', () => {
      counters.inFlight -= 1
    })
    for (const check of [...inFlightWaiters]) check()
    const window = opts.contextWindow
    if (window) recorded.promptTokens = countPromptTokens(body, window)
    requests.push(recorded)
    const messages = Array.isArray(body.messages) ? body.messages : []
    const violation = checkPairing(messages) ?? checkWellFormed(messages)
    if (violation !== null) pairingViolations.push(`request ${requests.length}: ${violation}`)
    notify()

    if (window && recorded.promptTokens !== undefined && recorded.promptTokens > window.tokens) {
      // A real server with this window refuses the request; the script's reply is not used up.
      counters.overWindow += 1
      sendHttpError(res, overWindowError(recorded.promptTokens, window))
      return
    }
    const reply = nextReply(recorded)
    if ('reset' in reply) {
      req.socket.destroy()
      return
    }
    if ('status' in reply) {
      sendHttpError(res, reply)
      return
    }
    if (reply.holdUntilInFlight !== undefined)
      await waitInFlight(reply.holdUntilInFlight, reply.holdTimeoutMs ?? 10_000)
    counters.responses += 1
    const streamOptions = body.stream_options as { include_usage?: unknown } | undefined
    const ctx: ChunkContext = {
      id: `chatcmpl-scripted-${counters.responses}`,
      model: typeof body.model === 'string' ? body.model : 'test-model',
      requestChars: JSON.stringify(messages).length,
      ...(recorded.promptTokens !== undefined ? { promptTokens: recorded.promptTokens } : {}),
      includeUsage: streamOptions?.include_usage === true,
      callIdPrefix: `call_s${counters.responses}`,
    }
    if (body.stream === true && reply.ignoreStream !== true) {
      await writeStream(res, reply, buildStreamChunks(reply, ctx))
    } else {
      sendJson(res, 200, buildCompletion(reply, ctx))
    }
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    const route = path.replace(/^\/v1(?=\/)/, '')
    if (req.method === 'POST' && route === '/chat/completions') return handleChat(req, res, path)
    if (opts.native) {
      const raw = req.method === 'POST' ? await readBody(req) : ''
      let parsed: unknown
      try {
        parsed = raw ? JSON.parse(raw) : undefined
      } catch {
        parsed = undefined
      }
      const answer = nativeAnswer(opts.native, req.method ?? 'GET', path, parsed)
      if (answer !== undefined) return sendJson(res, 200, answer)
    }
    if (req.method === 'GET' && route === '/models') {
      modelListings.push(flatHeaders(req))
      const fault = modelsFaults.shift()
      if (fault !== undefined && 'reset' in fault) {
        req.socket.destroy()
        return
      }
      if (fault !== undefined) {
        sendHttpError(res, fault)
        return
      }
      const data = models.map((m) => ({
        object: 'model',
        created: 1_700_000_000,
        owned_by: 'scripted',
        ...m,
      }))
      return sendJson(res, 200, { object: 'list', data })
    }
    sendJson(res, 404, {
      error: { message: `no route for ${req.method} ${path}`, type: 'invalid_request_error' },
    })
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `scripted server bug: ${String(err)}` } })
      else res.destroy()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    pairingViolations,
    modelListings,
    get unexpectedRequests() {
      return counters.unexpected
    },
    get maxInFlight() {
      return counters.maxInFlight
    },
    get overWindow() {
      return counters.overWindow
    },
    enqueue(...replies: ReplySource[]) {
      queue.push(...replies)
    },
    waitForRequests(n: number, timeoutMs = 10_000) {
      if (requests.length >= n) return Promise.resolve()
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          n,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters.delete(waiter)
            reject(
              new Error(
                `scripted server: expected ${n} requests within ${timeoutMs} ms, got ${requests.length}`,
              ),
            )
          }, timeoutMs),
        }
        waiters.add(waiter)
      })
    },
    close() {
      for (const waiter of waiters) {
        clearTimeout(waiter.timer)
        waiter.reject(new Error(`scripted server closed after ${requests.length} of ${waiter.n} requests`))
      }
      waiters.clear()
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()))
        server.closeAllConnections()
      })
    },
  }
}
