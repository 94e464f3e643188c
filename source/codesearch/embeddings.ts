import OpenAI, { APIError } from 'openai'
import { toProviderError } from '../provider/errors.js'
import { createNodeFetch, type NodeFetch } from '../provider/node-fetch.js'
import { NodeResponse } from '../provider/node-response.js'
import { PlainHeaders } from '../provider/plain-headers.js'

/**
 * Embeddings from an OpenAI-compatible `POST /embeddings`, through the openai SDK over the same node:http
 * fetch as the chat provider (extra headers stay on their origin). Texts go as strings; images, for a
 * model that takes them, as `{type: "image_url", image_url: {url: "data:…"}}` items of `input` (the shape
 * vLLM, Jina and other multimodal OpenAI-compatible servers read). With `api: "voyage-multimodal"`,
 * Voyage's `POST /multimodalembeddings` instead (`inputs: [{content: [{type: "text"|"image_base64"}]}]`).
 * An answer is read only up to what its vectors can take (a broken or hostile endpoint cannot fill the
 * memory). Failures become EmbeddingsError with a message that says what to fix.
 */

export interface EmbeddingsEndpoint {
  baseUrl: string
  apiKey?: string
  /** Only when baseUrl is on the chat endpoint's origin: the chat endpoint's custom headers. */
  headers?: Record<string, string>
  model: string
  /** Asked of the server (`dimensions`), and checked against what it returns. */
  dimensions?: number
  /** The request shape: OpenAI's `POST /embeddings` (default) or Voyage's `POST /multimodalembeddings`. */
  api?: EmbeddingsApi
}

export type EmbeddingsApi = 'openai' | 'voyage-multimodal'

export type EmbeddingInput = string | { imageDataUrl: string }

export interface Embedder {
  readonly model: string
  readonly url: string
  /** `dimensions`: what the vectors should have, when known (it sizes the answer's limit). */
  embed(inputs: readonly EmbeddingInput[], signal: AbortSignal, dimensions?: number): Promise<Float32Array[]>
}

/** One request's limit, each of its tries. */
const REQUEST_TIMEOUT_MS = 60_000
/** Past any embedding model's size (the largest common ones give 3,072–4,096). */
export const MAX_DIMENSIONS = 8192
/** No answer is read past this, whatever the batch: 64 vectors of 8,192 dimensions take ~17 MB. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024
/** Of an error answer, what is kept for its message. */
const ERROR_BODY_BYTES = 64 * 1024

export class EmbeddingsError extends Error {
  constructor(
    message: string,
    readonly kind: 'auth' | 'model' | 'dimensions' | 'request' | 'network',
  ) {
    super(message)
    this.name = 'EmbeddingsError'
  }
}

export function createEmbedder(endpoint: EmbeddingsEndpoint): Embedder {
  const url = endpoint.baseUrl.replace(/\/+$/, '')
  const nodeFetch = createNodeFetch({ originOnlyHeaders: Object.keys(endpoint.headers ?? {}) })
  const voyage = endpoint.api === 'voyage-multimodal'
  const where = `${url}/${voyage ? 'multimodalembeddings' : 'embeddings'}`
  const client = new OpenAI({
    baseURL: url,
    apiKey: endpoint.apiKey ?? 'not-needed',
    maxRetries: 2,
    // The SDK's own default is 10 minutes an attempt: a server that never answers would hold the index job.
    timeout: REQUEST_TIMEOUT_MS,
    fetch: errorBodiesCapped(nodeFetch),
    logLevel: 'off',
    ...(endpoint.headers ? { defaultHeaders: endpoint.headers } : {}),
  })
  return {
    model: endpoint.model,
    url: where,
    async embed(inputs, signal, dimensions) {
      if (inputs.length === 0) return []
      let response: Response
      try {
        // The raw response (the SDK has already retried and mapped error statuses): its body is read here,
        // within a limit, never whole into memory by the SDK.
        response = await (voyage
          ? client.post('/multimodalembeddings', { body: voyageBody(inputs, endpoint), signal })
          : client.embeddings.create(openaiBody(inputs, endpoint), { signal })
        ).asResponse()
      } catch (error) {
        if (signal.aborted) throw error
        throw describeFailure(error, endpoint, where)
      }
      const limit = responseLimit(inputs.length, dimensions ?? endpoint.dimensions)
      const body = await readCapped(
        nodeFetch,
        response,
        limit,
        signal,
        where,
        () =>
          new EmbeddingsError(
            `${where} sent more than ${megabytes(limit)} for ${inputs.length} embedding${inputs.length === 1 ? '' : 's'} (the most ${inputs.length} vector${inputs.length === 1 ? '' : 's'} of ${dimensions ?? endpoint.dimensions ?? MAX_DIMENSIONS} dimensions take); the rest was not read. Check "embeddings.baseUrl" points at an embeddings endpoint`,
            'request',
          ),
      )
      let parsed: { data?: Array<{ index?: number; embedding?: unknown }> }
      try {
        parsed = JSON.parse(body) as typeof parsed
      } catch {
        throw new EmbeddingsError(
          `${where} answered with something that is not JSON: ${shorten(body)}`,
          'request',
        )
      }
      return vectorsOf(parsed, inputs.length, endpoint, where)
    },
  }
}

function openaiBody(inputs: readonly EmbeddingInput[], endpoint: EmbeddingsEndpoint) {
  return {
    model: endpoint.model,
    // Strings for text; the multimodal items are outside the SDK's types.
    input: inputs.map((i) =>
      typeof i === 'string' ? i : { type: 'image_url', image_url: { url: i.imageDataUrl } },
    ) as string[],
    encoding_format: 'float' as const,
    ...(endpoint.dimensions !== undefined ? { dimensions: endpoint.dimensions } : {}),
  }
}

/** Voyage's `POST /multimodalembeddings`: each input one content list, an image as its data URL. */
function voyageBody(inputs: readonly EmbeddingInput[], endpoint: EmbeddingsEndpoint) {
  return {
    model: endpoint.model,
    inputs: inputs.map((i) => ({
      content: [
        typeof i === 'string'
          ? { type: 'text', text: i }
          : { type: 'image_base64', image_base64: i.imageDataUrl },
      ],
    })),
    ...(endpoint.dimensions !== undefined ? { output_dimension: endpoint.dimensions } : {}),
  }
}

/**
 * The most an answer of `count` vectors may take: a float in JSON is at most ~24 characters and a comma
 * (32 allowed), plus room for each item's fields and the envelope; never over MAX_RESPONSE_BYTES.
 */
export function responseLimit(count: number, dimensions: number | undefined): number {
  const perInput = 1024 + (dimensions ?? MAX_DIMENSIONS) * 32
  return Math.min(MAX_RESPONSE_BYTES, 64 * 1024 + count * perInput)
}

function megabytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`
}

/** The body as text, read until `limit` bytes (as decoded: a compressed body counts unpacked). */
async function readCapped(
  fetch: NodeFetch,
  response: Response,
  limit: number,
  signal: AbortSignal,
  where: string,
  tooBig: () => Error,
): Promise<string> {
  const parts: string[] = []
  let bytes = 0
  try {
    await fetch.readText(response, (text) => {
      bytes += Buffer.byteLength(text)
      if (bytes > limit) throw tooBig()
      parts.push(text)
    })
  } catch (error) {
    if (error instanceof EmbeddingsError || signal.aborted) throw error
    throw new EmbeddingsError(
      `${where} broke off its answer: ${error instanceof Error ? error.message : String(error)}`,
      'network',
    )
  }
  return parts.join('')
}

/**
 * The SDK reads an error answer whole for its message: only its first ERROR_BODY_BYTES are handed on
 * (a message needs no more), the rest of the socket is dropped.
 */
function errorBodiesCapped(fetch: NodeFetch): typeof globalThis.fetch {
  const capped = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init)
    if (response.ok || response.body === null) return response
    const parts: string[] = []
    let bytes = 0
    const full = new Error('enough')
    await fetch
      .readText(response, (text) => {
        parts.push(text)
        bytes += Buffer.byteLength(text)
        if (bytes >= ERROR_BODY_BYTES) throw full
      })
      .catch((error: unknown) => {
        if (error !== full) throw error
      })
    const text = Buffer.from(parts.join('')).subarray(0, ERROR_BODY_BYTES).toString('utf8')
    const headers = new PlainHeaders(response.headers)
    headers.delete('content-length')
    headers.delete('content-encoding')
    return new NodeResponse(
      { status: response.status, statusText: response.statusText, headers, res: null, signal: undefined },
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text))
          controller.close()
        },
      }),
    )
  }
  return capped as typeof globalThis.fetch
}

function vectorsOf(
  body: { data?: Array<{ index?: number; embedding?: unknown }> },
  count: number,
  endpoint: EmbeddingsEndpoint,
  where: string,
): Float32Array[] {
  const data = Array.isArray(body?.data) ? body.data : []
  if (data.length !== count)
    throw new EmbeddingsError(`${where} returned ${data.length} embeddings for ${count} inputs`, 'request')
  const out: Float32Array[] = new Array(count)
  data.forEach((item, position) => {
    const vector = item.embedding
    if (!Array.isArray(vector) || vector.length === 0)
      throw new EmbeddingsError(`${where} returned an embedding that is not a list of numbers`, 'request')
    if (vector.length > MAX_DIMENSIONS)
      throw new EmbeddingsError(
        `${where} returned a vector of ${vector.length} dimensions, over the ${MAX_DIMENSIONS} the index takes`,
        'dimensions',
      )
    // An index outside the inputs, or one given twice, would leave an input without its vector.
    const index = item.index === undefined ? position : item.index
    if (!Number.isInteger(index) || index < 0 || index >= count || out[index] !== undefined)
      throw new EmbeddingsError(
        `${where} returned an embedding for input ${JSON.stringify(item.index)} of ${count} (each input once, from 0)`,
        'request',
      )
    if (endpoint.dimensions !== undefined && vector.length !== endpoint.dimensions)
      throw new EmbeddingsError(
        `${endpoint.model} returned vectors of ${vector.length} dimensions, but "embeddings.dimensions" says ${endpoint.dimensions}: set it to ${vector.length}, or leave it out`,
        'dimensions',
      )
    out[index] = floats(vector, where)
  })
  const first = out[0]?.length
  if (out.some((v) => v.length !== first))
    throw new EmbeddingsError(`${where} returned vectors of different lengths in one answer`, 'dimensions')
  return out
}

/**
 * The vector as float32, checked number by number in a plain loop: `every` with a callback boxed each
 * double of the parsed array (6 KB of garbage a 384-dimension vector, the most an index build allocated).
 */
function floats(vector: unknown[], where: string): Float32Array {
  const out = new Float32Array(vector.length)
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i]
    if (typeof x !== 'number')
      throw new EmbeddingsError(`${where} returned an embedding that is not a list of numbers`, 'request')
    out[i] = x
  }
  return out
}

function describeFailure(error: unknown, endpoint: EmbeddingsEndpoint, where: string): EmbeddingsError {
  const status = error instanceof APIError ? error.status : undefined
  const text = error instanceof Error ? error.message : String(error)
  if (status === 401 || status === 403)
    return new EmbeddingsError(
      `${where} refused the request (${status}): the API key is missing or not accepted; set "embeddings.apiKey" (or "embeddings.apiKeyEnv") for this endpoint`,
      'auth',
    )
  if (status === 404 || /model.*(not found|does not exist|unknown)|no such model|not.*embedding/i.test(text))
    return new EmbeddingsError(
      `embedding model ${endpoint.model} not found at ${where} (${status ?? 'error'}: ${shorten(text)}); check "embeddings.model" or --embedding-model`,
      'model',
    )
  if (/dimension/i.test(text))
    return new EmbeddingsError(
      `${where} does not accept "dimensions": ${endpoint.dimensions ?? '(unset)'} for ${endpoint.model} (${shorten(text)}); change or remove "embeddings.dimensions"`,
      'dimensions',
    )
  const mapped = toProviderError(error, { url: where })
  return new EmbeddingsError(mapped.message, status === undefined ? 'network' : 'request')
}

function shorten(text: string, max = 160): string {
  const one = text.replace(/\s+/g, ' ').trim()
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`
}
