import { describe, expect, it } from 'vitest'
import { PlainHeaders } from '../../../source/provider/plain-headers.js'
import { FormData as FormDataStandIn } from '../../../source/provider/sdk-globals.js'

type Step = ['append' | 'set', string, string] | ['delete', string]

/** Node's own Headers (undici) is the oracle: both are driven the same way and must read the same. */
function both(init: HeadersInit | undefined, steps: Step[] = []): [Headers, PlainHeaders] {
  const pair: [Headers, PlainHeaders] = [new Headers(init), new PlainHeaders(init)]
  for (const headers of pair) {
    for (const step of steps) {
      if (step[0] === 'delete') headers.delete(step[1])
      else headers[step[0]](step[1], step[2])
    }
  }
  return pair
}

const cases: Array<{ name: string; init?: HeadersInit; steps?: Step[] }> = [
  { name: 'empty' },
  {
    name: 'a record, names in any case',
    init: { 'Content-Type': 'application/json', 'X-B': '2', 'x-a': '1' },
  },
  {
    name: 'pairs, one name twice',
    init: [
      ['Accept', 'a'],
      ['accept', 'b'],
      ['X-Z', 'z'],
    ],
  },
  { name: 'values trimmed of HTTP whitespace', init: { a: '  spaced \t', b: '\r\nx\n' } },
  {
    name: 'append joins, set replaces',
    steps: [
      ['append', 'A', '1'],
      ['append', 'a', '2'],
      ['set', 'B', 'x'],
      ['set', 'b', 'y'],
    ],
  },
  { name: 'delete without case', init: { 'X-Gone': '1', keep: '2' }, steps: [['delete', 'x-GONE']] },
  {
    name: 'set-cookie stays apart',
    steps: [
      ['append', 'Set-Cookie', 'a=1'],
      ['append', 'set-cookie', 'b=2'],
      ['append', 'x', 'y'],
    ],
  },
  { name: 'empty value', init: { a: '' } },
]

describe('PlainHeaders reads as the global Headers does', () => {
  for (const { name, init, steps } of cases) {
    it(name, () => {
      const [oracle, plain] = both(init, steps)
      expect([...plain]).toEqual([...oracle])
      expect([...plain.keys()]).toEqual([...oracle.keys()])
      expect([...plain.values()]).toEqual([...oracle.values()])
      expect(plain.getSetCookie()).toEqual(oracle.getSetCookie())
      for (const key of ['a', 'A', 'accept', 'set-cookie', 'x-gone', 'b', 'missing', 'content-type']) {
        expect(plain.get(key)).toBe(oracle.get(key))
        expect(plain.has(key)).toBe(oracle.has(key))
      }
      const seen: string[][] = []
      plain.forEach((value, key, parent) => {
        expect(parent).toBe(plain)
        seen.push([key, value])
      })
      expect(seen).toEqual([...oracle])
    })
  }

  it('copies another Headers, of either kind', () => {
    const source = new Headers({ b: '2', a: '1' })
    expect([...new PlainHeaders(source)]).toEqual([...source])
    expect([...new PlainHeaders(new PlainHeaders(source))]).toEqual([...source])
    expect([...new Headers(new PlainHeaders(source))]).toEqual([...source])
  })

  type Make = new (init?: HeadersInit) => Headers
  const invalid: Array<[string, (H: Make) => unknown]> = [
    ['a name with a space', (H) => new H({ 'x y': '1' })],
    ['an empty name', (H) => new H().append('', 'v')],
    ['a name beyond ASCII', (H) => new H().set('na\u00efve', 'v')],
    ['a value with a line break inside', (H) => new H({ a: 'x\ny' })],
    ['a value with NUL', (H) => new H().append('a', 'x\0y')],
    ['a value beyond U+00FF', (H) => new H().set('a', 'a\u2713')],
    ['a pair of three', (H) => new H([['a', 'b', 'c']] as unknown as HeadersInit)],
  ]
  for (const [name, make] of invalid) {
    it(`throws a TypeError for ${name}, as the global one does`, () => {
      expect(() => make(Headers)).toThrow(TypeError)
      expect(() => make(PlainHeaders)).toThrow(TypeError)
    })
  }
})

describe('the FormData stand-in the bundled SDK asks', () => {
  it('knows a real FormData and nothing else', () => {
    expect(new FormData() instanceof (FormDataStandIn as unknown as typeof FormData)).toBe(true)
    for (const other of [
      {},
      'text',
      null,
      new URLSearchParams('a=1'),
      new Uint8Array(1),
      new PlainHeaders(),
    ]) {
      expect(other instanceof (FormDataStandIn as unknown as typeof FormData)).toBe(false)
    }
  })
})
