import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { RetryNotice, recoveredText, retryNoticeText } from '../../../../source/agent/turn/retry-notice.js'
import type { RetryInfo } from '../../../../source/provider/types.js'
import { type Action, isPersisted } from '../../../../source/store/actions.js'

const REASON = 'cannot reach http://127.0.0.1:9/v1: connect ECONNREFUSED 127.0.0.1:9'
const info = (attempt: number, delayMs: number, more: Partial<RetryInfo> = {}): RetryInfo => ({
  attempt,
  maxAttempts: 5,
  delayMs,
  reason: REASON,
  serverAsked: false,
  discarded: false,
  ...more,
})

describe('retry notice text', () => {
  it.each([
    [info(2, 700), 700, `${REASON} — attempt 1 of 5 failed; next try in 0.7 s`],
    [info(3, 1400), 400, `${REASON} — attempt 2 of 5 failed; next try in 0.4 s`],
    [
      info(2, 30_000, { serverAsked: true }),
      30_000,
      `${REASON} — attempt 1 of 5 failed; next try in 30 s (as the server asked)`,
    ],
    [
      info(2, 600, { discarded: true }),
      600,
      `${REASON} — attempt 1 of 5 failed; the partial reply was discarded; next try in 0.6 s`,
    ],
    [info(4, 2000), 0, `${REASON} — attempt 3 of 5 failed; trying again (attempt 4 of 5)…`],
  ])('reads %#', (retry, remaining, text) => {
    expect(retryNoticeText(retry, remaining)).toBe(text)
  })

  it('says on which attempt it recovered', () => {
    expect(recoveredText(info(3, 1000))).toBe(`${REASON} — recovered on attempt 3 of 5`)
  })
})

describe('RetryNotice', () => {
  let actions: Action[]
  let notice: RetryNotice
  beforeEach(() => {
    vi.useFakeTimers()
    actions = []
    let n = 0
    notice = new RetryNotice({ dispatch: (a) => actions.push(a), newId: (p) => `${p}-${++n}`, now: Date.now })
  })
  afterEach(() => {
    vi.useRealTimers()
  })
  const texts = () => actions.map((a) => ('text' in a ? a.text : a.type))

  it('keeps one notice for all retries of a request, counting the wait down, and settles it once', () => {
    notice.retrying(info(2, 2400))
    vi.advanceTimersByTime(2400)
    notice.retrying(info(3, 1200))
    vi.advanceTimersByTime(1200)
    notice.recovered()
    vi.advanceTimersByTime(10_000)
    expect(new Set(actions.map((a) => ('id' in a ? a.id : '')))).toEqual(new Set(['notice-1']))
    expect(texts()).toEqual([
      `${REASON} — attempt 1 of 5 failed; next try in 2.4 s`,
      `${REASON} — attempt 1 of 5 failed; next try in 2.0 s`,
      `${REASON} — attempt 1 of 5 failed; next try in 1.0 s`,
      `${REASON} — attempt 1 of 5 failed; trying again (attempt 2 of 5)…`,
      `${REASON} — attempt 2 of 5 failed; next try in 1.2 s`,
      `${REASON} — attempt 2 of 5 failed; next try in 1.0 s`,
      `${REASON} — attempt 2 of 5 failed; trying again (attempt 3 of 5)…`,
      `${REASON} — recovered on attempt 3 of 5`,
    ])
    // Only the settled text reaches the session log.
    expect(actions.filter(isPersisted)).toEqual([
      {
        type: 'notice/added',
        id: 'notice-1',
        level: 'info',
        text: `${REASON} — recovered on attempt 3 of 5`,
      },
    ])
  })

  it('replaces the retry notice with the final error', () => {
    notice.retrying(info(2, 500))
    notice.failed(`${REASON} (gave up after 2 attempts)`)
    vi.advanceTimersByTime(5000)
    expect(actions.at(-1)).toEqual({
      type: 'notice/added',
      id: 'notice-1',
      level: 'error',
      text: `${REASON} (gave up after 2 attempts)`,
    })
    expect(actions).toHaveLength(2)
  })

  it('keeps the final error when the next attempt starts before the countdown ticked its last', () => {
    // The wait ends (the provider's own timer) a moment before the countdown's last tick is due: the
    // attempt fails at once and the next wait starts. The old countdown must not tick on and repaint the
    // notice after it was settled.
    notice.retrying(info(2, 1001))
    vi.advanceTimersByTime(1000)
    notice.retrying(info(3, 2000))
    notice.failed(`${REASON} (gave up after 3 attempts)`)
    vi.advanceTimersByTime(10_000)
    expect(actions.at(-1)).toEqual({
      type: 'notice/added',
      id: 'notice-1',
      level: 'error',
      text: `${REASON} (gave up after 3 attempts)`,
    })
  })

  it('adds nothing for a request that needed no retry, and an error notice for one that failed at once', () => {
    notice.recovered()
    notice.interrupted()
    expect(actions).toEqual([])
    notice.failed('authentication failed')
    expect(actions).toEqual([
      { type: 'notice/added', id: 'notice-1', level: 'error', text: 'authentication failed' },
    ])
  })

  it('settles as not retried when the user interrupts a wait', () => {
    notice.retrying(info(2, 5000))
    notice.interrupted()
    vi.advanceTimersByTime(10_000)
    expect(actions).toHaveLength(2)
    expect(actions[1]).toMatchObject({
      type: 'notice/added',
      level: 'warn',
      text: `${REASON} — attempt 1 of 5 failed; not retried (interrupted)`,
    })
  })
})
