import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { CARRIED_CHECK_MS, startSpinnerTicks, TICK_MS } from '../../../source/ui/terminal/spinner-ticks.js'

/** A spinner region whose frames are counted; `carry()` stands for another pane's frame repainting it. */
function fakeRegion() {
  let carriedAt = Number.NEGATIVE_INFINITY
  const region = {
    ownFrames: 0,
    sinceCarried: () => Date.now() - carriedAt,
    invalidate: () => {
      region.ownFrames++
    },
    carry: () => {
      carriedAt = Date.now()
    },
  }
  return region
}

describe('spinner ticks', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('ticks on its own while nothing else draws (waiting for the first token)', () => {
    const region = fakeRegion()
    const stop = startSpinnerTicks(region)
    vi.advanceTimersByTime(1200)
    expect(region.ownFrames).toBe(1200 / TICK_MS)
    stop()
    vi.advanceTimersByTime(1200)
    expect(region.ownFrames).toBe(1200 / TICK_MS)
  })

  it('asks for no frames of its own while a streaming reply repaints it, and wakes rarely', () => {
    const region = fakeRegion()
    const stop = startSpinnerTicks(region)
    const wakes = vi.spyOn(region, 'sinceCarried')
    // The reply's frames, every 66 ms for 3 s.
    for (let ms = 0; ms < 3000; ms += 66) {
      region.carry()
      vi.advanceTimersByTime(66)
    }
    expect(region.ownFrames).toBe(0)
    expect(wakes.mock.calls.length).toBeLessThanOrEqual(Math.ceil(3000 / CARRIED_CHECK_MS) + 1)
    stop()
  })

  it('starts ticking on its own again soon after the stream stalls', () => {
    const region = fakeRegion()
    const stop = startSpinnerTicks(region)
    for (let ms = 0; ms < 1000; ms += 66) {
      region.carry()
      vi.advanceTimersByTime(66)
    }
    expect(region.ownFrames).toBe(0)
    vi.advanceTimersByTime(CARRIED_CHECK_MS + TICK_MS)
    expect(region.ownFrames).toBeGreaterThanOrEqual(1)
    const before = region.ownFrames
    vi.advanceTimersByTime(10 * TICK_MS)
    expect(region.ownFrames - before).toBe(10)
    stop()
  })
})
