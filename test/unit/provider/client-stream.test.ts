import { describe, expect, it } from 'vitest'
import type { ChatMessage, ToolDefinition } from '../../../source/store/messages.js'
import { recorder, chatRequest as request, scriptedProviders } from './harness.ts'

const setup = scriptedProviders()

const readTool: ToolDefinition = {
  type: 'function',
  function: { name: 'Read', description: 'read a file', parameters: { type: 'object', properties: {} } },
}

describe('OpenAI provider: streaming', () => {
  it('streams text deltas and returns the assembled step with usage', async () => {
    const { provider } = await setup([
      { text: 'Hello from the scripted server', chunkSize: 5, usage: { prompt: 50, completion: 6 } },
    ])
    const { log, handlers } = recorder()
    const step = await provider.stream(request(), handlers)
    expect(log.text.length).toBeGreaterThan(1)
    expect(log.text.join('')).toBe('Hello from the scripted server')
    expect(step).toEqual({
      text: 'Hello from the scripted server',
      reasoning: '',
      toolCalls: [],
      finishReason: 'stop',
      usage: { input: 50, output: 6, cached: 0 },
      aborted: false,
    })
  })

  it('sends the request in the OpenAI shape: tools, allowed_tools choice, include_usage, no reasoning', async () => {
    const { server, provider } = await setup([{ text: 'a' }, { text: 'b' }], {
      apiKey: 'sk-test',
      headers: { 'x-extra': 'yes' },
    })
    const history: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        reasoning: 'secret thoughts',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Read', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'file' },
      { role: 'assistant', content: 'done', reasoning: 'more', tool_calls: [] },
      { role: 'user', content: 'again' },
    ]
    await provider.stream(
      request({ messages: history, tools: [readTool], toolChoice: { allowed: ['Read'] }, maxTokens: 100 }),
      {},
    )
    const body = server.requests[0]!.body
    expect(body).toMatchObject({
      model: 'test-model',
      stream: true,
      stream_options: { include_usage: true },
      tools: [readTool],
      max_tokens: 100,
      tool_choice: {
        type: 'allowed_tools',
        allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'Read' } }] },
      },
    })
    expect(body).not.toHaveProperty('parallel_tool_calls')
    const sent = body.messages as Array<Record<string, unknown>>
    expect(sent[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: history[2]!.role === 'assistant' ? history[2]!.tool_calls : [],
    })
    expect(sent[4]).toEqual({ role: 'assistant', content: 'done' })
    expect(JSON.stringify(sent)).not.toContain('reasoning')
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test')
    expect(server.requests[0]!.headers['x-extra']).toBe('yes')
    expect(server.pairingViolations).toEqual([])

    // Without tools neither tools nor tool_choice is sent; 'none' passes through when tools exist.
    await provider.stream(request(), {})
    expect(server.requests[1]!.body).not.toHaveProperty('tools')
    expect(server.requests[1]!.body).not.toHaveProperty('tool_choice')
  })

  it("passes 'none' through and uses max_completion_tokens for OpenAI reasoning models", async () => {
    const { server, provider } = await setup([{ text: 'a' }])
    await provider.stream(
      request({ model: 'gpt-5-mini', tools: [readTool], toolChoice: 'none', maxTokens: 9 }),
      {},
    )
    expect(server.requests[0]!.body).toMatchObject({ tool_choice: 'none', max_completion_tokens: 9 })
    expect(server.requests[0]!.body).not.toHaveProperty('max_tokens')
  })

  it('sends a placeholder key when none is configured (local servers need none)', async () => {
    const { server, provider } = await setup([{ text: 'a' }])
    await provider.stream(request(), {})
    expect(server.requests[0]!.headers.authorization).toBe('Bearer not-needed')
  })

  const calls = [
    { id: 'call_1', name: 'Read', arguments: { file_path: 'src/a.ts', offset: 10 } },
    { id: 'call_2', name: 'Bash', arguments: { command: 'npm test -- --run "x y"', timeout: 1000 } },
  ]
  const expectedCalls = calls.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }))

  it.each(['fine', 'whole', 'late-ids', 'repeated-ids'] as const)(
    'assembles identical tool calls from %s fragments',
    async (fragments) => {
      const { provider } = await setup([{ text: 'Let me look.', toolCalls: calls, fragments, chunkSize: 3 }])
      const { log, handlers } = recorder()
      const step = await provider.stream(request({ tools: [readTool] }), handlers)
      expect(step.toolCalls).toEqual(expectedCalls)
      expect(step.finishReason).toBe('tool_calls')
      expect(step.text).toBe('Let me look.')
      expect(log.starts).toEqual(['0:call_1:Read', '1:call_2:Bash'])
    },
  )

  it('generates ids for tool calls the server sent without one', async () => {
    const { provider } = await setup([
      { toolCalls: [{ id: '', name: 'Glob', arguments: { pattern: '*.ts' } }] },
    ])
    const { log, handlers } = recorder()
    const step = await provider.stream(request(), handlers)
    expect(step.toolCalls[0]?.id).toMatch(/^call_/)
    expect(log.starts).toEqual([`0:${step.toolCalls[0]?.id}:Glob`])
  })

  it('streams reasoning deltas separately from the text', async () => {
    const { provider } = await setup([{ reasoning: 'The user wants a greeting.', text: 'Hi!', chunkSize: 4 }])
    const { log, handlers } = recorder()
    const step = await provider.stream(request(), handlers)
    expect(log.reasoning.length).toBeGreaterThan(1)
    expect(log.reasoning.join('')).toBe('The user wants a greeting.')
    expect(step).toMatchObject({ reasoning: 'The user wants a greeting.', text: 'Hi!' })
  })

  it('reports usage including cached prompt tokens', async () => {
    const { provider } = await setup([{ text: 'x', usage: { prompt: 4000, completion: 12, cached: 3584 } }])
    const step = await provider.stream(request(), {})
    expect(step.usage).toEqual({ input: 4000, output: 12, cached: 3584 })
  })

  it('retries a stream cut off mid-reply (no finish_reason, no [DONE]), withdrawing what it showed', async () => {
    const { server, provider } = await setup([
      { text: 'abcdefghij', chunkSize: 2, cutAfterChunks: 3 },
      { text: 'whole reply' },
    ])
    const { log, handlers } = recorder()
    const step = await provider.stream(request(), handlers)
    expect(step).toMatchObject({ text: 'whole reply', finishReason: 'stop', aborted: false })
    expect(log.retries).toMatchObject([{ attempt: 2, discarded: true, serverAsked: false }])
    expect(log.retries[0]?.reason).toBe(
      `${server.baseUrl} closed the stream mid-reply (no finish_reason and no [DONE])`,
    )
    // The handlers saw the cut attempt, then the whole one: the retry told the caller to drop the first.
    expect(log.text.join('')).toBe('abcdwhole reply')
    expect(server.requests).toHaveLength(2)
  })

  it('never returns a cut-off tool call: the step is retried', async () => {
    const { server, provider } = await setup([
      {
        toolCalls: [{ name: 'Bash', arguments: '{"command":"touch cutA.txt"}' }],
        chunkSize: 4,
        cutAfterChunks: 5,
      },
      { text: 'done' },
    ])
    const { log, handlers } = recorder()
    const step = await provider.stream(request(), handlers)
    expect(step).toMatchObject({ text: 'done', toolCalls: [] })
    expect(log.retries).toMatchObject([{ discarded: true }])
    expect(server.requests).toHaveLength(2)
  })

  it('gives up on a stream that is cut every time, with the reason and the attempt count', async () => {
    const { server, provider } = await setup(
      [
        { text: 'abcdef', chunkSize: 2, cutAfterChunks: 2 },
        { text: 'abcdef', chunkSize: 2, cutAfterChunks: 2 },
      ],
      { maxAttempts: 2 },
    )
    await expect(provider.stream(request(), {})).rejects.toMatchObject({
      kind: 'network',
      message: `${server.baseUrl} closed the stream mid-reply (no finish_reason and no [DONE]) (gave up after 2 attempts)`,
    })
    expect(server.requests).toHaveLength(2)
  })

  it('accepts a reply closed by its finish_reason without [DONE]', async () => {
    const { server, provider } = await setup([{ text: 'complete', noDone: true }])
    const { log, handlers } = recorder()
    const step = await provider.stream(request(), handlers)
    expect(step).toMatchObject({ text: 'complete', finishReason: 'stop' })
    expect(log.retries).toEqual([])
    expect(server.requests).toHaveLength(1)
  })

  it('accepts a reply closed by [DONE] without a finish_reason', async () => {
    const { server, provider } = await setup([{ text: 'complete', finishReason: null }])
    const { log, handlers } = recorder()
    const step = await provider.stream(request(), handlers)
    expect(step).toMatchObject({ text: 'complete', finishReason: 'unknown' })
    expect(log.retries).toEqual([])
    expect(server.requests).toHaveLength(1)
  })

  it('retries a stream that ends before any content', async () => {
    const { server, provider } = await setup([{ text: 'lost', cutAfterChunks: 1 }, { text: 'second try' }])
    const { log, handlers } = recorder()
    const step = await provider.stream(request(), handlers)
    expect(step.text).toBe('second try')
    expect(log.text.join('')).toBe('second try')
    expect(log.retries).toHaveLength(1)
    expect(log.retries[0]?.reason).toContain('before sending any content')
    expect(server.requests).toHaveLength(2)
  })

  it('retries a malformed chunk that arrives before any content', async () => {
    const { server, provider } = await setup([{ text: 'abc', malformedAfterChunks: 1 }, { text: 'clean' }])
    const { log, handlers } = recorder()
    const step = await provider.stream(request(), handlers)
    expect(step.text).toBe('clean')
    expect(log.retries[0]?.reason).toContain('malformed stream chunk')
    expect(server.requests).toHaveLength(2)
  })

  it('retries a malformed chunk after content, withdrawing what it showed', async () => {
    const { server, provider } = await setup([
      { text: 'abcdef', chunkSize: 2, malformedAfterChunks: 2 },
      { text: 'clean' },
    ])
    const { log, handlers } = recorder()
    const step = await provider.stream(request(), handlers)
    expect(step.text).toBe('clean')
    expect(log.retries).toMatchObject([{ discarded: true }])
    expect(log.retries[0]?.reason).toContain(`${server.baseUrl} sent a malformed stream chunk`)
    expect(server.requests).toHaveLength(2)
  })

  it('surfaces an error object sent inside the stream after content once retries run out', async () => {
    const { server, provider } = await setup(
      [
        { text: 'abcdef', chunkSize: 2, streamErrorAfterChunks: 3 },
        { text: 'abcdef', chunkSize: 2, streamErrorAfterChunks: 3 },
      ],
      { maxAttempts: 2 },
    )
    await expect(provider.stream(request(), {})).rejects.toMatchObject({
      kind: 'server',
      message: expect.stringContaining('scripted stream error'),
    })
    expect(server.requests).toHaveLength(2)
  })

  it('retries an in-stream error that arrives before any content', async () => {
    const { server, provider } = await setup([
      { text: 'x', streamErrorAfterChunks: 1 },
      { text: 'recovered' },
    ])
    const step = await provider.stream(request(), {})
    expect(step.text).toBe('recovered')
    expect(server.requests).toHaveLength(2)
  })

  it('returns the partial text with aborted: true when the caller aborts mid-stream', async () => {
    const { provider } = await setup(
      [{ text: 'hello world, this never finishes', chunkSize: 5, hangAfterChunks: 3 }],
      {
        idleTimeoutMs: 600_000,
      },
    )
    const controller = new AbortController()
    const received: string[] = []
    const step = await provider.stream(request({ signal: controller.signal }), {
      onText: (d) => {
        received.push(d)
        if (received.join('') === 'hello worl') controller.abort()
      },
    })
    expect(step).toMatchObject({ text: 'hello worl', aborted: true, finishReason: 'aborted' })
  })

  it('returns aborted at once for a signal that is already aborted', async () => {
    const { provider } = await setup([{ text: 'never' }])
    const controller = new AbortController()
    controller.abort()
    const step = await provider.stream(request({ signal: controller.signal }), {})
    expect(step).toMatchObject({ text: '', aborted: true })
  })

  it('rethrows an exception from a handler as is', async () => {
    const { server, provider } = await setup([{ text: 'abc' }, { text: 'never' }])
    const bug = new RangeError('handler bug')
    await expect(
      provider.stream(request(), {
        onText: () => {
          throw bug
        },
      }),
    ).rejects.toBe(bug)
    expect(server.requests).toHaveLength(1)
  })

  it('rethrows an exception from a tool-call handler raised when the step completes', async () => {
    const { provider } = await setup([{ toolCalls: [{ id: '', name: 'Glob', arguments: {} }] }])
    const bug = new TypeError('start handler bug')
    await expect(
      provider.stream(request(), {
        onToolCallStart: () => {
          throw bug
        },
      }),
    ).rejects.toBe(bug)
  })
})
