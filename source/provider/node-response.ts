import type { IncomingMessage } from 'node:http'
import { StringDecoder } from 'node:string_decoder'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import type { PlainHeaders } from './plain-headers.js'

/** What an abort rejects with: the signal's reason, or an AbortError as fetch gives it. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError')
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
 * socket, so whoever reads it first (a web stream, `text()` or `readResponseText`) sees all of it. An
 * abort or a socket closed before the body ended (as fetch reports it: "terminated") is an error.
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

/** What a body's web stream carries (Buffers are these, on a plain ArrayBuffer). */
type Bytes = Uint8Array<ArrayBuffer>

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
function webBody(body: PendingBody): ReadableStream<Bytes> {
  let attached: AttachedBody | undefined
  return new ReadableStream<Bytes>(
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
            controller.enqueue(chunk as Bytes)
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
    // Nothing is read ahead of a reader: until one asks, the body stays in the socket, claimable by the others.
    { highWaterMark: 0 },
  )
}

/** The whole body, taken straight from the socket. */
function collect(body: PendingBody): Promise<Bytes> {
  body.claimed = true
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    attachBody(body.res, body.signal, {
      data: (chunk) => parts.push(chunk),
      end: () => resolve(Buffer.concat(parts) as Bytes),
      error: reject,
    })
  })
}

async function collectStream(stream: ReadableStream<Bytes>): Promise<Bytes> {
  const reader = stream.getReader()
  const parts: Bytes[] = []
  for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value)
  return Buffer.concat(parts) as Bytes
}

export interface ResponseParts {
  status: number
  statusText: string
  headers: PlainHeaders
  /** The socket's response, its body unread; null for a response without a body (204, HEAD, …). */
  res: IncomingMessage | null
  signal: AbortSignal | undefined
}

/**
 * A fetch `Response` over a `node:http` response. The global `Response` is undici's, whose first use
 * loads undici (see `plain-headers.ts`); this one does what a client does with a response: status and
 * headers, the body as a web stream (made when first asked for), as text, JSON or bytes (read straight
 * from the socket when nothing else has started on it), a clone. As a `Response` made with `new
 * Response()`, its `url` is empty and its `type` is "default".
 */
export class NodeResponse implements Response {
  readonly status: number
  readonly statusText: string
  readonly ok: boolean
  readonly headers: PlainHeaders
  readonly url = ''
  readonly redirected = false
  readonly type: ResponseType = 'default'
  readonly #pending: PendingBody | null
  #stream: ReadableStream<Bytes> | null
  /** Set once the body must be read through `#stream` (a clone shares it through a tee). */
  #streamOnly: boolean

  constructor(parts: ResponseParts, stream: ReadableStream<Bytes> | null = null) {
    this.status = parts.status
    this.statusText = parts.statusText
    this.ok = parts.status >= 200 && parts.status <= 299
    this.headers = parts.headers
    this.#pending = parts.res === null ? null : { res: parts.res, signal: parts.signal, claimed: false }
    this.#stream = stream
    this.#streamOnly = stream !== null
  }

  get body(): ReadableStream<Bytes> | null {
    if (this.#stream === null && this.#pending !== null) this.#stream = webBody(this.#pending)
    return this.#stream
  }

  get bodyUsed(): boolean {
    if (this.#pending?.claimed === true && !this.#streamOnly) return true
    return this.#stream?.locked === true
  }

  /** The unread socket body, now taken by the caller; null when it is gone or must be read as a stream. */
  claimSocket(): PendingBody | null {
    if (this.#pending === null || this.#pending.claimed || this.#streamOnly) return null
    this.#pending.claimed = true
    return this.#pending
  }

  async bytes(): Promise<Bytes> {
    const pending = this.#pending
    if (pending !== null && !this.#streamOnly) {
      if (pending.claimed) throw claimedTwice()
      return collect(pending)
    }
    if (this.#stream === null) return new Uint8Array(0)
    if (this.#stream.locked) throw claimedTwice()
    return collectStream(this.#stream)
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes()
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes())
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text())
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.headers.get('content-type') ?? '' })
  }

  /** Rare for a client: handed to the global Response (and so undici) only when asked for. */
  async formData(): Promise<FormData> {
    return new Response(await this.bytes(), { headers: this.headers }).formData()
  }

  clone(): NodeResponse {
    if (this.bodyUsed) throw new TypeError('Response.clone: the body has already been read')
    const parts = { status: this.status, statusText: this.statusText, res: null, signal: undefined }
    const body = this.body
    if (body === null) return new NodeResponse({ ...parts, headers: this.headers })
    const [mine, theirs] = body.tee()
    this.#stream = mine
    this.#streamOnly = true
    return new NodeResponse({ ...parts, headers: this.headers }, theirs)
  }

  get [Symbol.toStringTag](): string {
    return 'Response'
  }
}

/** Reads a body that did not come from a NodeResponse's socket (or was already opened as a web stream). */
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

/**
 * Reads a response's body as UTF-8 text, handed to `onText` chunk by chunk as it arrives (a character
 * split between chunks arrives whole); see `NodeFetch.readText`.
 */
export function readResponseText(response: Response, onText: (text: string) => void): Promise<void> {
  const body = response instanceof NodeResponse ? response.claimSocket() : null
  if (body === null) return readWebText(response, onText)
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
