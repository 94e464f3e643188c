import OpenAI, { APIError } from 'openai'
import { toProviderError } from '../provider/errors.js'
import { createNodeFetch } from '../provider/node-fetch.js'

/**
 * Embeddings from an OpenAI-compatible `POST /embeddings`, through the openai SDK over the same node:http
 * fetch as the chat provider (extra headers stay on their origin). Texts go as strings; images, for a
 * model that takes them, as `{type: "image_url", image_url: {url: "data:…"}}` items of `input` (the shape
 * vLLM, Jina and other multimodal OpenAI-compatible servers read). Failures become EmbeddingsError with a
 * message that says what to fix.
 */

export interface EmbeddingsEndpoint {
  baseUrl: string
  apiKey?: string
  /** Only when baseUrl is on the chat endpoint's origin: the chat endpoint's custom headers. */
  headers?: Record<string, string>
  model: string
  /** Asked of the server (`dimensions`), and checked against what it returns. */
  dimensions?: number
}

export type EmbeddingInput = string | { imageDataUrl: string }

export interface Embedder {
  readonly model: string
  readonly url: string
  embed(inputs: readonly EmbeddingInput[], signal: AbortSignal): Promise<Float32Array[]>
}

/** One request's limit, each of its tries. */
const REQUEST_TIMEOUT_MS = 60_000
/** Past any embedding model's size (the largest common ones give 3,072–4,096). */
export const MAX_DIMENSIONS = 8192

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
  const fetch = createNodeFetch({ originOnlyHeaders: Object.keys(endpoint.headers ?? {}) })
  const client = new OpenAI({
    baseURL: url,
    apiKey: endpoint.apiKey ?? 'not-needed',
    maxRetries: 2,
    // The SDK's own default is 10 minutes an attempt: a server that never answers would hold the index job.
    timeout: REQUEST_TIMEOUT_MS,
    fetch,
    logLevel: 'off',
    ...(endpoint.headers ? { defaultHeaders: endpoint.headers } : {}),
  })
  const where = `${url}/embeddings`
  return {
    model: endpoint.model,
    url: where,
    async embed(inputs, signal) {
      if (inputs.length === 0) return []
      const input = inputs.map((i) =>
        typeof i === 'string' ? i : { type: 'image_url', image_url: { url: i.imageDataUrl } },
      )
      let body: { data?: Array<{ index?: number; embedding?: unknown }> }
      try {
        body = (await client.embeddings.create(
          {
            model: endpoint.model,
            // Strings for text; the multimodal items are outside the SDK's types.
            input: input as string[],
            encoding_format: 'float',
            ...(endpoint.dimensions !== undefined ? { dimensions: endpoint.dimensions } : {}),
          },
          { signal },
        )) as typeof body
      } catch (error) {
        if (signal.aborted) throw error
        throw describeFailure(error, endpoint, where)
      }
      return vectorsOf(body, inputs.length, endpoint, where)
    },
  }
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
    if (!Array.isArray(vector) || vector.length === 0 || !vector.every((x) => typeof x === 'number'))
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
    out[index] = Float32Array.from(vector as number[])
  })
  const first = out[0]?.length
  if (out.some((v) => v.length !== first))
    throw new EmbeddingsError(`${where} returned vectors of different lengths in one answer`, 'dimensions')
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
