import { ProviderError, type RetryInfo } from './types.js'

export interface RetryPolicy {
  /** Total attempts including the first (default 5). */
  maxAttempts: number
  /** Backoff base: the first retry waits between half this and this, each later one twice as long. */
  baseDelayMs: number
  /** Cap of the exponential backoff window. */
  maxDelayMs: number
  /** A server's Retry-After is honoured up to this long; a longer one ends the retries with a message. */
  maxRetryAfterMs: number
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 300_000,
})

/** Anything with a case-insensitive `get`, e.g. fetch `Headers`. */
export interface HeaderSource {
  get(name: string): string | null
}

/** 408, 409, 429 and 5xx are worth another attempt; other statuses will fail the same way again. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500
}

/** Whether a failed attempt may be repeated. */
export function isRetryableError(err: ProviderError): boolean {
  if (err.status !== undefined) return isRetryableStatus(err.status)
  return (
    err.kind === 'network' || err.kind === 'timeout' || err.kind === 'server' || err.kind === 'rate_limit'
  )
}

/**
 * The wait a server asked for, in ms: `retry-after-ms`, else `Retry-After` as seconds or an HTTP date.
 * Undefined when absent or unparseable.
 */
export function parseRetryAfter(
  headers: HeaderSource | undefined,
  now: number = Date.now(),
): number | undefined {
  if (headers === undefined) return undefined
  const ms = headers.get('retry-after-ms')
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms)
    if (Number.isFinite(value) && value >= 0) return value
  }
  const raw = headers.get('retry-after')
  if (raw === null || raw.trim() === '') return undefined
  const seconds = Number(raw)
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined
  const date = Date.parse(raw)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/**
 * Exponential backoff with "equal" jitter for the `retry`-th retry (1-based): uniform in [w/2, w) with
 * w = min(cap, base·2^(retry-1)). The ranges of successive retries do not overlap, so the waits grow
 * (until the cap) and never come out as nothing, while clients that failed together still spread out.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const window = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1))
  return Math.floor(window / 2 + random() * (window / 2))
}

/** The wait before the `retry`-th retry: the server's Retry-After when it sent one, else jittered backoff. */
export function retryDelay(
  retry: number,
  policy: RetryPolicy,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) return Math.round(retryAfterMs)
  return backoffDelay(retry, policy, random)
}

/** A wait as people read it, rounded up (a wait still running never reads `0.0 s`): `0.6 s`, `12 s`, `5 min`. */
export function formatWait(ms: number): string {
  const tenths = Math.ceil(Math.max(0, ms) / 100)
  if (tenths < 100) return `${(tenths / 10).toFixed(1)} s`
  const seconds = Math.ceil(ms / 1000)
  if (seconds < 120) return `${seconds} s`
  const minutes = Math.floor(seconds / 60)
  const rest = seconds % 60
  return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`
}

/** Thrown by an attempt that failed in a way worth repeating; `withRetry` waits and runs it again. */
export class RetryableFailure extends Error {
  readonly error: ProviderError
  readonly retryAfterMs: number | undefined
  /** The attempt had already handed output to the handlers; the caller must withdraw it. */
  readonly discarded: boolean
  constructor(error: ProviderError, retryAfterMs?: number, discarded = false) {
    super(error.message, { cause: error })
    this.name = 'RetryableFailure'
    this.error = error
    this.retryAfterMs = retryAfterMs
    this.discarded = discarded
  }
}

/** Waits `ms`; resolves false early (and without rejecting) when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false)
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve(true)
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

export interface WithRetryOptions<T> {
  policy: RetryPolicy
  signal: AbortSignal
  /** Called before each wait; `attempt` is the number of the attempt that follows the wait (2 = first retry). */
  onRetry?: (info: RetryInfo) => void
  /** Result to return when the signal aborts during a wait. */
  onAborted: () => T
  random?: () => number
}

/**
 * Runs `run` until it returns, throws something other than RetryableFailure, or the attempts are used up
 * (then the last failure's ProviderError is thrown, noting the attempt count). A server that asks for a
 * longer wait than the policy allows ends the retries at once, saying so. Waits honour the signal.
 */
export async function withRetry<T>(
  run: (attempt: number) => Promise<T>,
  opts: WithRetryOptions<T>,
): Promise<T> {
  const { policy, signal } = opts
  for (let attempt = 1; ; attempt++) {
    try {
      return await run(attempt)
    } catch (err) {
      if (!(err instanceof RetryableFailure)) throw err
      const asked = err.retryAfterMs
      if (asked !== undefined && asked > policy.maxRetryAfterMs) throw tooLong(err.error, asked, policy)
      if (attempt >= policy.maxAttempts) throw gaveUp(err.error, attempt)
      const delayMs = retryDelay(attempt, policy, asked, opts.random)
      opts.onRetry?.({
        attempt: attempt + 1,
        maxAttempts: policy.maxAttempts,
        delayMs,
        reason: err.error.message,
        serverAsked: asked !== undefined,
        discarded: err.discarded,
      })
      if (!(await sleep(delayMs, signal))) return opts.onAborted()
    }
  }
}

function withMessage(error: ProviderError, message: string): ProviderError {
  return new ProviderError(error.kind, message, {
    url: error.url,
    cause: error.cause,
    ...(error.status !== undefined ? { status: error.status } : {}),
  })
}

function gaveUp(error: ProviderError, attempts: number): ProviderError {
  if (attempts <= 1) return error
  return withMessage(error, `${error.message} (gave up after ${attempts} attempts)`)
}

function tooLong(error: ProviderError, askedMs: number, policy: RetryPolicy): ProviderError {
  const seconds = `${Math.ceil(askedMs / 1000)} s`
  const readable = formatWait(askedMs)
  const asked = readable === seconds ? seconds : `${seconds} (${readable})`
  const cap = Math.round(policy.maxRetryAfterMs / 1000)
  return withMessage(
    error,
    `${error.message}; the server asked to wait ${asked} before retrying, longer than the ${cap} s ` +
      'agent-tui waits at most (settings "retry.maxRetryAfterSeconds"): try again later',
  )
}
