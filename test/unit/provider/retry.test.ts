import { describe, expect, it } from 'vitest'
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  isRetryableError,
  formatWait,
  isRetryableStatus,
  parseRetryAfter,
  RetryableFailure,
  retryDelay,
  sleep,
  withRetry,
} from '../../../source/provider/retry.js'
import { ProviderError, type RetryInfo } from '../../../source/provider/types.js'

const URL = 'http://127.0.0.1:1/v1'
const policy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 60_000 }

describe('retry delays', () => {
  it('grows the wait with every retry: jitter over the upper half of a doubling, capped window', () => {
    const lowest = [1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy, () => 0))
    const highest = [1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy, () => 0.999999))
    expect(lowest).toEqual([50, 100, 200, 400, 500])
    expect(highest).toEqual([99, 199, 399, 799, 999])
    // Never nothing, and a later retry never waits less than an earlier one (until the cap).
    for (let n = 1; n < 4; n++) expect(lowest[n]).toBeGreaterThan(highest[n - 1] as number)
    expect(backoffDelay(1, DEFAULT_RETRY_POLICY, () => 0)).toBe(500)
  })

  it("takes the server's Retry-After as the wait when it sent one", () => {
    expect(retryDelay(1, policy, 2500, () => 0.5)).toBe(2500)
    expect(retryDelay(1, policy, 0, () => 0.5)).toBe(0)
    expect(retryDelay(1, policy, undefined, () => 0.5)).toBe(75)
  })

  it.each([
    [600, '0.6 s'],
    [40, '0.1 s'],
    [9_900, '9.9 s'],
    [9_940, '10 s'],
    [12_000, '12 s'],
    [95_000, '95 s'],
    [119_500, '2 min'],
    [300_000, '5 min'],
    [90_000 + 60_000, '2 min 30 s'],
    [3_600_000, '60 min'],
  ])('formats a wait of %i ms as %s', (ms, text) => {
    expect(formatWait(ms)).toBe(text)
  })

  it('parses retry-after-ms, Retry-After seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-22T10:00:00Z')
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '1234' }), now)).toBe(1234)
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250)
    expect(parseRetryAfter(new Headers({ 'retry-after': '3' }), now)).toBe(3000)
    expect(parseRetryAfter(new Headers({ 'retry-after': '0.5' }), now)).toBe(500)
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 10:00:07 GMT' }), now)).toBe(7000)
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 09:00:00 GMT' }), now)).toBe(0)
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined()
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined()
    expect(parseRetryAfter(undefined, now)).toBeUndefined()
  })

  it('classifies statuses and error kinds', () => {
    expect([408, 409, 429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true)
    expect([400, 401, 403, 404, 413, 422].some(isRetryableStatus)).toBe(false)
    const err = (kind: ProviderError['kind'], status?: number) =>
      new ProviderError(kind, 'x', { url: URL, ...(status !== undefined ? { status } : {}) })
    expect(isRetryableError(err('network'))).toBe(true)
    expect(isRetryableError(err('timeout'))).toBe(true)
    expect(isRetryableError(err('server', 503))).toBe(true)
    expect(isRetryableError(err('auth', 401))).toBe(false)
    expect(isRetryableError(err('context_overflow', 400))).toBe(false)
    expect(isRetryableError(err('protocol'))).toBe(false)
  })
})

describe('withRetry', () => {
  const failure = (status = 503, retryAfterMs?: number) =>
    new RetryableFailure(
      new ProviderError('server', `${URL} answered ${status}`, { url: URL, status }),
      retryAfterMs,
    )

  it('retries RetryableFailures, reporting each wait before it happens', async () => {
    const infos: RetryInfo[] = []
    let calls = 0
    const result = await withRetry(
      async (attempt) => {
        calls += 1
        if (attempt < 3) throw failure(503, attempt === 2 ? 7 : undefined)
        return `ok on ${attempt}`
      },
      {
        policy,
        signal: new AbortController().signal,
        onAborted: () => 'aborted',
        onRetry: (i) => infos.push(i),
        random: () => 0,
      },
    )
    expect(result).toBe('ok on 3')
    expect(calls).toBe(3)
    expect(infos).toEqual([
      {
        attempt: 2,
        maxAttempts: 4,
        delayMs: 50,
        reason: `${URL} answered 503`,
        serverAsked: false,
        discarded: false,
      },
      {
        attempt: 3,
        maxAttempts: 4,
        delayMs: 7,
        reason: `${URL} answered 503`,
        serverAsked: true,
        discarded: false,
      },
    ])
  })

  it('gives up after maxAttempts with the last error, naming the attempt count', async () => {
    let calls = 0
    const run = withRetry(
      async () => {
        calls += 1
        throw failure(502)
      },
      { policy, signal: new AbortController().signal, onAborted: () => 'aborted', random: () => 0 },
    )
    await expect(run).rejects.toMatchObject({
      kind: 'server',
      status: 502,
      message: expect.stringContaining('gave up after 4 attempts'),
    })
    expect(calls).toBe(4)
  })

  it('says when a failed attempt had shown output that the retry withdraws', async () => {
    const infos: RetryInfo[] = []
    const cut = new ProviderError('network', `${URL} closed the stream mid-reply`, { url: URL })
    const result = await withRetry(
      async (attempt) => {
        if (attempt === 1) throw new RetryableFailure(cut, undefined, true)
        return 'whole'
      },
      { policy, signal: new AbortController().signal, onAborted: () => '', onRetry: (i) => infos.push(i) },
    )
    expect(result).toBe('whole')
    expect(infos).toMatchObject([{ attempt: 2, discarded: true, serverAsked: false }])
  })

  it('fails at once, naming the wait, when the server asks for more than the cap', async () => {
    let calls = 0
    const infos: RetryInfo[] = []
    const run = withRetry(
      async () => {
        calls += 1
        throw failure(429, 3_600_000)
      },
      { policy, signal: new AbortController().signal, onAborted: () => '', onRetry: (i) => infos.push(i) },
    )
    await expect(run).rejects.toMatchObject({
      status: 429,
      message: expect.stringMatching(
        /answered 429; the server asked to wait 3600 s \(60 min\) before retrying, longer than the 60 s/,
      ),
    })
    expect(calls).toBe(1)
    expect(infos).toEqual([])
  })

  it('honours a Retry-After right at the cap', async () => {
    const infos: RetryInfo[] = []
    const controller = new AbortController()
    await withRetry(
      async () => {
        throw failure(429, 60_000)
      },
      {
        policy,
        signal: controller.signal,
        onAborted: () => '',
        onRetry: (i) => {
          infos.push(i)
          controller.abort()
        },
      },
    )
    expect(infos).toMatchObject([{ delayMs: 60_000, serverAsked: true }])
  })

  it('rethrows other errors at once', async () => {
    let calls = 0
    const boom = new ProviderError('auth', 'no', { url: URL, status: 401 })
    const run = withRetry(
      async () => {
        calls += 1
        throw boom
      },
      { policy, signal: new AbortController().signal, onAborted: () => 'aborted' },
    )
    await expect(run).rejects.toBe(boom)
    expect(calls).toBe(1)
  })

  it('returns the aborted result when the signal fires during a wait', async () => {
    const controller = new AbortController()
    const result = await withRetry(
      async () => {
        throw failure(503, 50_000)
      },
      {
        ...{ policy: DEFAULT_RETRY_POLICY },
        signal: controller.signal,
        onAborted: () => 'aborted',
        onRetry: () => controller.abort(),
      },
    )
    expect(result).toBe('aborted')
  })

  it('sleep resolves true when it ran out and false when aborted', async () => {
    expect(await sleep(1, new AbortController().signal)).toBe(true)
    const controller = new AbortController()
    controller.abort()
    expect(await sleep(60_000, controller.signal)).toBe(false)
  })
})
