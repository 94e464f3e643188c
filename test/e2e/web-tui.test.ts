/**
 * WebFetch and WebSearch in the full-screen TUI (the built CLI in a pseudo-terminal, read through a
 * headless xterm): the consent prompt shows the URL and what kind of address a local host is, and the tool
 * cards show the URL or the query with a short result line.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, type Sandbox } from '../support/run-cli.ts'
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts'
import { send, startWebServer, type WebServer } from '../support/web-server.ts'

let box: Sandbox | undefined
let server: ScriptedServer | undefined
let site: WebServer | undefined
let tui: TuiSession | undefined

afterEach(async () => {
  await tui?.kill()
  await server?.close()
  await site?.close()
  await box?.cleanup()
  tui = server = site = box = undefined
})

describe('web tools in the TUI', () => {
  it('asks before fetching a loopback URL, showing the address, then shows both cards', async () => {
    site = await startWebServer({
      '/changelog': send(
        'text/html',
        '<html><body><h1>Changelog</h1><p>Version <b>3</b> is out.</p></body></html>',
      ),
      '/search': send(
        'application/json',
        JSON.stringify({
          results: [{ title: 'Vitest 5 is out', url: 'https://vitest.dev/blog/vitest-5', content: 'news' }],
        }),
      ),
    })
    box = await makeSandbox()
    const configDir = join(box.home, '.config', 'agent-tui')
    await mkdir(configDir, { recursive: true })
    await writeFile(
      join(configDir, 'settings.json'),
      JSON.stringify({ search: { provider: 'searxng', url: site.origin } }),
    )
    const url = `${site.origin}/changelog`
    server = await startScriptedServer({
      replies: [
        { toolCalls: [{ name: 'WebFetch', arguments: { url, prompt: 'what is new?' } }] },
        { toolCalls: [{ name: 'WebSearch', arguments: { query: 'vitest 5' } }] },
        { text: 'Version 3 is out, and so is Vitest 5.' },
      ],
    })
    tui = startTui({
      args: ['--base-url', server.baseUrl, '--model', 'test-model'],
      cwd: box.workspace,
      env: box.env,
      cols: 140,
      rows: 40,
    })
    await tui.waitFor('❯  Message')
    await tui.submit('what is new?')

    const consent = await tui.waitFor('⚠ 127.0.0.1 is a loopback address (this machine)')
    expect(consent).toContain(url)
    expect(consent).toContain('Always allow WebFetch(domain:127.0.0.1)')
    expect(site.requests).toEqual([])
    tui.write('y')

    const done = await tui.waitFor((s) => s.includes('Version 3 is out, and so is Vitest 5.'))
    expect(done).toContain(`✓ WebFetch ${url}`)
    expect(done).toMatch(/200 · text\/html · \d+ B → \d+ B Markdown/)
    // Safe mode allows searches without asking.
    expect(done).toContain('✓ WebSearch "vitest 5"')
    expect(done).toContain('1 result')
    expect(done).toContain('Vitest 5 is out — https://vitest.dev/blog/vitest-5')
    expect(server.pairingViolations).toEqual([])
  })
})
