import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { redirect, send, startWebServer, type WebServer } from '../support/web-server.ts'

const env = setupE2eEnv()
let site: WebServer

const PAGE = `<!doctype html><html><head><title>Changelog</title><script>var leaked = "SCRIPT TEXT"</script>
<style>.banner{display:none}</style></head><body><nav><a href="/">Home</a></nav>
<main><h1>Changelog</h1><h2>Version 3</h2><p>The parser is <strong>twice as fast</strong> now.</p></main></body></html>`

beforeEach(async () => {
  site = await startWebServer({ '/changelog': send('text/html; charset=utf-8', PAGE) })
})

afterEach(async () => {
  await site.close()
})

type Msg = { role: string; content: string }
const toolResults = () =>
  env.server.requests
    .flatMap((r) => ((r.body.messages ?? []) as Msg[]).filter((m) => m.role === 'tool'))
    .map((m) => m.content)
const lastToolResult = () => toolResults().at(-1) ?? ''

async function userSettings(settings: unknown): Promise<void> {
  const dir = join(env.box.home, '.config', 'agent-tui')
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'settings.json'), JSON.stringify(settings))
}

describe('headless WebFetch', () => {
  it('fetches a loopback page as Markdown when an allow rule names the host', async () => {
    env.server.enqueue(
      {
        toolCalls: [
          { name: 'WebFetch', arguments: { url: `${site.origin}/changelog`, prompt: 'what is new?' } },
        ],
      },
      { text: 'Version 3 is twice as fast.' },
    )
    const r = await env.cli([
      '-p',
      'read the changelog',
      '--allowed-tools',
      'WebFetch(domain:127.0.0.1)',
      '--output-format',
      'json',
    ])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).tool_calls.map((c: { status: string }) => c.status)).toEqual(['done'])
    const result = lastToolResult()
    expect(result).toContain('# Changelog\n\n## Version 3\n\nThe parser is **twice as fast** now.')
    expect(result).toContain('Prompt: what is new?')
    expect(result).not.toContain('SCRIPT TEXT')
    expect(result).not.toContain('display:none')
  })

  it('denies a loopback address without that rule, in ci and in dangerous mode, with the rule to add', async () => {
    for (const mode of ['ci', 'dangerous']) {
      env.server.enqueue(
        { toolCalls: [{ name: 'WebFetch', arguments: { url: `${site.origin}/changelog`, prompt: 'p' } }] },
        { text: 'could not' },
      )
      const r = await env.cli(['-p', 'go', '--mode', mode, '--output-format', 'json'])
      expect(JSON.parse(r.stdout).tool_calls[0].status).toBe('denied')
      const envelope = JSON.parse(lastToolResult()).error
      expect(envelope.category).toBe('permission')
      expect(envelope.message).toContain(
        '127.0.0.1 is a loopback address (this machine): local and private addresses always ask',
      )
      if (mode === 'dangerous')
        expect(envelope.hint).toContain('--allowed-tools "WebFetch(domain:127.0.0.1)"')
      else expect(envelope.message).toContain('(WebFetch(domain:127.0.0.1))')
    }
    expect(site.requests).toEqual([])
  })

  it('reports a cross-host redirect without following it, and the private address it led to is caught', async () => {
    site.route('/moved', redirect(`http://localhost:${site.port}/admin`))
    site.route('/admin', send('text/plain', 'ADMIN SECRET'))
    env.server.enqueue(
      { toolCalls: [{ name: 'WebFetch', arguments: { url: `${site.origin}/moved`, prompt: 'p' } }] },
      {
        toolCalls: [
          { name: 'WebFetch', arguments: { url: `http://localhost:${site.port}/admin`, prompt: 'p' } },
        ],
      },
      { text: 'done' },
    )
    const r = await env.cli([
      '-p',
      'go',
      '--allowed-tools',
      'WebFetch(domain:127.0.0.1)',
      '--output-format',
      'json',
    ])
    expect(r.code).toBe(0)
    const [first, second] = toolResults().slice(-2)
    expect(first).toContain(`redirected (HTTP 302) to a different host: http://localhost:${site.port}/admin`)
    expect(first).toContain('The redirect was not followed.')
    expect(JSON.parse(second ?? '{}').error.message).toMatch(/localhost resolves to .*, a loopback address/)
    expect(site.requests.map((q) => q.path)).toEqual(['/moved'])
    expect(r.stdout).not.toContain('ADMIN SECRET')
  })
})

describe('headless WebSearch', () => {
  it('lists titles and URLs from a SearXNG-format server', async () => {
    site.route(
      '/search',
      send(
        'application/json',
        JSON.stringify({
          query: 'vitest 5',
          results: [
            {
              title: 'Vitest 5 is out',
              url: 'https://vitest.dev/blog/vitest-5',
              content: 'Announcing Vitest 5',
            },
            { title: 'Migration guide', url: 'https://vitest.dev/guide/migration', content: 'From 4 to 5' },
          ],
        }),
      ),
    )
    await userSettings({ search: { provider: 'searxng', url: site.origin } })
    env.server.enqueue(
      { toolCalls: [{ name: 'WebSearch', arguments: { query: 'vitest 5' } }] },
      { text: 'found it' },
    )
    const r = await env.cli(['-p', 'search', '--allowed-tools', 'WebSearch', '--output-format', 'json'])
    expect(r.code).toBe(0)
    const result = lastToolResult()
    expect(result).toContain(
      '1. Vitest 5 is out\n   https://vitest.dev/blog/vitest-5\n   Announcing Vitest 5',
    )
    expect(result).toContain('2. Migration guide\n   https://vitest.dev/guide/migration')
    expect(site.requests[0]?.path).toBe('/search')
  })

  it('without a provider fails with the configuration hint, and tells the user once', async () => {
    env.server.enqueue(
      { toolCalls: [{ name: 'WebSearch', arguments: { query: 'vitest 5' } }] },
      { toolCalls: [{ name: 'WebSearch', arguments: { query: 'vitest 5 release' } }] },
      { text: 'search is not configured' },
    )
    const r = await env.cli(['-p', 'search', '--output-format', 'stream-json'])
    expect(r.code).toBe(0)
    for (const content of toolResults()) {
      const envelope = JSON.parse(content).error
      expect(envelope.message).toBe('web search is unavailable: no search provider is configured')
      expect(envelope.hint).toContain('tell the user')
    }
    const notices = r.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; text?: string })
      .filter((e) => e.type === 'notice' && e.text?.startsWith('WebSearch:'))
    expect(notices).toHaveLength(1)
    expect(notices[0]?.text).toContain(
      `add "search": {"provider": "searxng", "url": "http://127.0.0.1:8888"} to ${join(env.box.home, '.config', 'agent-tui', 'settings.json')}`,
    )
  })

  it('in text and json mode the setting to add is on stderr, without --verbose', async () => {
    const script = () =>
      env.server.enqueue(
        { toolCalls: [{ name: 'WebSearch', arguments: { query: 'vitest 5' } }] },
        { text: 'search is not configured' },
      )
    script()
    const r = await env.cli(['-p', 'search'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('search is not configured\n')
    script()
    const json = await env.cli(['-p', 'search', '--output-format', 'json'])
    expect(json.stderr).toBe(r.stderr)
    expect(r.stderr).toBe(
      `agent-tui: warning: WebSearch: web search is unavailable: no search provider is configured. To enable it, add "search": {"provider": "searxng", "url": "http://127.0.0.1:8888"} to ${join(env.box.home, '.config', 'agent-tui', 'settings.json')} (or "brave", "tavily" or "exa", with the API key in BRAVE_API_KEY, TAVILY_API_KEY or EXA_API_KEY).\n`,
    )
  })
})
