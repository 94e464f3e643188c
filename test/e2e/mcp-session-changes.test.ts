/**
 * `/mcp` changes without a restart, end to end: the built CLI in a pseudo-terminal against the scripted
 * model server, with the real test MCP server (test/support/mcp-stdio-server.ts). A tool turned off is
 * refused before anyone is asked (the model gets the envelope), the request's `tools` stay byte-identical,
 * the model is told, a server added with `/mcp add` starts at once, and `--continue` keeps it all.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { isProcessAlive } from '../../source/tasks/process-group.ts'
import { keys, PROMPT, startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, repoRoot, type Sandbox } from '../support/run-cli.ts'
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts'

const TEST_SERVER = join(repoRoot, 'test/support/mcp-stdio-server.ts')

let box: Sandbox | undefined
let server: ScriptedServer | undefined
let tui: TuiSession | undefined

afterEach(async () => {
  await tui?.kill()
  await server?.close()
  await box?.cleanup()
  tui = server = box = undefined
})

const idle = (screen: string) => screen.includes(`${PROMPT} Message`)

async function exitTui(t: TuiSession) {
  t.write(keys.ctrlD)
  await t.waitFor(/again to exit/)
  t.write(keys.ctrlD)
  await t.exited
}

type Message = { role: string; content: unknown }

describe('/mcp changes in a running session', () => {
  it('a tool turned off is refused with an envelope; tools stay byte-identical; --continue keeps it off', async () => {
    box = await makeSandbox()
    const sandbox = box
    const pid = join(sandbox.root, 'server.pid')
    const file = join(sandbox.env.XDG_CONFIG_HOME ?? '', 'agent-tui', 'settings.json')
    await mkdir(dirname(file), { recursive: true })
    // Every definition sent (a large window: nothing deferred), the case where `tools` names the MCP tools.
    await writeFile(
      file,
      JSON.stringify({
        deferTools: 'never',
        mcpServers: {
          t: { command: process.execPath, args: [TEST_SERVER], env: { MCP_TEST_PID_FILE: pid } },
        },
      }),
    )
    server = await startScriptedServer({
      replies: [
        { text: 'Hello.' },
        { toolCalls: [{ name: 'mcp__t__echo', arguments: { text: 'hi' } }] },
        { text: 'It was refused.' },
        { toolCalls: [{ name: 'mcp__added__echo', arguments: { text: 'again' } }] },
        { text: 'The added one answered.' },
      ],
    })
    const args = ['--base-url', server.baseUrl, '--model', 'test-model']
    tui = startTui({ args, cwd: sandbox.workspace, env: sandbox.env, cols: 100, rows: 30 })
    const t = tui
    await t.waitFor(idle)
    await t.submit('hello')
    await t.waitFor('Hello.')

    await t.submit('/mcp disable t echo')
    await t.waitFor('MCP tool echo of "t" turned off for this session')
    await t.submit('echo hi')
    await t.waitFor('It was refused.')
    const refused = server.requests[2]?.body.messages as Message[]
    const result = String(refused.filter((m) => m.role === 'tool').at(-1)?.content)
    expect(JSON.parse(result).error).toMatchObject({
      category: 'not_found',
      message: 'mcp__t__echo is not available in this session: disabled by the user in this session',
    })
    // The model was told before it called, in a message (not by changing the definitions).
    const told = ((server.requests[1]?.body.messages ?? []) as Message[]).map((m) => String(m.content))
    expect(
      told.some((c) =>
        c.includes('The user disabled these MCP tools for this session; do not call them: mcp__t__echo'),
      ),
    ).toBe(true)
    const tools = server.requests.map((r) => JSON.stringify(r.body.tools))
    expect(tools[0]).toContain('mcp__t__echo')
    expect(new Set(tools).size).toBe(1)

    // A server turned off stops its process; one added for the session starts without a restart.
    const leader = Number(await readFile(pid, 'utf8'))
    await t.submit('/mcp disable t')
    await t.waitFor('MCP server "t" turned off for this session: stopped')
    expect(isProcessAlive(leader)).toBe(false)
    // Too long for one prompt line at 100 columns: typed, then sent.
    t.write(`/mcp add added ${process.execPath} ${TEST_SERVER}`)
    // The line wraps where the paths' lengths put it: read the prompt without its line breaks.
    await t.waitFor((screen) => screen.replace(/\s+/g, '').includes('mcp-stdio-server.ts'))
    t.write(keys.enter)
    await t.waitFor('MCP server "added" added for this session')
    await t.waitFor('MCP server "added" connected')
    await t.submit('echo again')
    await t.waitFor('The added one answered.')
    const answered = server.requests[4]?.body.messages as Message[]
    expect(String(answered.filter((m) => m.role === 'tool').at(-1)?.content)).toBe('echo: again')
    expect(new Set(server.requests.map((r) => JSON.stringify(r.body.tools))).size).toBe(1)
    await exitTui(t)

    // --continue: the same changes, read back from the session log.
    tui = startTui({
      args: [...args, '--continue'],
      cwd: sandbox.workspace,
      env: sandbox.env,
      cols: 100,
      rows: 30,
    })
    const again = tui
    await again.waitFor(idle)
    await again.submit('/mcp')
    const panel = await again.waitFor(/added +connected/)
    expect(panel).toMatch(/t +off \(this session\)/)
    expect(panel).toContain('(this session)')
    again.write(keys.esc)
    await again.waitFor((s) => !s.includes('MCP servers') && idle(s))
    await exitTui(again)
  })
})
