/**
 * MCP in the full-screen TUI: `/mcp` as a panel, the consent prompt of an MCP tool that writes (with its
 * arguments), MCP prompts as slash commands, a repository's server starting live when the folder is
 * trusted, servers gone after exit, and the OAuth sign-in of a remote server (the test does the browser's
 * part by following the URL the TUI shows). The built CLI in a pseudo-terminal against the scripted
 * model server; MCP servers from test/support.
 */
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { groupMembers, isProcessAlive } from '../../source/tasks/process-group.ts'
import { type HttpMcpServer, startHttpMcpServer } from '../support/mcp-http-server.ts'
import { keys, PROMPT, pollUntil, startTui, type TuiSession } from '../support/pty-terminal.ts'
import { makeSandbox, repoRoot, runCli, type Sandbox } from '../support/run-cli.ts'
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts'

const TEST_SERVER = join(repoRoot, 'test/support/mcp-stdio-server.ts')

let box: Sandbox | undefined
let server: ScriptedServer | undefined
let tui: TuiSession | undefined
let http: HttpMcpServer | undefined

afterEach(async () => {
  await tui?.kill()
  await http?.close()
  await server?.close()
  await box?.cleanup()
  tui = http = server = box = undefined
})

async function userSettings(sandbox: Sandbox, settings: Record<string, unknown>) {
  const file = join(sandbox.env.XDG_CONFIG_HOME ?? '', 'agent-tui', 'settings.json')
  await mkdir(dirname(file), { recursive: true })
  await writeFile(file, JSON.stringify(settings))
}

const idlePrompt = (screen: string) => screen.includes(`${PROMPT} Message`)

async function exitTui(t: TuiSession) {
  t.write(keys.ctrlD)
  await t.waitFor(/again to exit/)
  t.write(keys.ctrlD)
  await t.exited
}

/** The text of every notice the session logged, oldest first. */
async function loggedNotices(sandbox: Sandbox): Promise<string[]> {
  const root = join(sandbox.env.XDG_STATE_HOME ?? '', 'agent-tui', 'sessions')
  const texts: string[] = []
  for (const project of await readdir(root).catch(() => [])) {
    for (const file of await readdir(join(root, project))) {
      const lines = (await readFile(join(root, project, file), 'utf8')).split('\n').filter(Boolean)
      for (const line of lines) {
        const event = JSON.parse(line) as { type: string; text?: string }
        if (event.type === 'notice/added' && event.text) texts.push(event.text)
      }
    }
  }
  return texts
}

describe('TUI with MCP servers', () => {
  it('/mcp panel, consent for a writing tool, prompts as commands, trusting starts the repo server, exit stops them', async () => {
    box = await makeSandbox()
    const sandbox = box
    const pid = join(sandbox.root, 'server.pid')
    const child = join(sandbox.root, 'child.pid')
    await userSettings(sandbox, {
      mcpServers: {
        t: {
          command: process.execPath,
          args: [TEST_SERVER, '--child'],
          env: { MCP_TEST_PID_FILE: pid, MCP_TEST_CHILD_PID_FILE: child },
        },
      },
    })
    await writeFile(
      join(sandbox.workspace, '.mcp.json'),
      JSON.stringify({ mcpServers: { repo: { command: process.execPath, args: [TEST_SERVER] } } }),
    )
    server = await startScriptedServer({
      replies: [
        { toolCalls: [{ name: 'mcp__t__note', arguments: { text: 'remember the milk' } }] },
        { text: 'Noted it.' },
        (req) => {
          const messages = req.body.messages as Array<{ role: string; content: unknown }>
          return { text: `The prompt said: ${String(messages.at(-1)?.content)}` }
        },
      ],
    })
    tui = startTui({
      args: ['--base-url', server.baseUrl, '--model', 'test-model'],
      cwd: sandbox.workspace,
      env: sandbox.env,
      cols: 120,
      rows: 36,
    })
    const t = tui
    // The repository's server waits for trust: decide later for now.
    await t.waitFor('Do you trust')
    t.write(keys.esc)
    await t.waitFor((s) => !s.includes('Do you trust') && idlePrompt(s))

    await t.submit('/mcp')
    const panel = await t.waitFor(/t +connected +6 tools · 1 prompt · resources/)
    expect(panel).toMatch(/repo +not started: untrusted folder +\(\.mcp\.json\)/)
    expect(panel).toContain('it comes from this repository: /trust to trust the folder and start it')
    t.write(keys.down)
    const details = await t.waitFor('tools: mcp__t__die, mcp__t__echo')
    expect(details).toContain('prompts: /mcp__t__greet <name>')
    t.write(keys.esc)
    await t.waitFor((s) => !s.includes('MCP servers') && idlePrompt(s))

    // A tool the server does not mark read-only asks, showing the server, the tool and its arguments.
    await t.submit('take a note')
    const consent = await t.waitFor('Allow once')
    expect(consent).toContain('t › note')
    expect(consent).toContain('MCP server t, tool note')
    expect(consent).toContain('"text": "remember the milk"')
    t.write('1')
    await t.waitFor('Noted it.')
    expect(await readFile(join(sandbox.workspace, 'notes.txt'), 'utf8')).toBe('remember the milk\n')

    // An MCP prompt as a slash command: the prompt's text is what the model gets.
    t.write('/mcp__t__gr')
    await t.waitFor('Greets someone (MCP prompt of t)')
    t.write('eet Ada')
    await t.waitFor(`${PROMPT}/mcp__t__greet Ada`)
    t.write(keys.enter)
    await t.waitFor('The prompt said: Please greet Ada warmly.')

    // Trusting the folder starts its server at once.
    await t.submit('/trust')
    await t.waitFor('Do you trust')
    t.write('1')
    await t.waitFor('MCP server "repo" connected (6 tools)')

    const leader = Number(await readFile(pid, 'utf8'))
    const grandchild = Number(await readFile(child, 'utf8'))
    expect(isProcessAlive(grandchild)).toBe(true)
    await exitTui(t)
    expect(isProcessAlive(leader)).toBe(false)
    expect(isProcessAlive(grandchild)).toBe(false)
    expect(groupMembers(leader)).toEqual([])
  })

  it('an MCP prompt given on the command line waits for its server, then is sent', async () => {
    box = await makeSandbox()
    await userSettings(box, { mcpServers: { t: { command: process.execPath, args: [TEST_SERVER] } } })
    server = await startScriptedServer({
      replies: [
        (req) => {
          const messages = req.body.messages as Array<{ role: string; content: unknown }>
          return { text: `The prompt said: ${String(messages.at(-1)?.content)}` }
        },
      ],
    })
    tui = startTui({
      args: ['--base-url', server.baseUrl, '--model', 'test-model', '/mcp__t__greet Ada'],
      cwd: box.workspace,
      env: box.env,
      cols: 100,
      rows: 24,
    })
    await tui.waitFor('The prompt said: Please greet Ada warmly.')
    expect(tui.screen()).toContain('› /mcp__t__greet Ada')
  })

  it('OAuth: the sign-in URL is shown, following it connects the server; tokens are kept (0600) and refreshed', async () => {
    box = await makeSandbox()
    const sandbox = box
    http = await startHttpMcpServer({ oauth: true })
    const remote = http
    await userSettings(sandbox, { mcpServers: { secure: { url: remote.url } } })
    server = await startScriptedServer({
      fallback: (req) => {
        const messages = req.body.messages as Array<{ role: string }>
        return messages.at(-1)?.role === 'tool'
          ? { text: 'all done' }
          : { toolCalls: [{ name: 'mcp__secure__whoami', arguments: {} }] }
      },
    })
    tui = startTui({
      args: ['--base-url', server.baseUrl, '--model', 'test-model'],
      cwd: sandbox.workspace,
      env: sandbox.env,
      cols: 120,
      rows: 36,
    })
    const t = tui
    await t.waitFor('needs you to sign in')
    let url = ''
    await pollUntil(
      async () => {
        const notice = (await loggedNotices(sandbox)).find((n) => n.includes('Open this URL'))
        url = notice?.split('\n').at(-1) ?? ''
        return url.startsWith('http://127.0.0.1')
      },
      () => 'no sign-in URL in the session log',
    )
    // The browser: the authorization server approves and redirects to agent-tui's loopback listener.
    const approval = await fetch(url, { redirect: 'manual' })
    expect(approval.status).toBe(302)
    const callback = approval.headers.get('location') ?? ''
    expect(callback).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=/)
    const landing = await fetch(callback)
    expect(await landing.text()).toContain('Signed in')
    await t.waitFor('MCP server "secure" connected (2 tools)')

    await t.submit('who am I?')
    await t.waitFor('all done')
    expect(remote.calls).toEqual(['whoami'])
    await exitTui(t)

    const tokens = join(sandbox.env.XDG_STATE_HOME ?? '', 'agent-tui', 'mcp-oauth.json')
    expect((await stat(tokens)).mode & 0o777).toBe(0o600)
    expect(JSON.parse(await readFile(tokens, 'utf8')).servers[remote.url].tokens.access_token).toMatch(/\w+/)

    // Headless, later: the stored token works without a new sign-in…
    const headless = () =>
      runCli(['-p', 'who am I?', '--base-url', server?.baseUrl ?? '', '--model', 'test-model'], {
        cwd: sandbox.workspace,
        env: sandbox.env,
        timeoutMs: 30_000,
      })
    const again = await headless()
    expect(again.code).toBe(0)
    expect(again.stdout).toContain('all done')
    expect(remote.calls).toEqual(['whoami', 'whoami'])
    expect(remote.stats.authorizations).toBe(1)
    // …and once the server no longer takes it, the refresh token gets a new one.
    remote.expireAccessTokens()
    const refreshed = await headless()
    expect(refreshed.code).toBe(0)
    expect(remote.calls).toEqual(['whoami', 'whoami', 'whoami'])
    expect(remote.stats.refreshes).toBe(1)
    expect(remote.stats.authorizations).toBe(1)
  })
})
