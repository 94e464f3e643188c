import { createServer, type IncomingMessage, type Server } from 'node:http'

/**
 * An OpenAI-compatible `POST /v1/embeddings` (and Voyage's `POST /v1/multimodalembeddings`) on 127.0.0.1 that returns deterministic vectors: a hashed
 * bag of words (each word adds 1 at FNV-1a(word) mod `dimensions`, then the vector is normalised), so
 * texts sharing words are close and a test can check relevance. An `image_url` input is embedded from
 * the words its bytes carry (an SVG's text, a PNG's tEXt chunk). It records every request, can refuse
 * (401, an unknown model, `dimensions`), and can hold its answers until released (an index in progress).
 */

export interface EmbeddingsServerOptions {
  dimensions?: number
  /** The only model it serves (others get 404 "model not found"). Default `embed-test`. */
  model?: string
  /** Requires `Authorization: Bearer <key>` (else 401). */
  apiKey?: string
  /** Answers 400 to a request that asks for `dimensions`. */
  refuseDimensions?: boolean
}

export interface EmbeddingsRequest {
  path: string
  authorization: string | undefined
  headers: IncomingMessage['headers']
  model: string
  inputs: unknown[]
  dimensions: number | undefined
}

export interface EmbeddingsServer {
  /** Base URL, ending in /v1. */
  readonly baseUrl: string
  readonly requests: EmbeddingsRequest[]
  /** Inputs embedded so far (all requests). */
  inputCount(): number
  /** Holds every answer (or those whose inputs `only` picks) from now until `release()`. */
  hold(only?: (inputs: unknown[]) => boolean): void
  release(): void
  /** Requests waiting for `release()`. */
  held(): number
  close(): Promise<void>
}

export function words(text: string): string[] {
  return (
    text
      // camelCase and snake_case are words apart: retryPolicy → retry policy
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .match(/[a-z][a-z0-9]+/g) ?? []
  )
}

export function bagOfWords(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0)
  for (const word of words(text)) {
    let h = 0x811c9dc5
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193) >>> 0
    v[h % dimensions] = (v[h % dimensions] ?? 0) + 1
  }
  const norm = Math.hypot(...v)
  // An input with no words still gets a vector (a unit one), as a real model would.
  if (norm === 0) return v.map((_, i) => (i === 0 ? 1 : 0))
  return v.map((x) => x / norm)
}

function textOfInput(input: unknown): string {
  if (typeof input === 'string') return input
  // Voyage's multimodal item: one content list of text and images.
  const content = (input as { content?: unknown })?.content
  if (Array.isArray(content)) return content.map(textOfInput).join(' ')
  const part = input as { type?: string; text?: string; image_base64?: string }
  if (part?.type === 'text') return part.text ?? ''
  const url = part?.type === 'image_base64' ? (part.image_base64 ?? '') : imageUrlOf(input)
  const comma = url.indexOf(',')
  const bytes = Buffer.from(url.slice(comma + 1), 'base64').toString('latin1')
  // The readable runs of the image: an SVG's text and a PNG's tEXt chunk, not its pixels.
  return (bytes.match(/[A-Za-z][A-Za-z ]{3,}/g) ?? []).join(' ')
}

function imageUrlOf(input: unknown): string {
  return (input as { image_url?: { url?: string } })?.image_url?.url ?? ''
}

export async function startEmbeddingsServer(opts: EmbeddingsServerOptions = {}): Promise<EmbeddingsServer> {
  const dimensions = opts.dimensions ?? 64
  const model = opts.model ?? 'embed-test'
  const requests: EmbeddingsRequest[] = []
  let holding: ((inputs: unknown[]) => boolean) | undefined
  let waiting: Array<() => void> = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (d: string) => {
      body += d
    })
    req.on('end', () => {
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(value))
      }
      const voyage = req.url?.endsWith('/multimodalembeddings') === true
      if (req.method !== 'POST' || !(voyage || req.url?.endsWith('/embeddings')))
        return send(404, { error: { message: `no route ${req.method} ${req.url}` } })
      const parsed = JSON.parse(body) as {
        model: string
        input?: unknown
        inputs?: unknown[]
        dimensions?: number
        output_dimension?: number
      }
      const inputs = voyage
        ? (parsed.inputs ?? [])
        : Array.isArray(parsed.input)
          ? parsed.input
          : [parsed.input]
      requests.push({
        path: req.url ?? '',
        authorization: req.headers.authorization,
        headers: req.headers,
        model: parsed.model,
        inputs,
        dimensions: voyage ? parsed.output_dimension : parsed.dimensions,
      })
      const answer = () => {
        if (opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`)
          return send(401, {
            error: { message: 'Incorrect API key provided', type: 'invalid_request_error' },
          })
        if (parsed.model !== model)
          return send(404, {
            error: { message: `The model \`${parsed.model}\` does not exist`, code: 'model_not_found' },
          })
        if (opts.refuseDimensions && parsed.dimensions !== undefined)
          return send(400, { error: { message: 'This model does not support specifying dimensions.' } })
        send(200, {
          object: 'list',
          model,
          data: inputs.map((input, index) => ({
            object: 'embedding',
            index,
            embedding: bagOfWords(textOfInput(input), dimensions),
          })),
          usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
        })
      }
      if (holding?.(inputs)) waiting.push(answer)
      else answer()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')
  return {
    baseUrl: `http://127.0.0.1:${address.port}/v1`,
    requests,
    inputCount: () => requests.reduce((n, r) => n + r.inputs.length, 0),
    hold(only = () => true) {
      holding = only
    },
    release() {
      holding = undefined
      const now = waiting
      waiting = []
      for (const answer of now) answer()
    },
    held: () => waiting.length,
    close() {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
