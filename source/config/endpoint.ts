import { mayHaveNativeApi, servedWindow } from './served-window.js'

/**
 * Finds the model endpoint (docs/configuration.md#endpoint-resolution): a configured base URL, else a local server found on loopback
 * (Ollama, LM Studio, llama.cpp, vLLM). Also picks the first listed model when none is configured and
 * reads the context length from the model metadata when the server reports it.
 */

export interface ProbeTarget {
  name: string
  /** Base URL ending in `/v1`; `/models` is appended. */
  url: string
}

/** Probed in parallel; when several answer, the earlier entry wins. */
export const DEFAULT_PROBE_TARGETS: readonly ProbeTarget[] = [
  { name: 'Ollama', url: 'http://127.0.0.1:11434/v1' },
  { name: 'LM Studio', url: 'http://127.0.0.1:1234/v1' },
  { name: 'llama.cpp', url: 'http://127.0.0.1:8080/v1' },
  { name: 'vLLM', url: 'http://127.0.0.1:8000/v1' },
]

export interface EndpointOptions {
  baseUrl?: string
  apiKey?: string
  /** Extra request headers for a configured endpoint (never sent to the probed local servers). */
  headers?: Record<string, string>
  model?: string
  /**
   * When no model is configured: this one if the endpoint lists it (a Claude Code settings file's model),
   * else the first listed.
   */
  preferredModel?: string
  /** false: no network at all (a configured URL is used as is; nothing is probed). Default true. */
  probe?: boolean
  fetchImpl?: typeof fetch
  probeTargets?: readonly ProbeTarget[]
  /** Total budget for the loopback probe (default 300 ms). */
  probeBudgetMs?: number
  /**
   * Timeout of one attempt at listing the models of a configured endpoint. Default 2000 ms when a model
   * is configured (the listing only adds the context length), 10000 ms when the model must come from it.
   */
  listTimeoutMs?: number
  /** Attempts at that listing: default 1 with a model configured, 2 without. */
  listAttempts?: number
  /** Pause before the next attempt (default 1000 ms). */
  listRetryDelayMs?: number
  /**
   * Ask a local server's own API for the window it serves the model with (served-window.ts) when the
   * listing does not say. Default true; the full-screen session asks after its first frame instead.
   */
  servedWindow?: boolean
}

/** Listing the models when none is configured: the model depends on it, so it gets time and a second try. */
export const MODEL_LIST_TIMEOUT_MS = 10_000
export const MODEL_LIST_ATTEMPTS = 2

export interface ProbeResult {
  name: string
  url: string
  /** What happened: `connection refused`, `no answer within 300 ms`, `HTTP 404`, `found 3 models`… */
  result: string
}

export type ResolvedEndpoint =
  | {
      kind: 'configured' | 'probed'
      baseUrl: string
      apiKey?: string
      model?: string
      /** From the endpoint's model metadata or its own API; beats the profile table. */
      contextLength?: number
      /** Where the endpoint said it: `max_model_len in the endpoint's model listing`, `Ollama's /api/ps, for the loaded model`… */
      contextSource?: string
      /** Ids the endpoint lists (empty when listing failed or was skipped). */
      models: string[]
      /** Which probe target answered (kind 'probed'). */
      serverName?: string
      /** Why listing the models of a configured endpoint failed (not fatal). */
      listError?: string
    }
  | { kind: 'none'; probed: ProbeResult[] }

export interface ModelInfo {
  id: string
  contextLength?: number
  /** The listing's field that gave it. */
  contextField?: string
  /** The listing's `owned_by` (`llamacpp`, `library`…): a hint of which server answers. */
  ownedBy?: string
}

/**
 * A failed listing says what happened; `retryable` when another try could go differently, `status` when
 * the server answered with an HTTP error.
 */
export type Listing =
  | { ok: true; models: ModelInfo[] }
  | { ok: false; error: string; retryable: boolean; status?: number }

/** One try at `GET <baseUrl>/models` within `timeoutMs` (the setup form, `doctor`). Never throws. */
export function listEndpointModels(
  baseUrl: string,
  opts: {
    apiKey?: string | undefined
    headers?: Record<string, string> | undefined
    fetchImpl?: typeof fetch
    timeoutMs: number
    signal?: AbortSignal
  },
): Promise<Listing> {
  const timeout = AbortSignal.timeout(opts.timeoutMs)
  return listModels(baseUrl.replace(/\/+$/, ''), {
    apiKey: opts.apiKey,
    ...(opts.headers ? { headers: opts.headers } : {}),
    fetchImpl: opts.fetchImpl ?? fetch,
    signal: opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout,
    timeoutMs: opts.timeoutMs,
  })
}

/** Resolve the endpoint. Never throws: failures are reported in the result. */
export async function resolveEndpoint(opts: EndpointOptions): Promise<ResolvedEndpoint> {
  if (opts.baseUrl !== undefined && opts.probe === false) {
    // Before touching the global fetch: its first use loads undici, tens of milliseconds.
    const baseUrl = opts.baseUrl.replace(/\/+$/, '')
    return { kind: 'configured', baseUrl, apiKey: opts.apiKey, model: opts.model, models: [] }
  }
  const fetchImpl = opts.fetchImpl ?? fetch
  if (opts.baseUrl !== undefined) {
    const baseUrl = opts.baseUrl.replace(/\/+$/, '')
    const base = { kind: 'configured' as const, baseUrl, apiKey: opts.apiKey, model: opts.model }
    const needed = opts.model === undefined
    const timeoutMs = opts.listTimeoutMs ?? (needed ? MODEL_LIST_TIMEOUT_MS : 2000)
    const attempts = Math.max(1, opts.listAttempts ?? (needed ? MODEL_LIST_ATTEMPTS : 1))
    let listing: Listing = { ok: false, error: 'not tried', retryable: true }
    let tried = 0
    while (tried < attempts && !listing.ok && listing.retryable) {
      if (tried > 0) await delay(opts.listRetryDelayMs ?? 1000)
      tried++
      listing = await listModels(baseUrl, {
        apiKey: opts.apiKey,
        ...(opts.headers ? { headers: opts.headers } : {}),
        fetchImpl,
        signal: AbortSignal.timeout(timeoutMs),
        timeoutMs,
      })
    }
    if (!listing.ok) {
      const times = tried > 1 ? ` (tried ${tried} times)` : ''
      return {
        ...base,
        models: [],
        listError: `listing models at ${baseUrl}/models failed: ${listing.error}${times}`,
      }
    }
    const chosen = await withServedWindow(
      baseUrl,
      chooseModel(listing.models, opts.model, opts.preferredModel),
      {
        fetchImpl,
        ask: opts.servedWindow !== false,
        ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
        ...(opts.headers ? { headers: opts.headers } : {}),
      },
    )
    return { ...base, ...chosen, models: listing.models.map((m) => m.id) }
  }
  if (opts.probe === false) return { kind: 'none', probed: [] }
  return probe(
    opts.probeTargets ?? DEFAULT_PROBE_TARGETS,
    opts.probeBudgetMs ?? 300,
    fetchImpl,
    opts.model,
    opts.preferredModel,
    opts.servedWindow !== false,
  )
}

async function probe(
  targets: readonly ProbeTarget[],
  budgetMs: number,
  fetchImpl: typeof fetch,
  model: string | undefined,
  preferred: string | undefined,
  ask: boolean,
): Promise<ResolvedEndpoint> {
  const cancel = new AbortController()
  const signal = AbortSignal.any([AbortSignal.timeout(budgetMs), cancel.signal])
  const listings = targets.map((target) =>
    listModels(target.url.replace(/\/+$/, ''), { fetchImpl, signal, timeoutMs: budgetMs }),
  )
  const probed: ProbeResult[] = []
  try {
    for (const [i, target] of targets.entries()) {
      const listing = await listings[i]!
      if (listing.ok && listing.models.length > 0) {
        cancel.abort()
        const baseUrl = target.url.replace(/\/+$/, '')
        return {
          kind: 'probed',
          baseUrl,
          ...(await withServedWindow(baseUrl, chooseModel(listing.models, model, preferred), {
            fetchImpl,
            ask,
          })),
          models: listing.models.map((m) => m.id),
          serverName: target.name,
        }
      }
      const result = listing.ok ? 'answered, but lists no models' : listing.error
      probed.push({ name: target.name, url: target.url, result })
    }
    return { kind: 'none', probed }
  } finally {
    // Stop the slower probes once the outcome is known.
    cancel.abort()
  }
}

interface Chosen {
  model?: string
  contextLength?: number
  contextSource?: string
  /** The listing's figure is only what the model was trained for (llama.cpp's `meta.n_ctx_train`). */
  trainedOnly?: boolean
}

function chooseModel(models: ModelInfo[], configured: string | undefined, preferred?: string): Chosen {
  // A Claude Code settings file's model, when the endpoint lists it.
  const listed = preferred !== undefined && models.some((m) => m.id === preferred) ? preferred : undefined
  const id = configured ?? listed ?? models[0]?.id
  const info = models.find((m) => m.id === id)
  const out: Chosen = {}
  if (id !== undefined) out.model = id
  if (info?.contextLength !== undefined) {
    out.contextLength = info.contextLength
    out.contextSource = `${info.contextField ?? 'context_length'} in the endpoint's model listing`
    if (info.contextField === 'meta.n_ctx_train') out.trainedOnly = true
  }
  return out
}

/**
 * When the listing does not say what window the model is served with, a local server's own API may
 * (served-window.ts); it beats a trained-for figure. The `trainedOnly` mark is not passed on.
 */
async function withServedWindow(
  baseUrl: string,
  chosen: Chosen,
  opts: { fetchImpl: typeof fetch; apiKey?: string; headers?: Record<string, string>; ask: boolean },
): Promise<Omit<Chosen, 'trainedOnly'>> {
  const { trainedOnly, ...out } = chosen
  const needed = out.contextLength === undefined || trainedOnly === true
  if (!opts.ask || !needed || out.model === undefined || !mayHaveNativeApi(baseUrl)) return out
  const served = await servedWindow(baseUrl, out.model, opts)
  if (!served) return out
  return { ...out, contextLength: served.contextLength, contextSource: served.source }
}

async function listModels(
  baseUrl: string,
  opts: {
    apiKey?: string | undefined
    headers?: Record<string, string>
    fetchImpl: typeof fetch
    signal: AbortSignal
    timeoutMs: number
  },
): Promise<Listing> {
  const headers: Record<string, string> = { ...opts.headers, accept: 'application/json' }
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`
  try {
    const response = await fetchSameOrigin(`${baseUrl}/models`, headers, opts)
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined)
      const status = response.status
      const hint =
        status === 401 || status === 403
          ? ' (check the API key)'
          : REDIRECTS.has(status)
            ? ` (a redirect to ${response.headers.get('location') ?? 'elsewhere'}: not followed to another host)`
            : ''
      const retryable = status === 408 || status === 429 || status >= 500
      return { ok: false, error: `HTTP ${status}${hint}`, retryable, status }
    }
    let body: unknown
    try {
      body = await response.json()
    } catch {
      if (opts.signal.aborted) return timedOut(opts.timeoutMs)
      return { ok: false, error: 'answered, but not with JSON', retryable: false }
    }
    const models = extractModels(body)
    return models
      ? { ok: true, models }
      : { ok: false, error: 'answered, but not with a model list', retryable: false }
  } catch (err) {
    if (opts.signal.aborted) return timedOut(opts.timeoutMs)
    return { ok: false, error: describeFetchError(err), retryable: true }
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/**
 * A GET that follows redirects within the URL's origin only: the user's headers (a gateway key) and the
 * API key are never sent to another host. A redirect elsewhere is answered as its status.
 */
async function fetchSameOrigin(
  url: string,
  headers: Record<string, string>,
  opts: { fetchImpl: typeof fetch; signal: AbortSignal },
): Promise<Response> {
  let at = new URL(url)
  for (let hops = 0; ; hops++) {
    const response = await opts.fetchImpl(at.href, { headers, signal: opts.signal, redirect: 'manual' })
    const location = response.headers.get('location')
    if (!REDIRECTS.has(response.status) || location === null || hops >= 5) return response
    const next = new URL(location, at)
    if (next.origin !== at.origin) return response
    await response.body?.cancel().catch(() => undefined)
    at = next
  }
}

function timedOut(ms: number): Listing {
  const wait = ms < 1000 || ms % 1000 !== 0 ? `${ms} ms` : `${ms / 1000} s`
  return { ok: false, error: `no answer within ${wait}`, retryable: true }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** OpenAI's `{data: [{id}]}`, or the `{models: [{id|name|model}]}` some local servers use. */
function extractModels(body: unknown): ModelInfo[] | undefined {
  if (!isRecord(body)) return undefined
  const list = Array.isArray(body.data) ? body.data : Array.isArray(body.models) ? body.models : undefined
  if (!list) return undefined
  const models: ModelInfo[] = []
  for (const item of list) {
    if (!isRecord(item)) continue
    const id = [item.id, item.name, item.model].find((v): v is string => typeof v === 'string' && v !== '')
    if (id === undefined) continue
    const context = contextLengthOf(item)
    const ownedBy = typeof item.owned_by === 'string' && item.owned_by !== '' ? item.owned_by : undefined
    models.push({
      id,
      ...(context === undefined ? {} : { contextLength: context.value, contextField: context.field }),
      ...(ownedBy === undefined ? {} : { ownedBy }),
    })
  }
  return models
}

/**
 * The context window a listing entry gives, and its field: `context_length` (OpenRouter),
 * `max_model_len` (vLLM), `context_window`, LM Studio's `loaded_context_length` (the window it loaded the
 * model with) before its `max_context_length`, and llama.cpp's `meta.n_ctx_train` (only what the model
 * was trained for: /props says what is served).
 */
function contextLengthOf(item: Record<string, unknown>): { value: number; field: string } | undefined {
  const meta = isRecord(item.meta) ? item.meta : {}
  const candidates: Array<[string, unknown]> = [
    ['context_length', item.context_length],
    ['max_model_len', item.max_model_len],
    ['context_window', item.context_window],
    ['loaded_context_length', item.loaded_context_length],
    ['max_context_length', item.max_context_length],
    ['meta.n_ctx_train', meta.n_ctx_train],
  ]
  for (const [field, value] of candidates) {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return { value, field }
  }
  return undefined
}

/** `connection refused`, `host not found`…: the cause of a failed request, undici's or node:http's. */
export function describeFetchError(err: unknown): string {
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined
  const own = err instanceof Error ? (err as { code?: unknown }).code : undefined
  const code = typeof cause?.code === 'string' ? cause.code : typeof own === 'string' ? own : undefined
  if (code === 'ECONNREFUSED') return 'connection refused'
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset'
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found'
  if (code !== undefined) return code
  return err instanceof Error ? err.message : String(err)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
