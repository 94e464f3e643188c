import { describe, expect, it } from 'vitest'
import { parseModelList } from '../../../source/provider/request-body.js'
import type { RetryInfo } from '../../../source/provider/types.js'
import { chatRequest as request, deadEndpoint, scriptedProviders } from './harness.ts'

const setup = scriptedProviders()

describe('OpenAI provider: retries', () => {
  it('retries a 503 and then succeeds, reporting the retry first', async () => {
    const { server, provider } = await setup([{ status: 503 }, { text: 'recovered' }])
    const retries: RetryInfo[] = []
    const step = await provider.stream(request(), { onRetry: (i) => retries.push(i) })
    expect(step.text).toBe('recovered')
    expect(retries).toHaveLength(1)
    expect(retries[0]).toMatchObject({ attempt: 2, maxAttempts: 5 })
    expect(retries[0]?.reason).toContain('503')
    expect(server.requests).toHaveLength(2)
  })

  it.each([
    [{ 'retry-after-ms': '40' }, 40],
    [{ 'retry-after': '1' }, 1000],
  ])('honours %o as a %i ms wait', async (headers, delayMs) => {
    const { server, provider } = await setup([{ status: 429, headers }, { text: 'ok' }])
    const retries: RetryInfo[] = []
    const step = await provider.stream(request(), { onRetry: (i) => retries.push(i) })
    expect(step.text).toBe('ok')
    expect(retries.map((r) => r.delayMs)).toEqual([delayMs])
    expect(server.requests).toHaveLength(2)
  })

  it('retries after the server resets the connection', async () => {
    const { server, provider } = await setup([{ reset: true }, { text: 'after reset' }])
    const retries: RetryInfo[] = []
    const step = await provider.stream(request(), { onRetry: (i) => retries.push(i) })
    expect(step.text).toBe('after reset')
    expect(retries).toHaveLength(1)
    expect(server.requests).toHaveLength(2)
  })

  it('gives up after maxAttempts with the last error', async () => {
    const { server, provider } = await setup([], { maxAttempts: 3 }, { fallback: { status: 502 } })
    const retries: RetryInfo[] = []
    await expect(provider.stream(request(), { onRetry: (i) => retries.push(i) })).rejects.toMatchObject({
      kind: 'server',
      status: 502,
      message: expect.stringMatching(/answered 502.*gave up after 3 attempts/),
    })
    expect(retries.map((r) => r.attempt)).toEqual([2, 3])
    expect(server.requests).toHaveLength(3)
  })

  it('retries a server error sent mid-reply, telling the caller to withdraw what it showed', async () => {
    const { server, provider } = await setup([
      { text: 'abcdef', chunkSize: 2, streamErrorAfterChunks: 2 },
      { text: 'whole' },
    ])
    const retries: RetryInfo[] = []
    const step = await provider.stream(request(), { onRetry: (i) => retries.push(i) })
    expect(step).toMatchObject({ text: 'whole', finishReason: 'stop' })
    expect(retries).toMatchObject([{ attempt: 2, discarded: true }])
    expect(retries[0]?.reason).toContain('scripted stream error')
    expect(server.requests).toHaveLength(2)
  })

  it('stops waiting and returns aborted when the caller aborts during a backoff', async () => {
    const { provider } = await setup([{ status: 429, headers: { 'retry-after': '50' } }, { text: 'never' }])
    const controller = new AbortController()
    const step = await provider.stream(request({ signal: controller.signal }), {
      onRetry: (info) => {
        expect(info.delayMs).toBe(50_000)
        controller.abort()
      },
    })
    expect(step).toMatchObject({ aborted: true, text: '' })
  })

  it('aborts and retries an attempt that goes quiet before any content (idle watchdog)', async () => {
    // The fallback keeps the test correct even if a loaded machine trips the watchdog once more.
    const { server, provider } = await setup(
      [{ text: 'stuck', hangAfterChunks: 1 }],
      { idleTimeoutMs: 500 },
      { fallback: { text: 'fresh' } },
    )
    const retries: RetryInfo[] = []
    const step = await provider.stream(request(), { onRetry: (i) => retries.push(i) })
    expect(step.text).toBe('fresh')
    expect(retries[0]?.reason).toBe(`${server.baseUrl} sent nothing for 500 ms`)
    expect(server.requests.length).toBe(retries.length + 1)
  })

  it('lets a slow but steady stream run longer than the idle timeout', async () => {
    // ~33 chunks 50 ms apart take well over the 1 s idle limit in total; every gap stays far below it.
    const text = 'a steady trickle of tokens....'
    const { server, provider } = await setup([{ text, chunkSize: 1, chunkDelayMs: 50 }], {
      idleTimeoutMs: 1000,
    })
    const retries: RetryInfo[] = []
    const started = Date.now()
    const step = await provider.stream(request(), { onRetry: (i) => retries.push(i) })
    expect(Date.now() - started).toBeGreaterThan(1000)
    expect(step).toMatchObject({ text, finishReason: 'stop' })
    expect(retries).toEqual([])
    expect(server.requests).toHaveLength(1)
  })

  it('retries a stream that stalls after content, withdrawing what it showed', async () => {
    const { server, provider } = await setup(
      [{ text: 'abcdef', chunkSize: 2, hangAfterChunks: 2 }],
      { idleTimeoutMs: 500 },
      { fallback: { text: 'fresh' } },
    )
    const retries: RetryInfo[] = []
    const step = await provider.stream(request(), { onRetry: (i) => retries.push(i) })
    expect(step.text).toBe('fresh')
    expect(retries[0]).toMatchObject({ discarded: true, reason: `${server.baseUrl} stalled for 500 ms` })
    expect(server.requests.length).toBe(retries.length + 1)
  })

  it('ends the retries when the server asks to wait longer than the cap, naming the wait', async () => {
    const { server, provider } = await setup([{ status: 429, headers: { 'retry-after': '3600' } }])
    const retries: RetryInfo[] = []
    await expect(provider.stream(request(), { onRetry: (i) => retries.push(i) })).rejects.toMatchObject({
      kind: 'rate_limit',
      message: expect.stringContaining('the server asked to wait 3600 s (60 min) before retrying'),
    })
    expect(retries).toEqual([])
    expect(server.requests).toHaveLength(1)
  })

  it('takes a Retry-After date as the wait, reported as the server asking', async () => {
    const date = new Date(Date.now() + 30_000).toUTCString()
    const { provider } = await setup([{ status: 503, headers: { 'retry-after': date } }])
    const controller = new AbortController()
    const retries: RetryInfo[] = []
    const step = await provider.stream(request({ signal: controller.signal }), {
      onRetry: (i) => {
        retries.push(i)
        controller.abort()
      },
    })
    expect(step.aborted).toBe(true)
    expect(retries[0]?.serverAsked).toBe(true)
    // An HTTP date has whole seconds: the wait is what is left of them.
    expect(retries[0]?.delayMs).toBeGreaterThan(20_000)
    expect(retries[0]?.delayMs).toBeLessThanOrEqual(30_000)
  })
})

describe('OpenAI provider: errors', () => {
  it('explains a 401 with the key to check, without retrying', async () => {
    const { server, provider } = await setup([
      { status: 401, body: { error: { message: 'Incorrect API key provided' } } },
    ])
    await expect(provider.stream(request(), {})).rejects.toMatchObject({
      kind: 'auth',
      status: 401,
      url: server.baseUrl,
      message: expect.stringContaining(
        `authentication failed for ${server.baseUrl}: check OPENAI_API_KEY / the key for ${server.baseUrl}`,
      ),
    })
    expect(server.requests).toHaveLength(1)
  })

  it('lists the available models for a 404 on the model', async () => {
    const { server, provider } = await setup(
      [
        {
          status: 404,
          body: { error: { message: 'The model `nope` does not exist', code: 'model_not_found' } },
        },
      ],
      {},
      { models: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] },
    )
    await expect(provider.stream(request({ model: 'nope' }), {})).rejects.toMatchObject({
      kind: 'model_not_found',
      message: `model nope not found at ${server.baseUrl}; available: a, b, c`,
    })
    expect(server.requests).toHaveLength(1)
  })

  it('also treats an Ollama-style plain 404 as a missing model when the list lacks it', async () => {
    const { server, provider } = await setup([
      { status: 404, body: { error: 'model "qwen3" not found, try pulling it first' } },
    ])
    await expect(provider.stream(request({ model: 'qwen3' }), {})).rejects.toMatchObject({
      kind: 'model_not_found',
      message: `model qwen3 not found at ${server.baseUrl}; available: test-model`,
    })
  })

  it('blames the URL for a 404 when the model exists', async () => {
    const { provider } = await setup([{ status: 404, body: 'Not Found' }])
    await expect(provider.stream(request(), {})).rejects.toMatchObject({
      kind: 'not_found',
      message: expect.stringContaining('check the base URL'),
    })
  })

  it.each([
    "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
    'the request exceeds the available context size, try increasing it',
    'prompt is too long: 210000 tokens > 200000 maximum',
  ])('reports a context overflow for: %s', async (message) => {
    const { provider } = await setup([
      { status: 400, body: { error: { message, type: 'invalid_request_error' } } },
    ])
    await expect(provider.stream(request(), {})).rejects.toMatchObject({
      kind: 'context_overflow',
      status: 400,
    })
  })

  it('reports other 400s as bad requests with the server message', async () => {
    const { provider } = await setup([
      { status: 400, body: { error: { message: "'tools' is not supported" } } },
    ])
    await expect(provider.stream(request(), {})).rejects.toMatchObject({
      kind: 'bad_request',
      message: expect.stringContaining("'tools' is not supported"),
    })
  })

  it('says it cannot reach an endpoint with nothing listening, after retrying', async () => {
    const { url, provider } = await deadEndpoint({ baseDelayMs: 1, maxAttempts: 2 })
    const retries: RetryInfo[] = []
    await expect(provider.stream(request(), { onRetry: (i) => retries.push(i) })).rejects.toMatchObject({
      kind: 'network',
      message: expect.stringMatching(
        new RegExp(`^cannot reach ${url}: .*ECONNREFUSED.*gave up after 2 attempts`),
      ),
    })
    expect(retries).toHaveLength(1)
  })
})

describe('OpenAI provider: listModels', () => {
  it('lists models with the context length the server reports', async () => {
    const { provider } = await setup(
      [],
      {},
      { models: [{ id: 'big', context_length: 131_072 }, { id: 'plain' }] },
    )
    expect(await provider.listModels()).toEqual([{ id: 'big', contextLength: 131_072 }, { id: 'plain' }])
  })

  it('reads vLLM, llama.cpp and LM Studio context fields', () => {
    const body = {
      object: 'list',
      data: [
        { id: 'vllm', max_model_len: 32_768 },
        { id: 'llamacpp', meta: { n_ctx_train: 40_960 } },
        { id: 'lmstudio', max_context_length: 8192 },
        { id: 'bad', context_length: -1 },
        { id: '' },
        'junk',
      ],
    }
    expect(parseModelList(body)).toEqual([
      { id: 'vllm', contextLength: 32_768 },
      { id: 'llamacpp', contextLength: 40_960 },
      { id: 'lmstudio', contextLength: 8192 },
      { id: 'bad' },
    ])
  })

  it('fails with a network error naming the URL when nothing listens', async () => {
    const { url, provider } = await deadEndpoint()
    await expect(provider.listModels()).rejects.toMatchObject({
      kind: 'network',
      message: expect.stringContaining(`cannot reach ${url}`),
    })
  })
})
