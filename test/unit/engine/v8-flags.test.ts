import { describe, expect, it } from 'vitest'
import { engineFlags } from '../../../source/engine/v8-flags.js'

const ALL = ['--heap-growing-percent=200', '--no-regexp-tier-up', '--no-turbofan']

describe('engineFlags', () => {
  it('defers V8 collections, compiles regular expressions once and stops at Maglev, by default', () => {
    expect(engineFlags([])).toEqual(ALL)
    expect(engineFlags(['--max-old-space-size=4096', '--enable-source-maps'])).toEqual(ALL)
  })

  it("leaves node's own settings of the same things in charge, whichever spelling", () => {
    expect(engineFlags(['--heap_growing_percent=50'])).toEqual(['--no-regexp-tier-up', '--no-turbofan'])
    expect(engineFlags(['--regexp-tier-up'])).toEqual(['--heap-growing-percent=200', '--no-turbofan'])
    expect(engineFlags(['--no-regexp_tier_up', '--heap-growing-percent=10'])).toEqual(['--no-turbofan'])
    expect(engineFlags(['--regexp-tier-up-ticks=5'])).toEqual(['--heap-growing-percent=200', '--no-turbofan'])
  })

  it('leaves the optimising tiers to the user who names them', () => {
    const tiersLeft = ['--heap-growing-percent=200', '--no-regexp-tier-up']
    expect(engineFlags(['--turbofan'])).toEqual(tiersLeft)
    expect(engineFlags(['--no-turbofan'])).toEqual(tiersLeft)
    expect(engineFlags(['--max-opt=1'])).toEqual(tiersLeft)
    expect(engineFlags(['--max_opt=4'])).toEqual(tiersLeft)
  })
})
