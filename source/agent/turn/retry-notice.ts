import { formatWait } from '../../provider/retry.js'
import type { RetryInfo } from '../../provider/types.js'
import type { Dispatch } from '../../store/create-store.js'

/** The retry notice's text while it waits `remainingMs` before attempt `info.attempt`. */
export function retryNoticeText(info: RetryInfo, remainingMs: number): string {
  const failed = `attempt ${info.attempt - 1} of ${info.maxAttempts} failed`
  const withdrawn = info.discarded ? '; the partial reply was discarded' : ''
  if (remainingMs <= 0) {
    return `${info.reason} — ${failed}${withdrawn}; trying again (attempt ${info.attempt} of ${info.maxAttempts})…`
  }
  const asked = info.serverAsked ? ' (as the server asked)' : ''
  return `${info.reason} — ${failed}${withdrawn}; next try in ${formatWait(remainingMs)}${asked}`
}

/** The settled text once the step got its answer on attempt `info.attempt`. */
export function recoveredText(info: RetryInfo): string {
  return `${info.reason} — recovered on attempt ${info.attempt} of ${info.maxAttempts}`
}

export interface RetryNoticeDeps {
  dispatch: Dispatch
  newId(prefix: string): string
  now(): number
}

/**
 * One notice per request that needed retries, updated in place as attempts fail and the wait counts
 * down (`notice/updated`, not logged), and settled once (`notice/added` with the same id, logged): as
 * recovered, or replaced by the final error. Ticks once a second only while a wait runs.
 */
export class RetryNotice {
  readonly #deps: RetryNoticeDeps
  #id: string | null = null
  #info: RetryInfo | null = null
  #deadline = 0
  #timer: NodeJS.Timeout | null = null

  constructor(deps: RetryNoticeDeps) {
    this.#deps = deps
  }

  /** An attempt failed and the next one starts after `info.delayMs`. */
  retrying(info: RetryInfo): void {
    this.#id ??= this.#deps.newId('notice')
    // The provider's wait can end just before the countdown's last tick is due: that countdown must not
    // run on beside the new one, or it ticks after the notice was settled and paints over the result.
    this.#stop()
    this.#info = info
    this.#deadline = this.#deps.now() + info.delayMs
    this.#tick()
  }

  /** The request got its answer: settle the notice (if there was one) as recovered. */
  recovered(): void {
    const info = this.#info
    this.#stop()
    if (info === null || this.#id === null) return
    this.#settle('info', recoveredText(info))
  }

  /** The request failed for good: `message` replaces the retry notice (or is a new error notice). */
  failed(message: string): void {
    this.#stop()
    this.#settle('error', message)
  }

  /** The user interrupted while a retry waited. */
  interrupted(): void {
    const info = this.#info
    this.#stop()
    if (info === null || this.#id === null) return
    const failed = `attempt ${info.attempt - 1} of ${info.maxAttempts} failed`
    this.#settle('warn', `${info.reason} — ${failed}; not retried (interrupted)`)
  }

  #settle(level: 'info' | 'warn' | 'error', text: string): void {
    const id = this.#id ?? this.#deps.newId('notice')
    this.#info = null
    this.#deps.dispatch({ type: 'notice/added', id, level, text })
  }

  #tick = (): void => {
    this.#timer = null
    const info = this.#info
    if (info === null || this.#id === null) return
    const remaining = this.#deadline - this.#deps.now()
    this.#deps.dispatch({
      type: 'notice/updated',
      id: this.#id,
      level: 'warn',
      text: retryNoticeText(info, remaining),
    })
    if (remaining <= 0) return
    // On the second boundaries of the countdown, and once more when it runs out.
    const next = remaining % 1000 || 1000
    this.#timer = setTimeout(this.#tick, next)
    this.#timer.unref()
  }

  #stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
  }
}
