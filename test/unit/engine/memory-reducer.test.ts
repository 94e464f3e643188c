import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Store } from '../../../source/store/create-store.js'
import type { State } from '../../../source/store/state.js'
import { collectIfGrown, heapBytes, reduceMemoryAfterTurns } from '../../../source/engine/memory-reducer.js'

const MB = 1024 * 1024

/** Just what the reducer reads: the run phase, and store notifications when it changes. */
function phaseStore() {
  let phase = 'idle'
  const listeners = new Set<() => void>()
  const store = {
    getState: () => ({ run: { phase } }) as unknown as State,
    dispatch: () => {},
    subscribe(listener: () => void) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  } satisfies Store
  const setPhase = (next: string) => {
    phase = next
    for (const listener of [...listeners]) listener()
  }
  return { store, setPhase }
}

describe('reduceMemoryAfterTurns', () => {
  let heap = 20 * MB
  const collect = vi.fn(() => {
    heap = 21 * MB
  })
  beforeEach(() => {
    vi.useFakeTimers()
    heap = 20 * MB
    collect.mockClear()
  })
  afterEach(() => vi.useRealTimers())

  const start = (store: Store) =>
    reduceMemoryAfterTurns(store, { collect, heapUsed: () => heap, delayMs: 100, slackBytes: 8 * MB })
  /** A turn runs and ends, leaving `bytes` on the heap. */
  const turnLeaving = (setPhase: (phase: string) => void, bytes: number) => {
    setPhase('streaming')
    heap = bytes
    setPhase('idle')
  }

  it('collects shortly after a turn that left the heap well past what the last collection kept', () => {
    const { store, setPhase } = phaseStore()
    const stop = start(store)
    turnLeaving(setPhase, 40 * MB)
    vi.advanceTimersByTime(99)
    expect(collect).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(collect).toHaveBeenCalledTimes(1)
    // Idle afterwards: nothing more, ever.
    vi.advanceTimersByTime(60_000)
    expect(collect).toHaveBeenCalledTimes(1)
    stop()
  })

  it('leaves a heap that grew less than the slack alone, counting from the last collection', () => {
    const { store, setPhase } = phaseStore()
    const stop = start(store)
    turnLeaving(setPhase, 27 * MB)
    vi.advanceTimersByTime(1_000)
    expect(collect).not.toHaveBeenCalled()
    turnLeaving(setPhase, 30 * MB)
    vi.advanceTimersByTime(1_000)
    expect(collect).toHaveBeenCalledTimes(1)
    // The collection kept 21 MB: the next turn is measured from there.
    turnLeaving(setPhase, 28 * MB)
    vi.advanceTimersByTime(1_000)
    expect(collect).toHaveBeenCalledTimes(1)
    stop()
  })

  it('never collects while a turn runs: a new turn cancels the pending collection', () => {
    const { store, setPhase } = phaseStore()
    const stop = start(store)
    turnLeaving(setPhase, 40 * MB)
    vi.advanceTimersByTime(50)
    setPhase('streaming')
    vi.advanceTimersByTime(1_000)
    expect(collect).not.toHaveBeenCalled()
    stop()
  })

  it('stops for good when stopped', () => {
    const { store, setPhase } = phaseStore()
    const stop = start(store)
    turnLeaving(setPhase, 40 * MB)
    stop()
    vi.advanceTimersByTime(1_000)
    setPhase('streaming')
    setPhase('idle')
    vi.advanceTimersByTime(1_000)
    expect(collect).not.toHaveBeenCalled()
  })

  it("by default runs V8's own memory-reducing full collection", async () => {
    vi.useRealTimers()
    const { store, setPhase } = phaseStore()
    const majors: number[] = []
    const { PerformanceObserver, constants } = await import('node:perf_hooks')
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const kind = (entry as { detail?: { kind?: number } }).detail?.kind
        if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors.push(entry.startTime)
      }
    })
    observer.observe({ entryTypes: ['gc'] })
    const stop = reduceMemoryAfterTurns(store, { delayMs: 0, slackBytes: 0 })
    setPhase('streaming')
    setPhase('idle')
    await vi.waitFor(() => expect(majors.length).toBeGreaterThan(0), { timeout: 5_000 })
    observer.disconnect()
    stop()
  })
})

describe('collectIfGrown (after start-up read many files)', () => {
  it('collects only when the heap grew by the slack since the mark', () => {
    expect(collectIfGrown(heapBytes())).toBe(false)
    // Grown by more than a byte since an empty heap: V8's gc runs (it is handed out in a vm context).
    expect(collectIfGrown(0, 1)).toBe(true)
  })
})
