import { describe, expect, it } from 'vitest'
import { prepareToolCalls } from '../../../../source/agent/tool-call/arguments.js'
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
  it('keeps valid arguments as they are and re-encodes repaired ones', () => {
    const valid = call('c1', 'Read', '{"file_path": "a.txt"}')
    const prepared = prepareToolCalls([valid, call('c2', 'Read', '{"file_path":"b",}')], 'tool_calls')
    expect(prepared.calls[0]).toBe(valid)
    expect(prepared.calls[1]?.function.arguments).toBe('{"file_path":"b"}')
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
