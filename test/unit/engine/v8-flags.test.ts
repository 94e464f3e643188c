import { describe, expect, it } from 'vitest'
import { engineFlags } from '../../../source/engine/v8-flags.js'

describe('engineFlags', () => {
  it('defers V8 collections and compiles regular expressions once, by default', () => {
    expect(engineFlags([])).toEqual(['--heap-growing-percent=200', '--no-regexp-tier-up'])
    expect(engineFlags(['--max-old-space-size=4096', '--enable-source-maps'])).toEqual([
      '--heap-growing-percent=200',
      '--no-regexp-tier-up',
    ])
  })

  it("leaves node's own settings of the same things in charge, whichever spelling", () => {
    expect(engineFlags(['--heap_growing_percent=50'])).toEqual(['--no-regexp-tier-up'])
    expect(engineFlags(['--regexp-tier-up'])).toEqual(['--heap-growing-percent=200'])
    expect(engineFlags(['--no-regexp_tier_up', '--heap-growing-percent=10'])).toEqual([])
    expect(engineFlags(['--regexp-tier-up-ticks=5'])).toEqual(['--heap-growing-percent=200'])
  })
})
