import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { checkPairing, type ScriptedServer, startScriptedServer } from '../../support/scripted-server.ts'

const servers: ScriptedServer[] = []

async function start(opts: Parameters<typeof startScriptedServer>[0] = {}): Promise<ScriptedServer> {
  const server = await startScriptedServer(opts)
  servers.push(server)
  return server
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

function chat(server: ScriptedServer, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${server.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: JSON.stringify({ model: 'test-model', messages: [{ role: 'user', content: 'hi' }], ...body }),
  })
}

/** Splits an SSE body into its data payloads (raw strings). */
function dataLines(text: string): string[] {
  return text
    .split('\n\n')
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice('data: '.length))
}

interface Chunk {
  object: string
  choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>
  usage?: Record<string, unknown> | null
}

async function streamed(server: ScriptedServer, body: Record<string, unknown> = {}) {
  const res = await chat(server, { stream: true, stream_options: { include_usage: true }, ...body })
  const lines = dataLines(await res.text())
  const done = lines.at(-1) === '[DONE]'
  const chunks = (done ? lines.slice(0, -1) : lines).map((line) => JSON.parse(line) as Chunk)
  return { res, lines, chunks, done }
}

describe('scripted server: streaming', () => {
  it('streams text and reasoning as chat.completion.chunk events ending in [DONE]', async () => {
    const server = await start({ replies: [{ text: 'hello world', reasoning: 'think', chunkSize: 4 }] })
    const { res, chunks, done } = await streamed(server)
    expect(res.headers.get('content-type')).toContain('text/event-stream')
    expect(done).toBe(true)
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true)
    const deltas = chunks.flatMap((c) => c.choices.map((ch) => ch.delta))
    expect(deltas.map((d) => d.content ?? '').join('')).toBe('hello world')
    expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe('think')
    expect(deltas.filter((d) => typeof d.content === 'string' && d.content !== '')).toHaveLength(3)
    const finishes = chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter((f) => f !== null)
    expect(finishes).toEqual(['stop'])
  })

  it('sends a final usage chunk with empty choices and cached tokens when include_usage is set', async () => {
    const server = await start({
      replies: [{ text: 'x', usage: { prompt: 120, completion: 7, cached: 100 } }],
    })
    const { chunks } = await streamed(server)
    const last = chunks.at(-1)
    expect(last?.choices).toEqual([])
    expect(last?.usage).toMatchObject({
      prompt_tokens: 120,
      completion_tokens: 7,
      prompt_tokens_details: { cached_tokens: 100 },
    })
  })

  it('sends no usage chunk without include_usage', async () => {
    const server = await start({ replies: [{ text: 'x' }] })
    const res = await chat(server, { stream: true })
    const lines = dataLines(await res.text())
    const parsed = lines.slice(0, -1).map((l) => JSON.parse(l) as Chunk)
    expect(parsed.every((c) => c.choices.length === 1 && c.usage === undefined)).toBe(true)
  })

  it('streams tool calls keyed by index with id and name first in fine mode', async () => {
    const server = await start({
      replies: [
        { toolCalls: [{ id: 'call_a', name: 'Read', arguments: { file_path: 'a.ts' } }], chunkSize: 5 },
      ],
    })
    const { chunks } = await streamed(server)
    const fragments = chunks.flatMap((c) =>
      c.choices.flatMap((ch) => (ch.delta.tool_calls as unknown[]) ?? []),
    )
    expect(fragments[0]).toEqual({
      index: 0,
      id: 'call_a',
      type: 'function',
      function: { name: 'Read', arguments: '' },
    })
    const args = fragments
      .map((f) => (f as { function: { arguments?: string } }).function.arguments ?? '')
      .join('')
    expect(JSON.parse(args)).toEqual({ file_path: 'a.ts' })
    expect(chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).at(-1)).toBe('tool_calls')
  })

  it('omits the id on the wire when it is scripted as empty', async () => {
    const server = await start({ replies: [{ toolCalls: [{ id: '', name: 'Glob', arguments: '{}' }] }] })
    const { chunks } = await streamed(server)
    const fragments = chunks.flatMap((c) =>
      c.choices.flatMap((ch) => (ch.delta.tool_calls as object[]) ?? []),
    )
    expect(fragments.some((f) => 'id' in f)).toBe(false)
  })

  it('cuts the stream without [DONE] after N chunks', async () => {
    const server = await start({ replies: [{ text: 'abcdefgh', chunkSize: 2, cutAfterChunks: 3 }] })
    const { lines, done } = await streamed(server)
    expect(done).toBe(false)
    expect(lines).toHaveLength(3)
  })

  it('ends a whole stream without [DONE] when told to', async () => {
    const server = await start({ replies: [{ text: 'abcd', chunkSize: 2, noDone: true }] })
    const { chunks, done } = await streamed(server)
    expect(done).toBe(false)
    expect(chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).at(-1)).toBe('stop')
    expect(chunks.at(-1)?.usage).toBeDefined()
  })

  it('answers a streaming request with one JSON completion when told to ignore stream', async () => {
    const server = await start({ replies: [{ text: 'whole', ignoreStream: true }] })
    const res = await chat(server, { stream: true })
    expect(res.headers.get('content-type')).toContain('application/json')
    expect(await res.json()).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { content: 'whole' }, finish_reason: 'stop' }],
    })
  })

  it('sends no finish_reason at all for finishReason null', async () => {
    const server = await start({ replies: [{ text: 'abcd', chunkSize: 2, finishReason: null }] })
    const { chunks, done } = await streamed(server)
    expect(done).toBe(true)
    expect(chunks.every((c) => c.choices.every((ch) => ch.finish_reason === null))).toBe(true)
  })

  it('inserts a malformed data line and then continues', async () => {
    const server = await start({ replies: [{ text: 'abcd', chunkSize: 2, malformedAfterChunks: 2 }] })
    const lines = dataLines(await (await chat(server, { stream: true })).text())
    expect(() => JSON.parse(lines[2] ?? '')).toThrow()
    expect(lines).toHaveLength(1 + 2 + 1 + 1 + 1)
    expect(lines.at(-1)).toBe('[DONE]')
  })

  it('sends an error object inside the stream and ends it', async () => {
    const server = await start({ replies: [{ text: 'abcd', chunkSize: 2, streamErrorAfterChunks: 2 }] })
    const { lines, done } = await streamed(server)
    expect(done).toBe(false)
    expect(JSON.parse(lines.at(-1) ?? '')).toMatchObject({ error: { message: 'scripted stream error' } })
  })

  it('keeps a hanging stream open until the client aborts', async () => {
    const server = await start({
      replies: [{ text: 'abcdef', chunkSize: 2, hangAfterChunks: 2 }, { text: 'next' }],
    })
    const controller = new AbortController()
    const res = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', stream: true, messages: [] }),
      signal: controller.signal,
    })
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let received = ''
    while (dataLines(received).length < 2) {
      const { value } = await reader.read()
      received += decoder.decode(value, { stream: true })
    }
    expect(dataLines(received)).toHaveLength(2)
    controller.abort()
    await expect(reader.read()).rejects.toThrow()
    // The server still answers the next request after the hung one went away.
    const next = await streamed(server)
    expect(next.done).toBe(true)
  })
})

describe('scripted server: other replies', () => {
  it('answers non-streaming requests with a chat.completion object', async () => {
    const server = await start({
      replies: [
        { text: 'ok', reasoning: 'r', toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'ls' } }] },
      ],
    })
    const body = (await (await chat(server, {})).json()) as Record<string, unknown>
    expect(body).toMatchObject({
      object: 'chat.completion',
      choices: [
        {
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'ok',
            reasoning_content: 'r',
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } },
            ],
          },
        },
      ],
    })
  })

  it('replies with HTTP errors, custom headers and a default OpenAI error body', async () => {
    const server = await start({ replies: [{ status: 429, headers: { 'retry-after': '3' } }] })
    const res = await chat(server, {})
    expect(res.status).toBe(429)
    expect(res.headers.get('retry-after')).toBe('3')
    expect(await res.json()).toMatchObject({ error: { message: 'scripted error 429' } })
  })

  it('destroys the socket for a reset reply', async () => {
    const server = await start({ replies: [{ reset: true }] })
    await expect(chat(server, {})).rejects.toThrow()
    expect(server.requests).toHaveLength(1)
  })

  it('uses function replies, the fallback, and counts requests past the end of the script', async () => {
    const server = await start({ replies: [(req) => ({ text: `model=${String(req.body.model)}` })] })
    const first = (await (await chat(server, {})).json()) as {
      choices: Array<{ message: { content: string } }>
    }
    expect(first.choices[0]?.message.content).toBe('model=test-model')
    const second = (await (await chat(server, {})).json()) as {
      choices: Array<{ message: { content: string } }>
    }
    expect(second.choices[0]?.message.content).toBe('(script exhausted)')
    expect(server.unexpectedRequests).toBe(1)

    const withFallback = await start({ fallback: { text: 'again' } })
    await chat(withFallback, {})
    await chat(withFallback, {})
    expect(withFallback.unexpectedRequests).toBe(0)
  })

  it('records requests with body, headers and path, and waits for them', async () => {
    const server = await start({ fallback: { text: 'x' } })
    const waiting = server.waitForRequests(2)
    await chat(server, { tools: [] })
    await chat(server, {})
    await waiting
    expect(server.requests[0]?.path).toBe('/v1/chat/completions')
    expect(server.requests[0]?.headers.authorization).toBe('Bearer k')
    expect(server.requests[0]?.body.tools).toEqual([])
    await expect(server.waitForRequests(3, 50)).rejects.toThrow('expected 3 requests')
  })

  it('lists models with context_length', async () => {
    const server = await start({ models: [{ id: 'a', context_length: 8192 }, { id: 'b' }] })
    const body = (await (await fetch(`${server.baseUrl}/models`)).json()) as { data: unknown[] }
    expect(body.data).toMatchObject([{ id: 'a', context_length: 8192, object: 'model' }, { id: 'b' }])
    const fallback = await start()
    const list = (await (await fetch(`${fallback.baseUrl}/models`)).json()) as { data: Array<{ id: string }> }
    expect(list.data.map((m) => m.id)).toEqual(['test-model'])
  })

  it('answers the first model listings with the scripted faults, then with the list', async () => {
    const server = await start({ modelsFaults: [{ status: 503 }, { status: 429 }] })
    expect((await fetch(`${server.baseUrl}/models`)).status).toBe(503)
    expect((await fetch(`${server.baseUrl}/models`)).status).toBe(429)
    expect((await fetch(`${server.baseUrl}/models`)).status).toBe(200)
  })
})

describe('pairing rule', () => {
  const call = (id: string) => ({ id, type: 'function', function: { name: 'Read', arguments: '{}' } })
  const assistant = (...ids: string[]) => ({ role: 'assistant', content: null, tool_calls: ids.map(call) })
  const tool = (id: string) => ({ role: 'tool', tool_call_id: id, content: 'r' })
  const user = { role: 'user', content: 'u' }

  it('accepts well-paired histories', () => {
    expect(
      checkPairing([user, assistant('a', 'b'), tool('a'), tool('b'), { role: 'assistant', content: 'x' }]),
    ).toBe(null)
    expect(checkPairing([user, { role: 'assistant', content: 'x', tool_calls: [] }, user])).toBe(null)
  })

  it.each([
    ['missing result', [user, assistant('a', 'b'), tool('a'), user]],
    ['wrong order', [user, assistant('a', 'b'), tool('b'), tool('a')]],
    ['orphan tool message', [user, tool('z')]],
    ['extra result', [user, assistant('a'), tool('a'), tool('a')]],
    ['result after a user message', [user, assistant('a'), user, tool('a')]],
    ['unanswered at the end', [user, assistant('a')]],
  ])('detects %s', (_name, messages) => {
    expect(checkPairing(messages)).toEqual(expect.any(String))
  })

  it('records one violation per offending request', async () => {
    const server = await start({ fallback: { text: 'x' } })
    await chat(server, { messages: [user, assistant('a'), user] })
    await chat(server, { messages: [user, assistant('a'), tool('a')] })
    expect(server.pairingViolations).toHaveLength(1)
    expect(server.pairingViolations[0]).toMatch(/^request 1: .*call a/)
  })
})

const ENTRY = fileURLToPath(new URL('../../support/serve-scenario.ts', import.meta.url))

describe('serve-scenario entry', () => {
  it('serves a JSON scenario and prints the base URL first', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'scenario-'))
    const file = join(dir, 'scenario.json')
    await writeFile(
      file,
      JSON.stringify({ replies: [{ text: 'from file' }], models: [{ id: 'm1', context_length: 4096 }] }),
    )
    const child = spawn(process.execPath, [ENTRY, file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    try {
      const lines = createInterface({ input: child.stdout })
      const baseUrl = await new Promise<string>((resolve) => lines.once('line', resolve))
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
      const models = (await (await fetch(`${baseUrl}/models`)).json()) as { data: Array<{ id: string }> }
      expect(models.data.map((m) => m.id)).toEqual(['m1'])
      const res = await fetch(`${baseUrl}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ messages: [] }),
      })
      const body = (await res.json()) as { choices: Array<{ message: { content: string } }> }
      expect(body.choices[0]?.message.content).toBe('from file')
    } finally {
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
      await rm(dir, { recursive: true, force: true })
    }
  })
})
