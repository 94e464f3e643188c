/**
 * Request headers for the endpoint (docs/configuration.md#request-headers), end to end: the built CLI,
 * headless, behind a gateway that routes by header as Portkey does (`x-portkey-provider` picks the
 * upstream, `x-portkey-api-key` is required) in front of two scripted servers. What each server and the
 * web page WebFetch reads saw is asserted, not assumed.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeSandbox, runCli, type Sandbox } from '../support/run-cli.ts'
import { endpointReply } from '../support/scripted-endpoints.ts'
import { startScriptedServer } from '../support/scripted-server.ts'
import type { ScriptedServer } from '../support/scripted-types.ts'
import { send, startWebServer, type WebServer } from '../support/web-server.ts'

let box: Sandbox
let openai: ScriptedServer
let other: ScriptedServer
let gateway: { url: string; seen: Array<Record<string, string | string[] | undefined>>; server: Server }
let site: WebServer

/** Forwards each request to the upstream its `x-portkey-provider` names; 401 without the key. */
async function startGateway(upstreams: Record<string, ScriptedServer>) {
  const seen: Array<Record<string, string | string[] | undefined>> = []
  const server = createServer((req: IncomingMessage, res) => {
    seen.push({ ...req.headers, ':path': req.url })
    const target = upstreams[String(req.headers['x-portkey-provider'] ?? '')]
    if (!req.headers['x-portkey-api-key'] || !target) {
      res.writeHead(401, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({ error: { message: 'x-portkey-api-key and a known x-portkey-provider needed' } }),
      )
      return
    }
    const upstream = new URL(target.baseUrl)
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    req.pipe(forwarded)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen, server }
}

beforeEach(async () => {
  box = await makeSandbox()
  openai = await startScriptedServer({ models: [{ id: 'gpt-routed' }] })
  other = await startScriptedServer({ models: [{ id: 'wrong-upstream' }] })
  gateway = await startGateway({ openai, anthropic: other })
  site = await startWebServer({ '/page': send('text/html', '<html><body><p>hello</p></body></html>') })
})

afterEach(async () => {
  expect(openai.pairingViolations).toEqual([])
  gateway.server.closeAllConnections()
  await new Promise<void>((resolve) => gateway.server.close(() => resolve()))
  await Promise.all([openai.close(), other.close(), site.close()])
  await box.cleanup()
})

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(['--base-url', gateway.url, ...args], { cwd: box.workspace, env: { ...box.env, ...env } })

describe('endpoint request headers', () => {
  it('settings, AGENT_TUI_CUSTOM_HEADERS and --header reach the endpoint (listing and chat), a flag beating the environment beating the settings', async () => {
    const file = join(box.home, '.config', 'agent-tui', 'settings.json')
    await mkdir(dirname(file), { recursive: true })
    await writeFile(
      file,
      JSON.stringify({
        headers: { 'x-portkey-provider': 'anthropic', 'x-portkey-trace-id': 'from-settings' },
      }),
    )
    openai.enqueue({ text: 'routed by header' })
    // No --model: the model comes from the gateway's listing, which needs the headers too.
    const r = await cli(['-p', 'hi', '--header', 'x-portkey-api-key: pk-live-0123456789abcdef'], {
      AGENT_TUI_CUSTOM_HEADERS: 'x-portkey-provider: openai\nx-portkey-trace-id: from-env',
    })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe('routed by header')
    expect(other.requests).toHaveLength(0)
    expect(openai.modelListings).toHaveLength(1)
    expect(openai.modelListings[0]).toMatchObject({
      'x-portkey-provider': 'openai',
      'x-portkey-api-key': 'pk-live-0123456789abcdef',
      'x-portkey-trace-id': 'from-env',
    })
    expect(openai.requests[0]?.body.model).toBe('gpt-routed')
    expect(openai.requests[0]?.headers).toMatchObject({
      'x-portkey-provider': 'openai',
      'x-portkey-api-key': 'pk-live-0123456789abcdef',
      'x-portkey-trace-id': 'from-env',
    })
  })

  it('are never sent with WebFetch to another host', async () => {
    openai.enqueue(
      { toolCalls: [{ name: 'WebFetch', arguments: { url: `${site.origin}/page`, prompt: 'read' } }] },
      { text: 'done' },
    )
    const r = await cli([
      '-p',
      'fetch it',
      '--model',
      'gpt-routed',
      '--header',
      'x-portkey-provider: openai',
      '--header',
      'x-portkey-api-key: pk-live-0123456789abcdef',
      '--allowed-tools',
      'WebFetch(domain:127.0.0.1)',
    ])
    expect(r.code).toBe(0)
    expect(openai.requests).toHaveLength(2)
    expect(openai.requests[1]?.headers['x-portkey-api-key']).toBe('pk-live-0123456789abcdef')
    expect(site.requests.map((q) => q.path)).toEqual(['/page'])
    const names = Object.keys(site.requests[0]?.headers ?? {})
    expect(names.filter((n) => n.startsWith('x-portkey'))).toEqual([])
    expect(site.requests[0]?.headers.authorization).toBeUndefined()
  })

  it('a bad header is a usage error naming it, and a repository cannot set them before its folder is trusted', async () => {
    const bad = await cli(['-p', 'hi', '--header', 'Host: evil.example'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--header: "Host" is set by the HTTP client and cannot be configured')

    await mkdir(join(box.workspace, '.agent-tui'), { recursive: true })
    await writeFile(
      join(box.workspace, '.agent-tui', 'settings.json'),
      JSON.stringify({ headers: { 'x-portkey-provider': 'openai', 'x-portkey-api-key': 'pk-repo' } }),
    )
    const untrusted = await cli(['-p', 'hi', '--model', 'gpt-routed'])
    expect(untrusted.code).toBe(1)
    expect(untrusted.stderr).toContain('"headers": x-portkey-provider, x-portkey-api-key')
    expect(untrusted.stderr).not.toContain('pk-repo')
    expect(gateway.seen.every((h) => h['x-portkey-api-key'] === undefined)).toBe(true)

    openai.enqueue({ text: 'trusted' })
    const trusted = await cli(['-p', 'hi', '--model', 'gpt-routed', '--trust-project'])
    expect(trusted.code).toBe(0)
    expect(openai.requests.at(-1)?.headers['x-portkey-api-key']).toBe('pk-repo')
  })

  it('a --base-url elsewhere for one run does not take the headers of the settings along', async () => {
    const file = join(box.home, '.config', 'agent-tui', 'settings.json')
    await mkdir(dirname(file), { recursive: true })
    await writeFile(
      file,
      JSON.stringify({
        baseUrl: gateway.url,
        headers: { 'x-portkey-provider': 'openai', 'x-portkey-api-key': 'pk-live-0123456789abcdef' },
      }),
    )
    other.enqueue({ text: 'elsewhere' })
    const r = await runCli(['-p', 'hi', '--base-url', other.baseUrl, '--header', 'x-run: this-run'], {
      cwd: box.workspace,
      env: box.env,
    })
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe('elsewhere')
    expect(gateway.seen).toEqual([])
    const carried = [...other.modelListings, ...other.requests.map((q) => q.headers)]
    expect(carried.length).toBeGreaterThanOrEqual(2)
    for (const headers of carried) {
      expect(headers['x-portkey-api-key']).toBeUndefined()
      expect(headers['x-portkey-provider']).toBeUndefined()
      // The run's own --header goes to the run's endpoint.
      expect(headers['x-run']).toBe('this-run')
    }
  })

  it('doctor sends them as a session does: behind the gateway every check passes', async () => {
    const routed = await startScriptedServer({ fallback: endpointReply('tools') })
    const viaGateway = await startGateway({ openai: routed })
    try {
      const r = await runCli(
        [
          'doctor',
          '--base-url',
          viaGateway.url,
          '--model',
          'test-model',
          '--header',
          'x-portkey-provider: openai',
          '--header',
          'x-portkey-api-key: pk-live-0123456789abcdef',
        ],
        { cwd: box.workspace, env: box.env },
      )
      expect(r.stdout).not.toContain('refused the key')
      for (const title of ['Endpoint', 'Model', 'Test request', 'Tool calls'])
        expect(r.stdout.split('\n').find((l) => l.slice(2).startsWith(title)) ?? '', r.stdout).toMatch(/^✓ /)
      expect(viaGateway.seen.length).toBeGreaterThanOrEqual(3)
      for (const headers of viaGateway.seen)
        expect(headers['x-portkey-api-key'], String(headers[':path'])).toBe('pk-live-0123456789abcdef')
      expect(routed.requests.length).toBeGreaterThanOrEqual(2)
    } finally {
      viaGateway.server.closeAllConnections()
      await new Promise<void>((resolve) => viaGateway.server.close(() => resolve()))
      await routed.close()
    }
  })

  it('a value that is not ASCII is a usage error (HTTP would send café as Latin-1); a malformed variable line is not echoed', async () => {
    const bad = await cli(['-p', 'hi', '--header', 'x-team: café'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--header: a header value must be ASCII (character 4 is "é")')
    const env = await cli(['-p', 'hi', '--model', 'gpt-routed'], {
      AGENT_TUI_CUSTOM_HEADERS: 'x-portkey-provider: openai\npk-live-0123456789abcdef',
    })
    expect(env.code).not.toBe(0)
    expect(env.stderr).toContain(
      'AGENT_TUI_CUSTOM_HEADERS: line 2: expected "Name: value" (got pk…ef (24 characters))',
    )
    expect(env.stderr).not.toContain('pk-live')
    expect(gateway.seen).toEqual([])
  })
})

describe('a local server found by probing', () => {
  it('gets no configured header (listing or chat), and the run says why', async (ctx) => {
    // The probe asks Ollama's port; a server of the machine's own already there leaves nothing to test.
    let local: ScriptedServer
    try {
      local = await startScriptedServer({ port: 11434, models: [{ id: 'llama3' }] })
    } catch {
      ctx.skip()
      return
    }
    try {
      local.enqueue({ text: 'local answer' })
      const r = await runCli(['-p', 'hi', '--header', 'x-gw-key: secret-value'], {
        cwd: box.workspace,
        env: box.env,
      })
      expect(r.code).toBe(0)
      expect(r.stdout.trim()).toBe('local answer')
      expect(r.stderr).toContain(
        'a request header is configured but no baseUrl: a local server found by probing gets none',
      )
      expect(r.stderr).not.toContain('secret-value')
      const carried = [...local.modelListings, ...local.requests.map((q) => q.headers)]
      expect(local.requests).toHaveLength(1)
      for (const headers of carried) expect(headers['x-gw-key']).toBeUndefined()
    } finally {
      await local.close()
    }
  })
})
