import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai'
import { ProviderError, type ProviderErrorKind } from './types.js'

/**
 * Messages servers use for an over-long prompt: OpenAI, vLLM, llama.cpp, Ollama, OpenRouter, LM Studio,
 * Anthropic/Gemini proxies. Matched case-insensitively against the error message and code.
 */
const CONTEXT_OVERFLOW = [
  /maximum context length/,
  /context_length_exceeded/,
  /context length/,
  /context window/,
  /too many tokens/,
  /exceeds? (the )?(available )?context/,
  /exceed_context_size/,
  /prompt is too long/,
  /input is too long/,
  /reduce the length of the (messages|prompt)/,
  /tokens? (exceeds?|over) (the )?(limit|maximum)/,
  // LM Studio 0.4: "Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)"
  /n_keep \(\d+\) >= n_ctx/,
]

const MODEL_NOT_FOUND = [
  /model_not_found/,
  /model .*(not found|does not exist|is not available)/,
  /(unknown|invalid|no such) model/,
  /the model .* does not exist/,
]

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null
}

/** True when an error message or code says the prompt did not fit the model's context window. */
export function isContextOverflow(text: string): boolean {
  const lower = text.toLowerCase()
  return CONTEXT_OVERFLOW.some((re) => re.test(lower))
}

/** True when an error message or code says the requested model does not exist on the endpoint. */
export function isModelNotFound(text: string): boolean {
  const lower = text.toLowerCase()
  return MODEL_NOT_FOUND.some((re) => re.test(lower))
}

/** The innermost useful description of a network failure, e.g. `connect ECONNREFUSED 127.0.0.1:9`. */
export function describeCause(err: unknown): string {
  const seen = new Set<unknown>()
  let current: unknown = err
  let best = ''
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current)
    const code = (current as { code?: unknown }).code
    const message = current.message
    // Generic wrappers ("fetch failed", "Connection error.") say less than their causes.
    if (message !== '' && !/^(fetch failed|connection error\.?|terminated)$/i.test(message)) best = message
    else if (best === '' && typeof code === 'string') best = code
    current = current.cause
  }
  if (best !== '') return best
  return err instanceof Error ? err.message : String(err)
}

/** The server's own words from an SDK APIError: `error.message`, a plain-string error, or the raw body. */
function serverMessage(err: APIError): string {
  const body = err.error as unknown
  if (typeof body === 'string' && body !== '') return body
  const record = asRecord(body)
  if (record !== null) {
    if (typeof record.message === 'string' && record.message !== '') return record.message
    if (typeof record.detail === 'string' && record.detail !== '') return record.detail
    if (record.error !== undefined)
      return typeof record.error === 'string' ? record.error : JSON.stringify(record.error)
  }
  const prefix = `${err.status} `
  return err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message
}

function statusError(err: APIError, url: string, model: string | undefined): ProviderError {
  const status = err.status ?? 0
  const said = serverMessage(err)
  const code = typeof err.code === 'string' ? err.code : ''
  const opts = { status, url, cause: err }
  const make = (kind: ProviderErrorKind, message: string) => new ProviderError(kind, message, opts)
  if (status === 401 || status === 403) {
    return make(
      'auth',
      `authentication failed for ${url}: check OPENAI_API_KEY / the key for ${url} (${status}: ${said})`,
    )
  }
  if ((status === 400 || status === 413 || status === 422) && isContextOverflow(`${code} ${said}`)) {
    return make('context_overflow', `the request does not fit the model's context window at ${url}: ${said}`)
  }
  if ((status === 400 || status === 404 || status === 422) && isModelNotFound(`${code} ${said}`)) {
    const name = model === undefined ? 'the model' : `model ${model}`
    return make('model_not_found', `${name} not found at ${url}: ${said}`)
  }
  if (status === 404) {
    return make('not_found', `${url} answered 404 (${said}); check the base URL (it usually ends in /v1)`)
  }
  if (status === 408) return make('timeout', `${url} timed out the request (408): ${said}`)
  if (status === 429) return make('rate_limit', `rate limited by ${url} (429): ${said}`)
  if (status === 409 || status >= 500) return make('server', `${url} answered ${status}: ${said}`)
  return make('bad_request', `${url} rejected the request (${status}): ${said}`)
}

/** ProviderError for an `{"error": {...}}` object sent inside an otherwise successful stream. */
export function inStreamError(error: unknown, url: string): ProviderError {
  const record = asRecord(error)
  const said =
    typeof error === 'string'
      ? error
      : typeof record?.message === 'string' && record.message !== ''
        ? record.message
        : JSON.stringify(error)
  const code = record?.code
  const parsed = typeof code === 'number' ? code : Number.parseInt(typeof code === 'string' ? code : '', 10)
  const status = Number.isFinite(parsed) && parsed >= 100 && parsed < 600 ? parsed : undefined
  const codeText = typeof code === 'string' ? code : ''
  const opts = { url, cause: error, ...(status !== undefined ? { status } : {}) }
  if (isContextOverflow(`${codeText} ${said}`)) {
    return new ProviderError(
      'context_overflow',
      `the request does not fit the model's context window at ${url}: ${said}`,
      opts,
    )
  }
  const kind: ProviderErrorKind =
    status === 429
      ? 'rate_limit'
      : status !== undefined && status >= 400 && status < 500
        ? 'bad_request'
        : 'server'
  return new ProviderError(kind, `${url} reported an error mid-stream: ${said}`, opts)
}

function isConnectionLoss(err: unknown): boolean {
  const seen = new Set<unknown>()
  let current: unknown = err
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current)
    const code = (current as { code?: unknown }).code
    if (
      typeof code === 'string' &&
      /^(ECONN|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|UND_ERR)/.test(code)
    ) {
      return true
    }
    if (current.message === 'terminated' || /other side closed|socket hang up/i.test(current.message))
      return true
    current = current.cause
  }
  return false
}

/**
 * Maps anything the SDK or fetch throws into a ProviderError with a message a user can act on.
 * `model` makes model-not-found messages name the model. Never throws.
 */
export function toProviderError(err: unknown, opts: { url: string; model?: string }): ProviderError {
  const { url, model } = opts
  if (err instanceof ProviderError) return err
  if (err instanceof APIConnectionTimeoutError) {
    return new ProviderError('timeout', `request to ${url} timed out`, { url, cause: err })
  }
  if (err instanceof APIConnectionError) {
    return new ProviderError('network', `cannot reach ${url}: ${describeCause(err)}`, { url, cause: err })
  }
  if (err instanceof APIError) {
    // The SDK raises in-stream error objects as APIErrors without a status.
    if (err.status === undefined) return inStreamError(err.error ?? err.message, url)
    return statusError(err, url, model)
  }
  if (err instanceof SyntaxError) {
    return new ProviderError(
      'protocol',
      `${url} sent a malformed stream chunk (not valid JSON): ${err.message}`,
      {
        url,
        cause: err,
      },
    )
  }
  if (isConnectionLoss(err)) {
    return new ProviderError('network', `connection to ${url} was lost: ${describeCause(err)}`, {
      url,
      cause: err,
    })
  }
  const message = err instanceof Error ? err.message : String(err)
  return new ProviderError('protocol', `unexpected failure talking to ${url}: ${message}`, {
    url,
    cause: err,
  })
}

/** The error for a model the endpoint does not offer, listing what it does offer. */
export function modelNotFoundError(
  model: string,
  url: string,
  available: string[],
  cause: unknown,
): ProviderError {
  const list = available.length > 0 ? available.join(', ') : '(the endpoint lists no models)'
  const status = cause instanceof ProviderError ? cause.status : undefined
  return new ProviderError('model_not_found', `model ${model} not found at ${url}; available: ${list}`, {
    url,
    cause,
    ...(status !== undefined ? { status } : {}),
  })
}
