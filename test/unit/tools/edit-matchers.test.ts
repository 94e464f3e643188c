import { describe, expect, it } from 'vitest'
import { findClosestRegion } from '../../../source/tools/edit-closest.js'
import { planEdit } from '../../../source/tools/edit-matchers.js'

describe('planEdit', () => {
  const cases: {
    name: string
    content: string
    old: string
    next: string
    replaceAll?: boolean
    expected: string | { reason: string; matcher?: string; count?: number }
    matcher?: string
  }[] = [
    { name: 'exact unique', content: 'a b c', old: 'b', next: 'B', expected: 'a B c', matcher: 'exact' },
    { name: 'exact mid-line', content: 'foo(bar)\n', old: 'o(b', next: 'o(B', expected: 'foo(Bar)\n' },
    {
      name: 'exact ambiguous',
      content: 'x x',
      old: 'x',
      next: 'y',
      expected: { reason: 'ambiguous', matcher: 'exact', count: 2 },
    },
    { name: 'replace all', content: 'x x', old: 'x', next: 'y', replaceAll: true, expected: 'y y' },
    {
      name: 'line deletion keeps surrounding lines',
      content: 'a  \nb\nc\n',
      old: 'a\nb\n',
      next: '',
      expected: 'c\n',
      matcher: 'trailing-whitespace',
    },
    {
      name: 'indentation with tabs',
      content: 'fn {\n\tif a {\n\t\tb()\n\t}\n}\n',
      old: 'if a {\n\tb()\n}',
      next: 'if a {\n\tc()\n}',
      expected: 'fn {\n\tif a {\n\t\tc()\n\t}\n}\n',
      matcher: 'indentation-relative',
    },
    { name: 'not found', content: 'abc', old: 'xyz', next: 'q', expected: { reason: 'not-found' } },
    {
      name: 'blank old lines never fuzzy-match',
      content: 'a\n\n\nb\n',
      old: ' \n ',
      next: 'x',
      expected: { reason: 'not-found' },
    },
  ]
  for (const c of cases) {
    it(c.name, () => {
      const plan = planEdit(c.content, c.old, c.next, c.replaceAll ?? false)
      if (typeof c.expected === 'string') {
        expect(plan.ok).toBe(true)
        if (!plan.ok) return
        expect(plan.content).toBe(c.expected)
        if (c.matcher) expect(plan.matcher).toBe(c.matcher)
      } else {
        expect(plan).toMatchObject({ ok: false, ...c.expected })
      }
    })
  }
})

describe('findClosestRegion', () => {
  it('finds the most similar window in a large file via anchors', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `const value${i} = compute(${i}, "label ${i}")`)
    const old = 'const value4321 = compute(4321, "label 4321")\nconst value4322 = compute(4322, "labl 4322")'
    const region = findClosestRegion(lines.join('\n'), old.replace('4321, ', '4321 ,'))
    expect(region?.startLine).toBe(4322)
    expect(region?.similarity).toBeGreaterThan(0.8)
  })

  it('returns undefined for an empty file', () => {
    expect(findClosestRegion('', 'x')).toBeUndefined()
  })
})
