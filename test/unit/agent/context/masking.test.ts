import { describe, expect, it } from 'vitest'
import {
  firstLine,
  MASK_MIN_CHARS,
  maskBoundary,
  placeholderText,
  planMasking,
} from '../../../../source/agent/context/masking.js'
import type { ChatMessage } from '../../../../source/store/messages.js'

describe('maskBoundary (epochs)', () => {
  it.each([
    // [tool results, window, masked]
    [0, 4, 0],
    [7, 4, 0], // the tail may grow to twice the window before anything is masked
    [8, 4, 4], // then it drops back to the window
    [11, 4, 4], // …and stays put while the tail grows again: requests only append
    [12, 4, 8],
    [36, 4, 32],
    [3, 2, 0],
    [4, 2, 2],
    [5, 2, 2],
    [23, 12, 0],
    [24, 12, 12],
    [10, 0, 10], // window 0: everything old is masked at once
  ])('%i results, window %i → %i masked', (total, window, masked) => {
    expect(maskBoundary(total, window)).toBe(masked)
  })

  it('only moves when the unmasked tail reaches twice the window, and then leaves the window whole', () => {
    let moves = 0
    for (let k = 1; k <= 100; k++) {
      const before = maskBoundary(k - 1, 4)
      const now = maskBoundary(k, 4)
      expect(now).toBeGreaterThanOrEqual(before)
      if (now !== before) {
        moves++
        expect(k - before).toBe(8)
        expect(k - now).toBe(4)
      }
      expect(k - now).toBeLessThan(8)
    }
    expect(moves).toBe(24)
  })
})

describe('planMasking', () => {
  const tool = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content })
  const call = (ids: string[]): ChatMessage => ({
    role: 'assistant',
    content: null,
    tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'Read', arguments: '{}' } })),
  })
  const long = 'x'.repeat(MASK_MIN_CHARS + 1)

  it('masks old results over 200 characters that are not pinned, never the window', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'go' }]
    for (let i = 0; i < 8; i++) messages.push(call([`c${i}`]), tool(`c${i}`, i === 1 ? 'short' : long))
    // Index of c2's result: 1 + 2*2 + 1 = 6.
    const plan = planMasking(messages, { window: 4, pinned: (i) => i === 6 })
    expect(plan.total).toBe(8)
    expect(plan.boundary).toBe(4)
    // c0 and c3 masked; c1 is short, c2 pinned; c4–c7 are the window.
    expect(plan.indices.map((i) => (messages[i] as { tool_call_id: string }).tool_call_id)).toEqual([
      'c0',
      'c3',
    ])
  })
})

describe('placeholder', () => {
  it('names the size, the first line without Read numbering, and the file', () => {
    const content = `     1\t   export function greet(name: string) {\n     2\t  return name\n`
    expect(placeholderText(content, '/s/read-ab.txt')).toBe(
      `[Tool result masked: ${content.length} chars, first line: export function greet(name: string) {; full output: /s/read-ab.txt]`,
    )
  })

  it('skips blank lines and caps a long first line', () => {
    expect(firstLine(`\n\n   ${'a'.repeat(200)}`)).toBe(`${'a'.repeat(79)}…`)
    expect(firstLine('')).toBe('')
  })
})
