import { describe, expect, it, vi } from 'vitest'
import {
  collectSettled,
  exposeGc,
  type GcFunction,
  gcTunedByUser,
  reduceFootprint,
  settleOnce,
} from '../../../source/engine/settled-collection.js'
import { churn, newSpaceCommitted } from './young-space.ts'

describe('collectSettled', () => {
  it("runs V8's last-resort collection and returns the undo for the first turn", () => {
    const gc = vi.fn<GcFunction>()
    const undo = collectSettled(gc)
    expect(gc).toHaveBeenCalledExactlyOnceWith({ type: 'major', flavor: 'last-resort' })
    expect(undo).toBeTypeOf('function')
    undo?.()
    undo?.()
  })

  it('does nothing without a gc', () => {
    expect(collectSettled(null)).toBeNull()
  })

  it('hands back the young generation a burst of surviving objects grew', () => {
    // The pattern start-up has: much allocated, much of it alive for a while.
    churn(600_000, 100_000)
    const before = newSpaceCommitted()
    const undo = collectSettled()
    undo?.()
    expect(exposeGc()).toBeTypeOf('function')
    expect(newSpaceCommitted()).toBeLessThan(before)
  })
})

describe('reduceFootprint', () => {
  it('passes a refusal on (the finally turns bytecode flushing back on)', () => {
    const gc = vi.fn<GcFunction>(() => {
      throw new Error('refused')
    })
    expect(() => reduceFootprint(gc)).toThrow('refused')
    expect(gc).toHaveBeenCalledExactlyOnceWith({ type: 'major', flavor: 'last-resort' })
  })

  it('hands back what a regular collection keeps resident', () => {
    const gc = exposeGc()
    if (!gc) throw new Error('no gc')
    churn(600_000, 100_000)
    gc()
    const afterRegular = newSpaceCommitted()
    reduceFootprint(gc)
    expect(newSpaceCommitted()).toBeLessThan(afterRegular)
  })
})

describe('settleOnce', () => {
  const make = (turn = false) => {
    const undo = vi.fn()
    const collect = vi.fn(() => undo)
    let turnStarted = turn
    const settle = settleOnce({ parts: 2, turnStarted: () => turnStarted, collect })
    return { settle, collect, undo, startTurn: () => (turnStarted = true) }
  }

  it.each([
    ['both parts done, no turn', false, 2, 1],
    ['only one part done', false, 1, 0],
    ['a turn already started', true, 2, 0],
    ['parts reported again (a second session)', false, 4, 1],
  ])('%s', (_name, turn, reports, collections) => {
    const { settle, collect } = make(turn)
    for (let i = 0; i < reports; i++) settle.done()
    expect(collect).toHaveBeenCalledTimes(collections)
  })

  it('says it is pending until the last part, and undoes at the first turn only once', () => {
    const { settle, undo, startTurn } = make()
    expect(settle.pending()).toBe(true)
    settle.done()
    expect(settle.pending()).toBe(true)
    expect(settle.done()).toBe(true)
    expect(settle.pending()).toBe(false)
    startTurn()
    settle.firstTurn()
    settle.firstTurn()
    expect(undo).toHaveBeenCalledTimes(1)
  })

  it('reports false when the engine gave no gc', () => {
    const settle = settleOnce({ parts: 1, turnStarted: () => false, collect: () => null })
    expect(settle.done()).toBe(false)
  })
})

describe('gcTunedByUser', () => {
  it.each([
    [[], false],
    [['--max-old-space-size=4096'], false],
    [['--expose-gc'], true],
    [['--no-flush-bytecode'], true],
    [['--no-incremental-marking'], true],
    [['--max-semi-space-size=64'], true],
    [['--semi_space_growth_factor=1'], true],
  ])('%j → %s', (argv, tuned) => {
    expect(gcTunedByUser(argv)).toBe(tuned)
  })
})
