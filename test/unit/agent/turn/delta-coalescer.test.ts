import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DeltaCoalescer } from '../../../../source/agent/turn/delta-coalescer.js'

describe('DeltaCoalescer', () => {
  let clock = 0
  let emitted: Array<[string, string]> = []
  const make = () =>
    new DeltaCoalescer(
      (text, reasoning) => emitted.push([text, reasoning]),
      50,
      () => clock,
    )

  beforeEach(() => {
    vi.useFakeTimers()
    clock = 1000
    emitted = []
  })
  afterEach(() => vi.useRealTimers())

  it('shows the first delta at once, then at most one update per interval, on the arriving chunks', () => {
    const c = make()
    c.push('text', 'a')
    expect(emitted).toEqual([['a', '']])
    for (const [at, delta] of [
      [1020, 'b'],
      [1040, 'c'],
      [1060, 'd'],
    ] as const) {
      clock = at
      c.push('text', delta)
    }
    // 60 ms after the first update the third chunk carries everything buffered, without a timer firing.
    expect(emitted).toEqual([
      ['a', ''],
      ['bcd', ''],
    ])
    expect(vi.getTimerCount()).toBe(0)
  })

  it('delivers what is buffered when the stream pauses, within one interval', () => {
    const c = make()
    c.push('text', 'a')
    clock = 1010
    c.push('reasoning', 'r')
    c.push('text', 'b')
    expect(emitted).toEqual([['a', '']])
    clock = 1060
    vi.advanceTimersByTime(50)
    expect(emitted).toEqual([
      ['a', ''],
      ['b', 'r'],
    ])
    expect(vi.getTimerCount()).toBe(0)
  })

  it('flush hands over everything synchronously and leaves no timer behind', () => {
    const c = make()
    c.push('text', 'a')
    clock = 1001
    c.push('text', 'b')
    c.flush()
    expect(emitted).toEqual([
      ['a', ''],
      ['b', ''],
    ])
    expect(vi.getTimerCount()).toBe(0)
    c.flush()
    expect(emitted).toHaveLength(2)
  })
})
