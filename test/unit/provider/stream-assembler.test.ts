import { describe, expect, it } from 'vitest'
import { StreamAssembler } from '../../../source/provider/stream-assembler.js'
import { ProviderError } from '../../../source/provider/types.js'

const URL = 'http://127.0.0.1:1/v1'

function delta(d: Record<string, unknown>, finish: string | null = null) {
  return { object: 'chat.completion.chunk', choices: [{ index: 0, delta: d, finish_reason: finish }] }
}

function assemble(chunks: unknown[], newId = (n: number) => `gen_${n}`) {
  const events: string[] = []
  const assembler = new StreamAssembler({
    url: URL,
    newId,
    handlers: {
      onText: (t) => events.push(`text:${t}`),
      onReasoning: (t) => events.push(`reasoning:${t}`),
      onToolCallStart: (c) => events.push(`start:${c.index}:${c.id}:${c.name}`),
    },
  })
  for (const chunk of chunks) assembler.push(chunk)
  return { assembler, events, result: assembler.result() }
}

describe('StreamAssembler', () => {
  it('accumulates text and reasoning deltas and reports them in order', () => {
    const { events, result } = assemble([
      delta({ role: 'assistant', content: '' }),
      delta({ reasoning_content: 'let me ' }),
      delta({ reasoning: 'think' }),
      delta({ content: 'Hello' }),
      delta({ content: ', world' }),
      delta({}, 'stop'),
    ])
    expect(events).toEqual(['reasoning:let me ', 'reasoning:think', 'text:Hello', 'text:, world'])
    expect(result).toMatchObject({
      text: 'Hello, world',
      reasoning: 'let me think',
      finishReason: 'stop',
      aborted: false,
    })
  })

  it('does not count reasoning twice when a server sends both reasoning fields', () => {
    const { result } = assemble([delta({ reasoning_content: 'abc', reasoning: 'abc' })])
    expect(result.reasoning).toBe('abc')
  })

  const expected = [
    { id: 'c1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"a.ts"}' } },
    { id: 'c2', type: 'function', function: { name: 'Grep', arguments: '{"pattern":"x"}' } },
  ]

  it.each([
    [
      'fine',
      [
        delta({
          tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'Read', arguments: '' } }],
        }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '{"file_path"' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: ':"a.ts"}' } }] }),
        delta({
          tool_calls: [
            { index: 1, id: 'c2', type: 'function', function: { name: 'Grep', arguments: '{"pat' } },
          ],
        }),
        delta({ tool_calls: [{ index: 1, function: { arguments: 'tern":"x"}' } }] }),
      ],
    ],
    [
      'whole',
      [
        delta({
          tool_calls: [
            {
              index: 0,
              id: 'c1',
              type: 'function',
              function: { name: 'Read', arguments: '{"file_path":"a.ts"}' },
            },
            {
              index: 1,
              id: 'c2',
              type: 'function',
              function: { name: 'Grep', arguments: '{"pattern":"x"}' },
            },
          ],
        }),
      ],
    ],
    [
      'late ids',
      [
        delta({ tool_calls: [{ index: 0, function: { arguments: '{"file_path"' } }] }),
        delta({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'Read', arguments: ':"a.ts"}' } }] }),
        delta({ tool_calls: [{ index: 1, function: { arguments: '{"pattern":"x"}' } }] }),
        delta({ tool_calls: [{ index: 1, id: 'c2', type: 'function', function: { name: 'Grep' } }] }),
      ],
    ],
    [
      'repeated ids and names',
      [
        delta({
          tool_calls: [{ index: 0, id: 'c1', function: { name: 'Read', arguments: '{"file_path"' } }],
        }),
        delta({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'Read', arguments: ':"a.ts"}' } }] }),
        delta({ tool_calls: [{ index: 1, id: 'c2', function: { name: 'Grep', arguments: '{"pattern"' } }] }),
        delta({ tool_calls: [{ index: 1, id: 'c2', function: { name: 'Grep', arguments: ':"x"}' } }] }),
      ],
    ],
    [
      'every call under index 0',
      [
        delta({
          tool_calls: [{ index: 0, id: 'c1', function: { name: 'Read', arguments: '{"file_path":"a.ts"}' } }],
        }),
        delta({
          tool_calls: [{ index: 0, id: 'c2', function: { name: 'Grep', arguments: '{"pattern":"x"}' } }],
        }),
      ],
    ],
    [
      'no index at all',
      [
        delta({ tool_calls: [{ id: 'c1', function: { name: 'Read', arguments: '{"file_path"' } }] }),
        delta({ tool_calls: [{ function: { arguments: ':"a.ts"}' } }] }),
        delta({ tool_calls: [{ id: 'c2', function: { name: 'Grep', arguments: { pattern: 'x' } } }] }),
      ],
    ],
  ])('assembles tool calls sent as %s', (_name, chunks) => {
    const { result, events } = assemble([...chunks, delta({}, 'tool_calls')])
    expect(result.toolCalls).toEqual(expected)
    expect(result.finishReason).toBe('tool_calls')
    expect(events.filter((e) => e.startsWith('start:')).map((e) => e.split(':').slice(2).join(':'))).toEqual([
      'c1:Read',
      'c2:Grep',
    ])
  })

  it('announces a call only once its id and name are known', () => {
    const assembler = new StreamAssembler({ url: URL, handlers: { onToolCallStart: (c) => starts.push(c) } })
    const starts: Array<{ index: number; id: string; name: string }> = []
    assembler.push(delta({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }))
    expect(starts).toEqual([])
    assembler.push(delta({ tool_calls: [{ index: 0, id: 'c9', function: { name: 'Glob' } }] }))
    expect(starts).toEqual([{ index: 0, id: 'c9', name: 'Glob' }])
  })

  it('generates ids for calls without one (and for duplicates) and announces them at the end', () => {
    const { result, events } = assemble([
      delta({ tool_calls: [{ index: 0, function: { name: 'Read', arguments: '{}' } }] }),
      delta({ tool_calls: [{ index: 1, id: 'dup', function: { name: 'Glob', arguments: '{}' } }] }),
      delta({ tool_calls: [{ index: 2, id: 'dup', function: { name: 'Grep', arguments: '{}' } }] }),
    ])
    expect(result.toolCalls.map((c) => c.id)).toEqual(['gen_0', 'dup', 'gen_2'])
    expect(events).toEqual(['start:1:dup:Glob', 'start:2:dup:Grep', 'start:0:gen_0:Read'])
  })

  it('default generated ids differ between steps', () => {
    const chunk = delta({ tool_calls: [{ index: 0, function: { name: 'Read', arguments: '{}' } }] })
    const a = new StreamAssembler({ url: URL })
    const b = new StreamAssembler({ url: URL })
    a.push(chunk)
    b.push(chunk)
    const [idA, idB] = [a.result().toolCalls[0]?.id, b.result().toolCalls[0]?.id]
    expect(idA).toMatch(/^call_/)
    expect(idA).not.toBe(idB)
  })

  it('reads usage from the final chunk, including cached tokens (and DeepSeek cache hits)', () => {
    const { result } = assemble([
      delta({ content: 'x' }, 'stop'),
      {
        choices: [],
        usage: { prompt_tokens: 100, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 64 } },
      },
    ])
    expect(result.usage).toEqual({ input: 100, output: 5, cached: 64 })
    const deepseek = assemble([
      { choices: [], usage: { prompt_tokens: 9, completion_tokens: 1, prompt_cache_hit_tokens: 8 } },
    ])
    expect(deepseek.result.usage).toEqual({ input: 9, output: 1, cached: 8 })
    expect(assemble([delta({ content: 'x' })]).result.usage).toBeNull()
  })

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['content_filter', 'content_filter'],
    ['function_call', 'tool_calls'],
    ['something_new', 'unknown'],
  ])('maps finish reason %s to %s', (wire, ours) => {
    expect(assemble([delta({ content: 'x' }, wire)]).result.finishReason).toBe(ours)
  })

  it("reports 'tool_calls' when a server says 'stop' but sent tool calls", () => {
    const { result } = assemble([
      delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'Read', arguments: '{}' } }] }, 'stop'),
    ])
    expect(result.finishReason).toBe('tool_calls')
  })

  it("returns what arrived with finish reason 'unknown' when the stream just ends", () => {
    const { assembler, result } = assemble([delta({ content: 'partial' })])
    expect(assembler.finished).toBe(false)
    expect(assembler.delivered).toBe(true)
    expect(result).toMatchObject({ text: 'partial', finishReason: 'unknown', aborted: false })
  })

  it("marks an aborted result as 'aborted'", () => {
    const { assembler } = assemble([delta({ content: 'part' })])
    expect(assembler.result({ aborted: true })).toMatchObject({
      text: 'part',
      finishReason: 'aborted',
      aborted: true,
    })
  })

  it('throws a ProviderError for an error object inside the stream', () => {
    const assembler = new StreamAssembler({ url: URL })
    assembler.push(delta({ content: 'x' }))
    let caught: unknown
    try {
      assembler.push({ error: { message: 'upstream overloaded', code: 503 } })
    } catch (err) {
      caught = err
    }
    expect(caught).toBeInstanceOf(ProviderError)
    expect(caught).toMatchObject({ kind: 'server', status: 503, url: URL })
    expect((caught as Error).message).toContain('upstream overloaded')
    expect(() =>
      assembler.push({ error: { message: "This model's maximum context length is 8192 tokens" } }),
    ).toThrow(expect.objectContaining({ kind: 'context_overflow' }))
  })

  it('ignores chunks it cannot interpret and reports nothing delivered for role-only chunks', () => {
    const { assembler, result } = assemble([
      null,
      'text',
      42,
      { choices: 'x' },
      delta({ role: 'assistant', content: '' }),
    ])
    expect(assembler.delivered).toBe(false)
    expect(result).toMatchObject({ text: '', toolCalls: [], finishReason: 'unknown' })
  })
})
