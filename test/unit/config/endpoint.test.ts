import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { resolveEndpoint } from '../../../source/config/endpoint.js'

type Handler = (req: IncomingMessage, res: ServerResponse) => void

const servers: Server[] = []

/** A tiny HTTP server on 127.0.0.1 with a random port; returns its base URL (`…/v1`). */
async function serve(handler: Handler): Promise<string> {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
}

/** A base URL on a port nothing listens on (a server was bound there and closed). */
async function closedPort(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}/v1`
}

function json(body: unknown, status = 200): Handler {
  return (req, res) => {
    if (req.url !== '/v1/models') {
      res.writeHead(404).end()
      return
    }
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  }
}

// Generous budgets where servers do answer, so a loaded machine cannot make a test flaky; the call
// returns as soon as the answer is in.
const AMPLE = 10_000

const OPENAI_LIST = {
  object: 'list',
  data: [{ id: 'qwen2.5-coder:7b', context_length: 32768 }, { id: 'llama3' }],
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
})

describe('resolveEndpoint: probing loopback', () => {
  it('picks the server that answers and its first model', async () => {
    const refused = await closedPort()
    const ollama = await serve(json(OPENAI_LIST))
    const result = await resolveEndpoint({
      probeBudgetMs: AMPLE,
      probeTargets: [
        { name: 'Nothing', url: refused },
        { name: 'Ollama', url: ollama },
      ],
    })
    expect(result).toEqual({
      kind: 'probed',
      baseUrl: ollama,
      model: 'qwen2.5-coder:7b',
      contextLength: 32768,
      contextSource: "context_length in the endpoint's model listing",
      models: ['qwen2.5-coder:7b', 'llama3'],
      serverName: 'Ollama',
    })
  })

  it('prefers the earlier target when several answer', async () => {
    const first = await serve(json({ data: [{ id: 'a' }] }))
    const second = await serve(json({ data: [{ id: 'b' }] }))
    const result = await resolveEndpoint({
      probeBudgetMs: AMPLE,
      probeTargets: [
        { name: 'First', url: first },
        { name: 'Second', url: second },
      ],
    })
    expect(result).toMatchObject({ kind: 'probed', serverName: 'First', model: 'a' })
  })

  it('keeps a configured model and reads its context length', async () => {
    const url = await serve(json(OPENAI_LIST))
    const result = await resolveEndpoint({
      model: 'llama3',
      probeBudgetMs: AMPLE,
      probeTargets: [{ name: 'S', url }],
    })
    expect(result).toMatchObject({ kind: 'probed', model: 'llama3' })
    expect(result.kind !== 'none' && result.contextLength).toBeUndefined()
  })

  it("a Claude Code settings file's model is used when nothing else picks one and the endpoint lists it", async () => {
    const url = await serve(json(OPENAI_LIST))
    const target = { probeBudgetMs: AMPLE, probeTargets: [{ name: 'S', url }] }
    expect(await resolveEndpoint({ ...target, preferredModel: 'llama3' })).toMatchObject({ model: 'llama3' })
    // Not listed: the first listed, as without it; a configured model wins over it.
    expect(await resolveEndpoint({ ...target, preferredModel: 'claude-opus' })).toMatchObject({
      model: 'qwen2.5-coder:7b',
    })
    expect(
      await resolveEndpoint({ ...target, model: 'qwen2.5-coder:7b', preferredModel: 'llama3' }),
    ).toMatchObject({
      model: 'qwen2.5-coder:7b',
    })
    expect(await resolveEndpoint({ baseUrl: url, preferredModel: 'llama3' })).toMatchObject({
      model: 'llama3',
    })
  })

  it.each<[string, unknown, number | undefined]>([
    ['max_model_len (vLLM)', { data: [{ id: 'm', max_model_len: 8192 }] }, 8192],
    ['meta.n_ctx_train (llama.cpp)', { data: [{ id: 'm', meta: { n_ctx_train: 4096 } }] }, 4096],
    ['models[] with name', { models: [{ name: 'm', context_length: 2048 }] }, 2048],
    ['no metadata', { data: [{ id: 'm' }] }, undefined],
    ['nonsense metadata', { data: [{ id: 'm', context_length: 'big' }] }, undefined],
  ])('context length from %s', async (_name, body, contextLength) => {
    const url = await serve(json(body))
    const result = await resolveEndpoint({ probeBudgetMs: AMPLE, probeTargets: [{ name: 'S', url }] })
    expect(result).toMatchObject({ kind: 'probed', model: 'm' })
    expect(result.kind !== 'none' ? result.contextLength : 'none').toBe(contextLength)
  })

  it('lists what was probed when nothing answers', async () => {
    const refused = await closedPort()
    const notFound = await serve((_req, res) => res.writeHead(404).end())
    const empty = await serve(json({ data: [] }))
    const notJson = await serve((_req, res) => res.writeHead(200).end('hello'))
    const notList = await serve(json({ hello: 'world' }))
    const result = await resolveEndpoint({
      probeBudgetMs: AMPLE,
      probeTargets: [
        { name: 'Refused', url: refused },
        { name: 'NotFound', url: notFound },
        { name: 'Empty', url: empty },
        { name: 'NotJson', url: notJson },
        { name: 'NotList', url: notList },
      ],
    })
    expect(result).toEqual({
      kind: 'none',
      probed: [
        { name: 'Refused', url: refused, result: 'connection refused' },
        { name: 'NotFound', url: notFound, result: 'HTTP 404' },
        { name: 'Empty', url: empty, result: 'answered, but lists no models' },
        { name: 'NotJson', url: notJson, result: 'answered, but not with JSON' },
        { name: 'NotList', url: notList, result: 'answered, but not with a model list' },
      ],
    })
  })

  it('gives up on a server that never answers once the budget is spent', async () => {
    const silent = await serve(() => {
      // never answers
    })
    const result = await resolveEndpoint({
      probeBudgetMs: 50,
      probeTargets: [{ name: 'Silent', url: silent }],
    })
    expect(result).toEqual({
      kind: 'none',
      probed: [{ name: 'Silent', url: silent, result: 'no answer within 50 ms' }],
    })
  })

  it('probes nothing when probing is off', async () => {
    expect(await resolveEndpoint({ probe: false })).toEqual({ kind: 'none', probed: [] })
  })
})

describe('resolveEndpoint: configured base URL', () => {
  it('uses it, sends the key and takes the first listed model', async () => {
    let auth: string | undefined
    const url = await serve((req, res) => {
      auth = req.headers.authorization
      json(OPENAI_LIST)(req, res)
    })
    const result = await resolveEndpoint({ baseUrl: `${url}/`, apiKey: 'sk-test', listTimeoutMs: AMPLE })
    expect(result).toEqual({
      kind: 'configured',
      baseUrl: url,
      apiKey: 'sk-test',
      model: 'qwen2.5-coder:7b',
      contextLength: 32768,
      contextSource: "context_length in the endpoint's model listing",
      models: ['qwen2.5-coder:7b', 'llama3'],
    })
    expect(auth).toBe('Bearer sk-test')
  })

  it('reports a failed listing without failing', async () => {
    const url = await serve(json({ error: 'nope' }, 401))
    const result = await resolveEndpoint({ baseUrl: url, model: 'gpt-x', listTimeoutMs: AMPLE })
    expect(result).toEqual({
      kind: 'configured',
      baseUrl: url,
      apiKey: undefined,
      model: 'gpt-x',
      models: [],
      listError: `listing models at ${url}/models failed: HTTP 401 (check the API key)`,
    })
  })

  it('reports an unreachable endpoint', async () => {
    const url = await closedPort()
    const result = await resolveEndpoint({ baseUrl: url, listTimeoutMs: AMPLE, listRetryDelayMs: 1 })
    expect(result).toMatchObject({ kind: 'configured', baseUrl: url, models: [] })
    expect(result.kind === 'configured' && result.listError).toBe(
      `listing models at ${url}/models failed: connection refused (tried 2 times)`,
    )
    expect(result.kind === 'configured' && result.model).toBeUndefined()
  })

  it('tries the listing a second time when the model depends on it', async () => {
    let requests = 0
    const url = await serve((req, res) => {
      requests++
      if (requests === 1) res.writeHead(503).end()
      else json(OPENAI_LIST)(req, res)
    })
    const result = await resolveEndpoint({ baseUrl: url, listTimeoutMs: AMPLE, listRetryDelayMs: 1 })
    expect(result).toMatchObject({ kind: 'configured', model: 'qwen2.5-coder:7b', contextLength: 32768 })
    expect(requests).toBe(2)
  })

  it('says the listing timed out, and how often it was tried', async () => {
    let requests = 0
    const url = await serve(() => {
      requests++
    })
    const result = await resolveEndpoint({ baseUrl: url, listTimeoutMs: 300, listRetryDelayMs: 1 })
    expect(result.kind === 'configured' && result.listError).toBe(
      `listing models at ${url}/models failed: no answer within 300 ms (tried 2 times)`,
    )
    expect(requests).toBe(2)
  })

  it('does not repeat a listing that failed for a reason another try would not change', async () => {
    let requests = 0
    const url = await serve((req, res) => {
      requests++
      json({ error: 'nope' }, 401)(req, res)
    })
    const result = await resolveEndpoint({ baseUrl: url, listTimeoutMs: AMPLE, listRetryDelayMs: 1 })
    expect(result.kind === 'configured' && result.listError).toBe(
      `listing models at ${url}/models failed: HTTP 401 (check the API key)`,
    )
    expect(requests).toBe(1)
  })

  it('lists once, briefly, when a model is configured (only the context length depends on it)', async () => {
    let requests = 0
    const url = await serve((_req, res) => {
      requests++
      res.writeHead(503).end()
    })
    const result = await resolveEndpoint({ baseUrl: url, model: 'm', listRetryDelayMs: 1 })
    expect(result).toMatchObject({
      model: 'm',
      listError: `listing models at ${url}/models failed: HTTP 503`,
    })
    expect(requests).toBe(1)
  })

  it('makes no request when probing is off', async () => {
    let requests = 0
    const url = await serve((req, res) => {
      requests++
      json(OPENAI_LIST)(req, res)
    })
    const result = await resolveEndpoint({ baseUrl: url, model: 'm', probe: false })
    expect(result).toEqual({ kind: 'configured', baseUrl: url, apiKey: undefined, model: 'm', models: [] })
    expect(requests).toBe(0)
  })

  it('uses an injected fetch', async () => {
    const seen: string[] = []
    const fetchImpl: typeof fetch = async (input) => {
      seen.push(String(input))
      return new Response(JSON.stringify({ data: [{ id: 'x' }] }), { status: 200 })
    }
    const result = await resolveEndpoint({ baseUrl: 'https://api.example.com/v1', fetchImpl })
    expect(result).toMatchObject({ kind: 'configured', model: 'x', models: ['x'] })
    expect(seen).toEqual(['https://api.example.com/v1/models'])
  })
})

describe('resolveEndpoint: request headers', () => {
  it('sends them with the listing, follows a redirect within the origin, and never one to another host', async () => {
    const seen: Array<Record<string, string | undefined>> = []
    const elsewhere = await serve((req, res) => {
      seen.push({ where: 'elsewhere', key: req.headers['x-portkey-api-key'] as string | undefined })
      json(OPENAI_LIST)(req, res)
    })
    const gateway = await serve((req, res) => {
      seen.push({ where: req.url, key: req.headers['x-portkey-api-key'] as string | undefined })
      if (req.url === '/v1/models') res.writeHead(302, { location: '/v2/models' }).end()
      else if (req.url === '/v2/models') res.writeHead(302, { location: `${elsewhere}/models` }).end()
      else res.writeHead(404).end()
    })
    const result = await resolveEndpoint({
      baseUrl: gateway,
      headers: { 'x-portkey-api-key': 'pk-secret' },
      listTimeoutMs: AMPLE,
      listAttempts: 1,
    })
    expect(seen).toEqual([
      { where: '/v1/models', key: 'pk-secret' },
      { where: '/v2/models', key: 'pk-secret' },
    ])
    expect(result).toMatchObject({ kind: 'configured', models: [] })
    expect(result.kind !== 'none' && result.listError).toContain(
      `HTTP 302 (a redirect to ${elsewhere}/models: not followed to another host)`,
    )
  })

  it('are not sent to the local servers a probe tries', async () => {
    let header: string | undefined = 'unset'
    const local = await serve((req, res) => {
      header = req.headers['x-portkey-api-key'] as string | undefined
      json(OPENAI_LIST)(req, res)
    })
    await resolveEndpoint({
      headers: { 'x-portkey-api-key': 'pk-secret' },
      probeBudgetMs: AMPLE,
      probeTargets: [{ name: 'Local', url: local }],
    })
    expect(header).toBeUndefined()
  })
})
