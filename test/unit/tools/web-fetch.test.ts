import { readFile } from 'node:fs/promises'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createSummarizer } from '../../../source/agent/runtime/web-summarizer.js'
import { evaluate } from '../../../source/permissions/policy.js'
import { parseRule } from '../../../source/permissions/rules.js'
import { createOpenAIProvider } from '../../../source/provider/client.js'
import type { PermissionTarget } from '../../../source/permissions/target.js'
import type { ToolContext, ToolSuccess } from '../../../source/tools/types.js'
import { ToolError } from '../../../source/tools/types.js'
import { createWebFetchTool, prepareUrl } from '../../../source/tools/web-fetch.js'
import type { HostResolver, WebToolOptions } from '../../../source/tools/web/types.js'
import { type ScriptedServer, startScriptedServer } from '../../support/scripted-server.ts'
import { hang, redirect, send, startWebServer, type WebServer } from '../../support/web-server.ts'
import { createTestEnv, type TestEnv } from './helpers.ts'

const ARTICLE = `<!doctype html><html><head><title>Release notes</title>
<script>window.SECRET = "SCRIPT TEXT"</script><style>body{color:red}</style></head>
<body><nav><a href="/">Home</a></nav><h1>Version 2.0</h1><p>It is <b>much</b> faster.</p>
<h2>Upgrade</h2><pre><code class="language-sh">npm install thing@2</code></pre></body></html>`

/** Maps names to addresses like DNS would; records every lookup. */
function resolver(table: Record<string, string[]>, lookups: string[] = []): HostResolver {
  return async (host) => {
    lookups.push(host)
    const found = table[host]
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
}

let server: WebServer
let env: TestEnv

beforeEach(async () => {
  server = await startWebServer({ '/article': send('text/html; charset=utf-8', ARTICLE) })
  env = await createTestEnv()
})

afterEach(async () => {
  await server.close()
  await env.cleanup()
})

type Args = { url: string; prompt?: string }

/** What the executor does: a fresh context per call, the permission target first, then execute. */
async function fetchVia(
  opts: WebToolOptions,
  args: Args,
  tool = createWebFetchTool(opts),
): Promise<{ target: PermissionTarget; result: ToolSuccess }> {
  const ctx: ToolContext = { ...env.ctx }
  const parsed = tool.schema.parse({ prompt: 'what changed?', ...args })
  const target = await tool.permissionTarget(parsed, ctx)
  return { target, result: await tool.execute(parsed, ctx) }
}

async function fetchError(opts: WebToolOptions, args: Args): Promise<ToolError> {
  try {
    await fetchVia(opts, args)
  } catch (error) {
    if (error instanceof ToolError) return error
    throw error
  }
  throw new Error('expected a ToolError')
}

describe('WebFetch: content', () => {
  it('returns an HTML page as Markdown with the prompt, without script or style text', async () => {
    const { result } = await fetchVia({}, { url: `${server.origin}/article` })
    expect(result.forModel).toContain(`URL: ${server.origin}/article`)
    expect(result.forModel).toContain('Title: Release notes')
    expect(result.forModel).toContain('Prompt: what changed?')
    expect(result.forModel).toContain('# Version 2.0\n\nIt is **much** faster.')
    expect(result.forModel).toContain('```sh\nnpm install thing@2\n```')
    expect(result.forModel).not.toContain('SCRIPT TEXT')
    expect(result.forModel).not.toContain('color:red')
    expect(result.display).toMatchObject({ kind: 'text' })
    expect((result.display as { text: string }).text.split('\n')[0]).toMatch(
      /^200 · text\/html · .* Markdown$/,
    )
  })

  it.each([
    ['application/json', '{"name":"thing","version":"2.0.0"}'],
    ['text/plain; charset=utf-8', 'plain\n  text <b>not html</b>\n'],
    ['text/markdown', '# Title\n\n- item\n'],
  ])('passes %s through as it is', async (type, body) => {
    server.route('/doc', send(type, body))
    const { result } = await fetchVia({}, { url: `${server.origin}/doc` })
    expect(result.forModel.endsWith(`---\n\n${body}`)).toBe(true)
  })

  it('decodes the charset the server declares', async () => {
    server.route('/latin1', send('text/plain; charset=iso-8859-1', Buffer.from([0x63, 0x61, 0x66, 0xe9])))
    const { result } = await fetchVia({}, { url: `${server.origin}/latin1` })
    expect(result.forModel.endsWith('café')).toBe(true)
  })

  it('refuses binary content with its type and size, by header or by sniffing', async () => {
    server.route(
      '/logo.png',
      send('image/png', Buffer.alloc(123_456, 1), 200, { 'content-length': '123456' }),
    )
    const png = await fetchError({}, { url: `${server.origin}/logo.png` })
    expect(png.category).toBe('validation')
    expect(png.message).toContain('binary content (image/png, 120.6 kB)')
    server.route(
      '/file',
      send('application/octet-stream', Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000)])),
    )
    const pdf = await fetchError({}, { url: `${server.origin}/file` })
    expect(pdf.message).toContain('application/octet-stream, PDF document')
  })

  it('puts ~100 kB into context and spills the whole page to a file the model can Read', async () => {
    const text = Array.from({ length: 4000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n')
    server.route('/big.txt', send('text/plain', text))
    const { result } = await fetchVia({}, { url: `${server.origin}/big.txt` })
    const path = /the full page is saved at (\S+) \(Read it/.exec(result.forModel)?.[1]
    expect(path).toBeDefined()
    expect(await readFile(path!, 'utf8')).toBe(text)
    expect(result.forModel.length).toBeLessThan(101_000)
    expect(result.forModel).toContain('line 0 ')
    expect(result.forModel).not.toContain('line 3999 ')
  })

  it('reports HTTP errors with the status and the page text', async () => {
    const error = await fetchError({}, { url: `${server.origin}/missing` })
    expect(error.category).toBe('network')
    expect(error.message).toContain('HTTP 404 Not Found')
    expect(error.message).toContain('No such page here.')
    expect(error.retryable).toBe(false)
  })

  it('times out a server that never answers', async () => {
    server.route('/slow', hang)
    const error = await fetchError({ timeoutMs: 300 }, { url: `${server.origin}/slow` })
    expect(error.category).toBe('timeout')
    expect(error.message).toBe(`127.0.0.1:${server.port} did not answer completely within 0.3 s`)
    expect(error.retryable).toBe(true)
  })

  it('answers from its cache for 15 minutes, then fetches again', async () => {
    let now = 1_000_000
    const tool = createWebFetchTool({ now: () => now })
    const url = `${server.origin}/article`
    await fetchVia({}, { url }, tool)
    now += 14 * 60_000
    const second = await fetchVia({}, { url }, tool)
    expect(server.requests.filter((r) => r.path === '/article')).toHaveLength(1)
    expect((second.result.display as { text: string }).text).toMatch(/cached 14 min ago/)
    now += 2 * 60_000
    await fetchVia({}, { url }, tool)
    expect(server.requests.filter((r) => r.path === '/article')).toHaveLength(2)
    // Another session's tool has its own cache.
    await fetchVia({}, { url })
    expect(server.requests.filter((r) => r.path === '/article')).toHaveLength(3)
  })
})

describe('WebFetch: addresses and permission', () => {
  it('judges the resolved address: a name pointing at 127.0.0.1 carries it to the policy, which asks', async () => {
    const lookups: string[] = []
    const tool = createWebFetchTool({ resolve: resolver({ 'docs.test': ['127.0.0.1'] }, lookups) })
    const ctx: ToolContext = { ...env.ctx }
    const args = { url: `http://docs.test:${server.port}/article`, prompt: 'p' }
    const target = await tool.permissionTarget(args, ctx)
    expect(target).toEqual({ kind: 'url', url: args.url, addresses: ['127.0.0.1'] })
    const base = {
      tool: 'WebFetch',
      risk: 'network' as const,
      target,
      readOnly: true,
      workspace: '/w',
      home: '/h',
    }
    const none = { allow: [], ask: [], deny: [] }
    for (const mode of ['safe', 'auto', 'plan', 'dangerous'] as const) {
      const verdict = evaluate({ ...base, mode, rules: none })
      expect(verdict.decision).toBe('ask')
      expect(verdict.reason).toContain('resolves to 127.0.0.1')
    }
    expect(evaluate({ ...base, mode: 'ci', rules: none }).decision).toBe('deny')
    const exact = { ...none, allow: [parseRule('WebFetch(domain:docs.test)')] }
    expect(evaluate({ ...base, mode: 'ci', rules: exact }).decision).toBe('allow')
    const broad = { ...none, allow: [parseRule('WebFetch')] }
    expect(evaluate({ ...base, mode: 'safe', rules: broad }).decision).toBe('ask')
    expect(await tool.preview(args, ctx)).toEqual({
      kind: 'url',
      url: args.url,
      address: 'docs.test resolves to 127.0.0.1, a loopback address (this machine)',
    })
    const result = await tool.execute(args, ctx)
    expect(result.forModel).toContain('# Version 2.0')
    expect(server.requests.at(-1)?.host).toBe(`docs.test:${server.port}`)
    expect(lookups).toEqual(['docs.test'])
  })

  it('connects to the judged address: DNS answering differently later changes nothing', async () => {
    let answer = '127.0.0.1'
    const lookups: string[] = []
    const resolve: HostResolver = async (host) => {
      lookups.push(host)
      return [{ address: answer, family: 4 }]
    }
    server.route('/a', redirect('/b'))
    server.route('/b', redirect(`http://docs.test:${server.port}/article`))
    const tool = createWebFetchTool({ resolve })
    const ctx: ToolContext = { ...env.ctx }
    const args = { url: `http://docs.test:${server.port}/a`, prompt: 'p' }
    await tool.permissionTarget(args, ctx)
    // A rebinding attempt after the check (to another loopback address, where nothing listens).
    answer = '127.0.0.2'
    const result = await tool.execute(args, ctx)
    expect(result.forModel).toContain('# Version 2.0')
    expect(lookups).toEqual(['docs.test'])
  })

  it('follows a www. sibling only when it resolves to the same class of address', async () => {
    server.route('/to-www', redirect(`http://www.docs.test:${server.port}/article`))
    const same = await fetchVia(
      { resolve: resolver({ 'docs.test': ['127.0.0.1'], 'www.docs.test': ['127.0.0.1'] }) },
      { url: `http://docs.test:${server.port}/to-www` },
    )
    expect(same.result.forModel).toContain('# Version 2.0')
    const error = await fetchError(
      // 0.0.0.0 is another class but still this machine, so a broken check could not reach the network.
      { resolve: resolver({ 'docs.test': ['127.0.0.1'], 'www.docs.test': ['0.0.0.0'] }) },
      { url: `http://docs.test:${server.port}/to-www` },
    )
    expect(error.category).toBe('permission')
    expect(error.message).toContain(
      'resolves to 0.0.0.0 (an unspecified address (reaches this machine)), not a loopback address',
    )
    expect(error.hint).toContain(`url "http://www.docs.test:${server.port}/article"`)
  })

  it('fails at the permission step when the host does not resolve', async () => {
    const tool = createWebFetchTool({ resolve: resolver({}) })
    await expect(
      tool.permissionTarget({ url: 'https://nowhere.test/', prompt: 'p' }, { ...env.ctx }),
    ).rejects.toMatchObject({
      category: 'network',
      message: 'could not resolve nowhere.test: no such host',
    })
  })

  it.each([
    ['ftp://example.com/x', 'only fetches http and https'],
    ['not a url', 'not a valid URL'],
    ['https://user:pw@example.com/', 'user name or password'],
  ])('refuses %s', (url, message) => {
    expect(() => prepareUrl(url)).toThrow(message)
  })

  it('fetches GitHub blob pages as raw files and drops fragments', () => {
    expect(prepareUrl('https://github.com/o/r/blob/main/src/a.ts#L3').url.href).toBe(
      'https://raw.githubusercontent.com/o/r/main/src/a.ts',
    )
  })

  it('upgrades http to https for public hosts only', async () => {
    const tool = createWebFetchTool({
      resolve: resolver({ 'example.com': ['93.184.216.34'], 'lan.test': ['192.168.1.5'] }),
    })
    const pub = await tool.permissionTarget({ url: 'http://example.com/a', prompt: 'p' }, { ...env.ctx })
    expect(pub).toMatchObject({ url: 'https://example.com/a' })
    const lan = await tool.permissionTarget({ url: 'http://lan.test/a', prompt: 'p' }, { ...env.ctx })
    expect(lan).toMatchObject({ url: 'http://lan.test/a', addresses: ['192.168.1.5'] })
  })
})

describe('WebFetch: redirects', () => {
  const chain = (n: number) => {
    for (let i = 0; i < n; i++) server.route(`/r${i}`, redirect(`/r${i + 1}`))
    server.route(`/r${n}`, send('text/plain', 'arrived'))
  }

  it('follows up to 10 redirects on the same host', async () => {
    chain(10)
    const { result } = await fetchVia({}, { url: `${server.origin}/r0` })
    expect(result.forModel).toContain(`URL: ${server.origin}/r10`)
    expect(result.forModel).toContain(`Redirected from: ${server.origin}/r0 → `)
    expect(result.forModel.endsWith('arrived')).toBe(true)
  })

  it('stops at the 11th', async () => {
    chain(11)
    const error = await fetchError({}, { url: `${server.origin}/r0` })
    expect(error.message).toBe(`stopped after 10 redirects (last to ${server.origin}/r11)`)
  })

  it('detects a loop', async () => {
    server.route('/x', redirect('/y'))
    server.route('/y', redirect('/x'))
    const error = await fetchError({}, { url: `${server.origin}/x` })
    expect(error.message).toBe(`redirect loop: ${server.origin}/x → ${server.origin}/y → ${server.origin}/x`)
  })

  it('returns a cross-host redirect to the model without following it', async () => {
    server.route('/moved', redirect(`http://localhost:${server.port}/article`, 301))
    const { result } = await fetchVia({}, { url: `${server.origin}/moved` })
    expect(result.forModel).toContain(
      `redirected (HTTP 301) to a different host: http://localhost:${server.port}/article`,
    )
    expect(result.forModel).toContain('The redirect was not followed.')
    expect(server.requests.map((r) => r.path)).toEqual(['/moved'])
  })
})

describe('WebFetch: summarizer', () => {
  let llm: ScriptedServer
  beforeEach(async () => {
    llm = await startScriptedServer()
  })
  afterEach(async () => {
    await llm.close()
  })

  const summarizer = (contextLimit = 32_768) =>
    createSummarizer(createOpenAIProvider({ baseUrl: llm.baseUrl, maxAttempts: 1 }), 'small-model', {
      contextLimit,
      charToTokenRatio: 4,
    })

  it('answers the prompt with the summarizer model and saves the page', async () => {
    llm.enqueue({ text: 'Version 2.0 is much faster; upgrade with npm install thing@2.' })
    const { result } = await fetchVia({ summarize: summarizer() }, { url: `${server.origin}/article` })
    expect(result.forModel).toContain('Answer from small-model to "what changed?":')
    expect(result.forModel).toContain('upgrade with npm install thing@2.')
    expect(result.forModel).not.toContain('It is **much** faster')
    const path = /The full page is saved at (\S+);/.exec(result.forModel)?.[1]
    expect(await readFile(path!, 'utf8')).toContain('It is **much** faster.')
    const request = llm.requests[0]!.body as { model: string; messages: Array<{ content: string }> }
    expect(request.model).toBe('small-model')
    expect(request.messages.at(-1)?.content).toContain('It is **much** faster.')
    expect(request.messages.at(-1)?.content).toContain('Request: what changed?')
  })

  it('sends a small model only what fits its context', async () => {
    server.route('/long.txt', send('text/plain', 'word '.repeat(40_000)))
    llm.enqueue({ text: 'It repeats one word.' })
    const { result } = await fetchVia({ summarize: summarizer(4_096) }, { url: `${server.origin}/long.txt` })
    expect(result.forModel).toContain('It repeats one word.')
    const sent = (llm.requests[0]!.body as { messages: Array<{ content: string }> }).messages.at(-1)!.content
    expect(sent.length).toBeLessThan(4_096 * 4)
    expect(sent).toContain('[the page continues; only its first')
  })

  it('falls back to the page when the summarizer fails', async () => {
    llm.enqueue({ status: 400, body: { error: { message: 'model small-model does not exist' } } })
    const { result } = await fetchVia({ summarize: summarizer() }, { url: `${server.origin}/article` })
    expect(result.forModel).toContain('The summarizer model failed (')
    expect(result.forModel).toContain('Prompt: what changed?')
    expect(result.forModel).toContain('It is **much** faster.')
  })
})
