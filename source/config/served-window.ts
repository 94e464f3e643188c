import { bareHost, classifyAddress, isLocalHostName } from '../util/address-class.js'

/**
 * The window a local server really serves a model with, from its own API beside the OpenAI-compatible one
 * (docs/context.md#where-the-window-comes-from): llama.cpp's `GET /props`
 * (`default_generation_settings.n_ctx`), Ollama's `GET /api/ps` (`context_length` of a loaded model) and
 * `POST /api/show` (a `num_ctx` the model's Modelfile sets; `model_info.*.context_length` is only what it
 * was trained for), LM Studio's `GET /api/v0/models` (`loaded_context_length`). Asked only of servers on
 * this machine or its network; a hosted API says it in its model list or not at all.
 */

export interface ServedWindow {
  contextLength: number
  /** Where it came from, as /context names it: `llama.cpp's /props, n_ctx`, `Ollama's /api/ps, for the loaded model`… */
  source: string
}

/** Ollama serves a model with this window unless the server or the model says more (its docs). */
export const OLLAMA_DEFAULT_CONTEXT = 4096

type Fetch = typeof fetch

/** Whether the endpoint is on this machine or a local network, where such a server would run. */
export function mayHaveNativeApi(baseUrl: string): boolean {
  let host: string
  try {
    host = bareHost(new URL(baseUrl).hostname)
  } catch {
    return false
  }
  if (isLocalHostName(host)) return true
  const cls = classifyAddress(host)
  if (cls !== 'reserved') return cls !== 'public'
  // A name, not an address: a single label or a local suffix is a machine on the network.
  return !host.includes('.') || /\.(local|lan|home|internal|home\.arpa)$/i.test(host)
}

const positive = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}

async function getJson(
  fetchImpl: Fetch,
  url: string,
  init: { signal: AbortSignal; headers: Record<string, string>; body?: string; redirect?: 'manual' },
): Promise<unknown> {
  try {
    const response = await fetchImpl(url, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers:
        init.body === undefined ? init.headers : { ...init.headers, 'content-type': 'application/json' },
      signal: init.signal,
      ...(init.redirect ? { redirect: init.redirect } : {}),
      ...(init.body === undefined ? {} : { body: init.body }),
    })
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined)
      return undefined
    }
    return await response.json()
  } catch {
    return undefined
  }
}

/** llama.cpp's `/props`: the context of one slot (its `-c` divided among `--parallel` slots). */
export function llamaCppWindow(props: unknown): number | undefined {
  const p = record(props)
  return positive(record(p.default_generation_settings).n_ctx) ?? positive(p.n_ctx)
}

/** Ollama's `/api/ps`: the context a loaded model runs with (what `ollama ps` prints). */
export function ollamaLoadedWindow(ps: unknown, model: string): number | undefined {
  const models = record(ps).models
  if (!Array.isArray(models)) return undefined
  const wanted = ollamaName(model)
  for (const entry of models) {
    const m = record(entry)
    if ([m.name, m.model].some((n) => typeof n === 'string' && ollamaName(n) === wanted))
      return positive(m.context_length)
  }
  return undefined
}

/** Ollama's `/api/show`: the `num_ctx` the Modelfile sets, and the context the model was trained for. */
export function ollamaShowWindow(show: unknown): { numCtx?: number; trained?: number } {
  const s = record(show)
  const out: { numCtx?: number; trained?: number } = {}
  const params = typeof s.parameters === 'string' ? /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(s.parameters) : null
  const numCtx = params ? positive(Number.parseInt(params[1] ?? '', 10)) : undefined
  if (numCtx !== undefined) out.numCtx = numCtx
  for (const [key, value] of Object.entries(record(s.model_info))) {
    if (key.endsWith('.context_length') && positive(value) !== undefined) out.trained = value as number
  }
  return out
}

/** LM Studio's `/api/v0/models`: the context a loaded model runs with. */
export function lmStudioWindow(list: unknown, model: string): number | undefined {
  const data = record(list).data
  if (!Array.isArray(data)) return undefined
  const m = data.map(record).find((e) => e.id === model)
  return m ? positive(m.loaded_context_length) : undefined
}

/** `qwen2.5` and `qwen2.5:latest` are one Ollama model. */
function ollamaName(name: string): string {
  return name.includes(':') ? name : `${name}:latest`
}

/**
 * Asks the server's own API (in parallel, each answer optional) what window it serves `model` with.
 * Null when none of them answers with one. Never throws.
 */
export async function servedWindow(
  baseUrl: string,
  model: string,
  opts: { fetchImpl: Fetch; apiKey?: string; headers?: Record<string, string>; timeoutMs?: number },
): Promise<ServedWindow | null> {
  const root = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')
  const signal = AbortSignal.timeout(opts.timeoutMs ?? 1500)
  const headers: Record<string, string> = { ...opts.headers, accept: 'application/json' }
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`
  // The endpoint's custom headers stay on its origin: a redirect is an answer without a window.
  const init = { signal, headers, ...(opts.headers ? { redirect: 'manual' as const } : {}) }
  const [props, ps, show, lmStudio] = await Promise.all([
    getJson(opts.fetchImpl, `${root}/props`, init),
    getJson(opts.fetchImpl, `${root}/api/ps`, init),
    getJson(opts.fetchImpl, `${root}/api/show`, { ...init, body: JSON.stringify({ model }) }),
    getJson(opts.fetchImpl, `${root}/api/v0/models`, init),
  ])
  const llama = llamaCppWindow(props)
  if (llama !== undefined) return { contextLength: llama, source: "llama.cpp's /props, n_ctx" }
  const loaded = ollamaLoadedWindow(ps, model)
  if (loaded !== undefined) return { contextLength: loaded, source: "Ollama's /api/ps, for the loaded model" }
  const shown = ollamaShowWindow(show)
  if (shown.numCtx !== undefined)
    return { contextLength: shown.numCtx, source: "the num_ctx of Ollama's /api/show" }
  const studio = lmStudioWindow(lmStudio, model)
  if (studio !== undefined)
    return { contextLength: studio, source: "LM Studio's /api/v0/models, loaded_context_length" }
  if (shown.trained !== undefined) {
    // Ollama serves an unloaded model without a num_ctx at its default, not at what it was trained for.
    return {
      contextLength: Math.min(shown.trained, OLLAMA_DEFAULT_CONTEXT),
      source: `Ollama's default window: the model is not loaded, so Ollama has not said; it takes up to ${shown.trained.toLocaleString('en-US')} tokens with OLLAMA_CONTEXT_LENGTH or a num_ctx`,
    }
  }
  return null
}
