/**
 * Tools on demand in the full-screen TUI: a deferred MCP tool found with ToolSearch and called through
 * CallTool asks consent as itself (server, tool, arguments) and its card names it; `/context` shows what is
 * sent, on demand and left out. The built CLI in a pseudo-terminal against the scripted model server, with
 * the big MCP test server (test/support/mcp-big-server.ts).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { keys, PROMPT, startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, repoRoot, type Sandbox } from '../support/run-cli.ts'
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts'

const BIG_SERVER = join(repoRoot, 'test/support/mcp-big-server.ts')

let box: Sandbox | undefined
let server: ScriptedServer | undefined
let tui: TuiSession | undefined

afterEach(async () => {
  await tui?.kill()
  await server?.close()
  await box?.cleanup()
  tui = server = box = undefined
})

describe('TUI: tools on demand', () => {
  it('consent and the card show the real tool; /context lists sent, on demand and left out', async () => {
    box = await makeSandbox()
    const file = join(box.env.XDG_CONFIG_HOME ?? '', 'agent-tui', 'settings.json')
    await mkdir(dirname(file), { recursive: true })
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: { big: { command: process.execPath, args: [BIG_SERVER] } },
        permissions: { deny: ['WebFetch'] },
      }),
    )
    server = await startScriptedServer({
      replies: [
        { toolCalls: [{ name: 'ToolSearch', arguments: { query: 'create a page' } }] },
        {
          toolCalls: [
            { name: 'CallTool', arguments: { name: 'mcp__big__create_page', arguments: { title: 'Hello' } } },
          ],
        },
        { text: 'Page made.' },
      ],
    })
    tui = startTui({
      args: ['--base-url', server.baseUrl, '--model', 'test-model'],
      cwd: box.workspace,
      env: box.env,
      cols: 120,
      rows: 40,
    })
    const t = tui
    await t.waitFor(`${PROMPT} Message`)
    await t.submit('make a page')
    const consent = await t.waitFor('Allow once')
    expect(consent).toContain('big › create_page')
    expect(consent).toContain('MCP server big, tool create_page')
    expect(consent).toContain('"title": "Hello"')
    expect(consent).toContain('Allow mcp__big__create_page for this session')
    t.write('1')
    const done = await t.waitFor('Page made.')
    expect(done).toMatch(/✓ ToolSearch create a page/)
    expect(done).toMatch(/✓ big › create_page title: "Hello"/)
    expect(await readFile(join(box.workspace, 'pages.txt'), 'utf8')).toBe('Hello\n')

    await t.submit('/context')
    const report = await t.waitFor(/on demand\s+Config/)
    expect(report).toMatch(
      /Tools {8}\d+ sent \([\d.]+ kB\) · \d+ on demand \([\d.]+ kB\) behind ToolSearch · 1 left out/,
    )
    expect(report).toContain('mcp__big__* 24 tools')
    expect(report).toContain(
      'left out   WebFetch: denied by the rule WebFetch in ~/.config/agent-tui/settings.json',
    )
    t.write(keys.esc)
  })
})
