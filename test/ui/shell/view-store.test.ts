import { describe, expect, it } from 'vitest'
import type { Action } from '../../../source/store/actions.js'
import { createViewStore } from '../../../source/ui/hooks/view-store.js'
import { makeStore } from './helpers.js'

const notice = (n: number): Action => ({
  type: 'notice/added',
  id: `n${n}`,
  level: 'info',
  text: `notice ${n}`,
})

/** A scheduler the test runs by hand, with a clock it moves. */
function manualScheduler() {
  let clock = 0
  const queue: Array<{ at: number; fn: () => void; cancelled: boolean }> = []
  return {
    now: () => clock,
    later(ms: number, fn: () => void) {
      const entry = { at: clock + ms, fn, cancelled: false }
      queue.push(entry)
      return () => {
        entry.cancelled = true
      }
    },
    /** Moves the clock to `to`, running what is due on the way. */
    advance(to: number) {
      clock = to
      for (const entry of queue.splice(0)) {
        if (entry.cancelled) continue
        if (entry.at <= clock) entry.fn()
        else queue.push(entry)
      }
    },
    pending: () => queue.filter((e) => !e.cancelled).length,
  }
}

describe('the view store', () => {
  it('tells the view of the runtime’s changes only once the runtime has stopped to wait', async () => {
    const store = makeStore()
    const view = createViewStore(store)
    const seen: Array<{ notices: number; requestSent: boolean }> = []
    let requestSent = false
    view.subscribe(() => seen.push({ notices: store.getState().transcript.order.length, requestSent }))

    // A tool's result and the next request, as the loop goes from one await to the next on microtasks.
    store.dispatch(notice(1))
    await Promise.resolve()
    store.dispatch(notice(2))
    await Promise.resolve()
    requestSent = true
    expect(seen).toEqual([])

    await new Promise((resolve) => setImmediate(resolve))
    expect(seen).toEqual([{ notices: 2, requestSent: true }])
    view.dispose()
  })

  it('tells the view of runtime changes at most once per frame interval', () => {
    const store = makeStore()
    const clock = manualScheduler()
    const view = createViewStore(store, { intervalMs: 33, now: clock.now, later: clock.later })
    let notified = 0
    view.subscribe(() => notified++)

    store.dispatch(notice(1))
    clock.advance(0)
    expect(notified).toBe(1)
    // Two quick changes 10 and 20 ms later: one notification, when the interval is up.
    clock.advance(10)
    store.dispatch(notice(2))
    clock.advance(20)
    store.dispatch(notice(3))
    expect(notified).toBe(1)
    clock.advance(32)
    expect(notified).toBe(1)
    clock.advance(33)
    expect(notified).toBe(2)
    expect(clock.pending()).toBe(0)
  })

  it('answers the view’s own dispatch at once, with the runtime’s pending changes', () => {
    const store = makeStore()
    const clock = manualScheduler()
    const view = createViewStore(store, { now: clock.now, later: clock.later })
    const seen: number[] = []
    view.subscribe(() => seen.push(store.getState().transcript.order.length))

    store.dispatch(notice(1))
    expect(seen).toEqual([])
    view.dispatch({ type: 'ui/focus', focus: 'transcript' })
    expect(seen).toEqual([1])
    expect(view.getState().ui.focus).toBe('transcript')
    clock.advance(100)
    expect(seen).toEqual([1])
  })

  it('stops listening once disposed', () => {
    const store = makeStore()
    const clock = manualScheduler()
    const view = createViewStore(store, { now: clock.now, later: clock.later })
    let notified = 0
    view.subscribe(() => notified++)
    store.dispatch(notice(1))
    view.dispose()
    clock.advance(100)
    store.dispatch(notice(2))
    clock.advance(200)
    expect(notified).toBe(0)
  })
})
