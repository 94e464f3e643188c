import { describe, expect, it } from 'vitest'
import { historyArguments, prepareToolCalls } from '../../../../source/agent/tool-call/arguments.js'
import { parseToolArguments } from '../../../../source/agent/tool-call/arguments.js'
import type { ToolCall } from '../../../../source/store/messages.js'

describe('parseToolArguments', () => {
  it.each([
    ['{"a":1}', { a: 1 }, false],
    ['', {}, false],
    ['  ', {}, true],
    ['```json\n{"a":1}\n```', { a: 1 }, true],
    ['```\n{"a":1}\n```', { a: 1 }, true],
    ['{"a":1,}', { a: 1 }, true],
    ['{"a":[1,2,],}', { a: [1, 2] }, true],
    ['```json\n{"a":"x, }",}\n```', { a: 'x, }' }, true],
  ])('accepts %j (trivial repairs only)', (raw, value, repaired) => {
    expect(parseToolArguments(raw)).toEqual({ ok: true, value, repaired })
  })

  it.each([
    '{"command":"touch cutA.txt"',
    '{"command":"touch cut',
    '{"a":{"b":1}',
    '{"a":1}}',
    'not json',
    "{'a': 1}",
  ])('refuses %j instead of inventing what is missing', (raw) => {
    const parsed = parseToolArguments(raw)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) {
      expect(parsed.error).toMatch(/^arguments are not valid JSON \(.+\); received: /)
      expect(parsed.error).toContain(raw)
    }
  })
})

const call = (id: string, name: string, args: string): ToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: args },
})

describe('prepareToolCalls', () => {
  it('keeps arguments that are already their own JSON, and re-encodes all others (never the raw text)', () => {
    const canonical = call('c0', 'Read', '{"file_path":"a.txt"}')
    const prepared = prepareToolCalls(
      [canonical, call('c1', 'Read', '{"file_path": "a.txt"}'), call('c2', 'Read', '{"file_path":"b",}')],
      'tool_calls',
    )
    expect(prepared.calls[0]).toBe(canonical)
    expect(prepared.calls[1]?.function.arguments).toBe('{"file_path":"a.txt"}')
    expect(prepared.calls[2]?.function.arguments).toBe('{"file_path":"b"}')
    expect(prepared.refused.size).toBe(0)
    expect(prepared.cutByLimit).toEqual([])
  })

  it('gives an invalid call {} in the history and refuses it with the parse error', () => {
    const prepared = prepareToolCalls(
      [call('c1', 'Bash', '{"command":"touch cutA.txt"'), call('c2', 'Read', '{}')],
      'tool_calls',
    )
    expect(prepared.calls.map((c) => c.function.arguments)).toEqual(['{}', '{}'])
    expect(prepared.calls[0]).toMatchObject({ id: 'c1', function: { name: 'Bash' } })
    expect([...prepared.refused.keys()]).toEqual(['c1'])
    expect(prepared.refused.get('c1')?.message).toMatch(
      /^arguments are not valid JSON \(.+\); received: \{"command":"touch cutA.txt"; the call was not run$/,
    )
    expect(prepared.cutByLimit).toEqual([])
  })

  it('says the output limit cut the arguments off when the reply ended on length', () => {
    const prepared = prepareToolCalls(
      [call('c1', 'Read', '{"file_path":"a"}'), call('c2', 'Write', '{"file_path":"big.txt","content":"lo')],
      'length',
    )
    expect(prepared.refused.has('c1')).toBe(false)
    expect(prepared.refused.get('c2')?.message).toContain(
      'the reply hit the output token limit (finish_reason: length)',
    )
    expect(prepared.refused.get('c2')?.message).toContain('the call was not run')
    expect(prepared.cutByLimit).toEqual(['Write'])
    expect(prepared.calls[1]?.function.arguments).toBe('{}')
  })
})

const deep = (n: number) => `{"a":${'['.repeat(n)}${']'.repeat(n)}}`

// What a model's arguments become in the history: always the JSON of one object (what runs), or `{}`
// with the call refused. Rows: [what, raw arguments, the value that runs (null: refused)].
const HOSTILE: Array<[string, string, Record<string, unknown> | null]> = [
  ['byte-order mark before the JSON', '\ufeff{"a":1}', { a: 1 }],
  ['byte-order mark and spaces', ' \ufeff \n{"a": 1} \t', { a: 1 }],
  ['trailing garbage', '{"a":1} trailing', null],
  ['two objects', '{"a":1}{"b":2}', null],
  ['two objects on lines', '{"a":1}\n{"b":2}', null],
  ['code fence', '```json\n{"a":1}\n```', { a: 1 }],
  ['code fence with a trailing comma', '```\n{"a":[1,],}\n```', { a: [1] }],
  ['NaN', '{"a":NaN}', null],
  ['Infinity', '{"a":Infinity}', null],
  ['duplicate keys (the last one wins, once)', '{"a":1,"a":2}', { a: 2 }],
  ['__proto__ key', '{"__proto__":{"x":1},"b":2}', JSON.parse('{"__proto__":{"x":1},"b":2}')],
  ['an array', '[1,2]', null],
  ['a string', '"ls"', null],
  ['null', 'null', null],
  ['a number', '42', null],
  ['deep nesting', deep(100_000), null],
  ['moderate nesting', deep(50), JSON.parse(deep(50))],
  ['a huge string', JSON.stringify({ content: 'x'.repeat(2_000_000) }), { content: 'x'.repeat(2_000_000) }],
  ['an escaped lone surrogate', '{"a":"x\\ud800y"}', { a: 'x\ufffdy' }],
  ['an escaped lone low surrogate in a key', '{"\\udc00":1}', { '\ufffd': 1 }],
  ['an escaped surrogate pair (kept)', '{"a":"\\ud83d\\ude00"}', { a: '\u{1f600}' }],
  ['a raw lone surrogate in the text', '{"a":"\ud800"}', { a: '\ufffd' }],
  ['NUL and controls in a value (valid JSON)', '{"a":"\\u0000\\u001b[2J"}', { a: '\u0000\u001b[2J' }],
  ['cut short', '{"a":"b', null],
  ['empty', '', {}],
]

describe('the history keeps the JSON of what runs, never the raw text', () => {
  it.each(HOSTILE)('%s', (_what, raw, runs) => {
    const prepared = prepareToolCalls([call('c1', 'Tool', raw)], 'tool_calls')
    const sent = prepared.calls[0]?.function.arguments ?? ''
    expect(sent.isWellFormed()).toBe(true)
    const value: unknown = JSON.parse(sent)
    expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true)
    expect(JSON.stringify(value)).toBe(sent)
    if (runs === null) {
      expect(sent).toBe('{}')
      expect(prepared.refused.get('c1')?.message).toMatch(/the call was not run$/)
    } else {
      expect(prepared.refused.has('c1')).toBe(false)
      expect(value).toEqual(runs)
      // What the executor parses from the history is what it runs.
      const again = parseToolArguments(sent)
      expect(again.ok && again.value).toEqual(runs)
    }
    // A log written before this keeps the raw text: resume turns it into the same.
    expect(historyArguments(raw)).toBe(sent)
  })
})
