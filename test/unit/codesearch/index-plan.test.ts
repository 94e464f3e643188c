import { describe, expect, it } from 'vitest'
import { needsEmbedding, planIndex } from '../../../source/codesearch/index-plan.ts'

const f = (mtimeMs: number, size: number, hash = 'h') => ({ mtimeMs, size, hash })

describe('planIndex', () => {
  it.each([
    ['a new file is checked', { a: f(1, 10) }, {}, { check: ['a'], remove: [], unchanged: 0 }],
    [
      'the same mtime and size is left alone',
      { a: f(1, 10) },
      { a: f(1, 10) },
      { check: [], remove: [], unchanged: 1 },
    ],
    ['a new mtime is checked', { a: f(2, 10) }, { a: f(1, 10) }, { check: ['a'], remove: [], unchanged: 0 }],
    ['a new size is checked', { a: f(1, 11) }, { a: f(1, 10) }, { check: ['a'], remove: [], unchanged: 0 }],
    ['a file gone is removed', {}, { a: f(1, 10) }, { check: [], remove: ['a'], unchanged: 0 }],
    [
      'all at once',
      { a: f(1, 1), b: f(5, 2), d: f(1, 1) },
      { a: f(1, 1), b: f(4, 2), c: f(1, 1) },
      { check: ['b', 'd'], remove: ['c'], unchanged: 1 },
    ],
  ])('%s', (_name, disk, indexed, plan) => {
    expect(planIndex(new Map(Object.entries(disk)), new Map(Object.entries(indexed)))).toEqual(plan)
  })
})

describe('needsEmbedding', () => {
  it('only for a new file or new content', () => {
    expect(needsEmbedding(undefined, 'x')).toBe(true)
    expect(needsEmbedding(f(1, 1, 'x'), 'x')).toBe(false)
    expect(needsEmbedding(f(1, 1, 'x'), 'y')).toBe(true)
  })
})
