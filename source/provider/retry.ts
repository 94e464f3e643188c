import { ProviderError, type RetryInfo } from './types.js'

export interface RetryPolicy {
  /** Total attempts including the first (default 5). */
  maxAttempts: number
  /** Backoff base: the first retry waits up to this long, each later one up to twice as long. */
  baseDelayMs: number
  /** Cap of the exponential backoff window. */
  maxDelayMs: number
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
})

/** A server's Retry-After is honoured up to this long; beyond it the normal backoff applies (as the SDK does). */
export const MAX_RETRY_AFTER_MS = 60_000

/** Anything with a case-insensitive `get`, e.g. fetch `Headers`. */
export interface HeaderSource {
  get(name: string): string | null
}

/** 408, 409, 429 and 5xx are worth another attempt; other statuses will fail the same way again. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500
}

/** Whether a failed attempt may be repeated (ignoring whether output was already delivered). */
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

/** Exponential backoff with full jitter for the `retry`-th retry (1-based): uniform in [0, min(cap, base·2^(retry-1))). */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const window = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1))
  return Math.floor(random() * window)
}

/** The wait before the `retry`-th retry: the server's Retry-After when sane, else jittered backoff. */
export function retryDelay(
  retry: number,
  policy: RetryPolicy,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0 && retryAfterMs <= MAX_RETRY_AFTER_MS) {
    return Math.round(retryAfterMs)
  }
  return backoffDelay(retry, policy, random)
}

/** Thrown by an attempt that failed in a way worth repeating; `withRetry` waits and runs it again. */
export class RetryableFailure extends Error {
  readonly error: ProviderError
  readonly retryAfterMs: number | undefined
  constructor(error: ProviderError, retryAfterMs?: number) {
    super(error.message, { cause: error })
    this.name = 'RetryableFailure'
    this.error = error
    this.retryAfterMs = retryAfterMs
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
 * (then the last failure's ProviderError is thrown, noting the attempt count). Waits honour the signal.
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
      if (attempt >= policy.maxAttempts) throw gaveUp(err.error, attempt)
      const delayMs = retryDelay(attempt, policy, err.retryAfterMs, opts.random)
      opts.onRetry?.({
        attempt: attempt + 1,
        maxAttempts: policy.maxAttempts,
        delayMs,
        reason: err.error.message,
      })
      if (!(await sleep(delayMs, signal))) return opts.onAborted()
    }
  }
}

function gaveUp(error: ProviderError, attempts: number): ProviderError {
  if (attempts <= 1) return error
  return new ProviderError(error.kind, `${error.message} (gave up after ${attempts} attempts)`, {
    url: error.url,
    cause: error.cause,
    ...(error.status !== undefined ? { status: error.status } : {}),
  })
}
