import { describe, expect, it } from 'vitest'
import { compareNames } from '../../../source/util/compare-names.js'

describe('compareNames', () => {
  it('orders ASCII names as localeCompare does, without ICU', () => {
    const names = [
      'codex',
      'Review',
      'code-reviewer',
      'b2',
      'review',
      'a',
      'B',
      'b',
      'b-10',
      'commit.md',
      'c4-code',
    ]
    const expected = [...names].sort((a, b) => a.localeCompare(b, 'en'))
    expect([...names].sort(compareNames)).toEqual(expected)
  })

  it('is 0 only for the same name', () => {
    expect(compareNames('x', 'x')).toBe(0)
    expect(compareNames('x', 'X')).not.toBe(0)
  })
})
