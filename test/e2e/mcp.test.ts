/**
 * The MCP client end to end (docs/mcp.md): the built CLI, headless, against the scripted model
 * server, with real MCP servers — `@modelcontextprotocol/server-everything` and `server-filesystem` from
 * node_modules, the test server in test/support (stdio) and an HTTP one built with the SDK (in this
 * process), OAuth included. Nothing touches the network beyond 127.0.0.1.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { groupMembers, isProcessAlive, pollUntil } from '../../source/tasks/process-group.ts'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { type HttpMcpServer, startHttpMcpServer } from '../support/mcp-http-server.ts'
import { repoRoot, runCli } from '../support/run-cli.ts'

const env = setupE2eEnv()
const node = process.execPath
const EVERYTHING = join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')
const FILESYSTEM = join(repoRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js')
const TEST_SERVER = join(repoRoot, 'test/support/mcp-stdio-server.ts')
/** A `${VAR}` reference (MCP settings syntax) to a variable the sandbox does not set. */
const UNSET_VAR = '$' + '{AGENT_TUI_TEST_UNSET_VAR}'

type Trace = {
  status: string
  tool_calls: Array<{ name: string; status: string }>
}

async function mcpJson(servers: Record<string, unknown>) {
  await writeFile(join(env.box.workspace, '.mcp.json'), JSON.stringify({ mcpServers: servers }))
}

async function userSettings(settings: Record<string, unknown>) {
  const file = join(env.box.env.XDG_CONFIG_HOME ?? '', 'agent-tui', 'settings.json')
  await mkdir(dirname(file), { recursive: true })
  await writeFile(file, JSON.stringify(settings))
}

/** What the model got back for each tool call, in order. */
function toolResults(): string[] {
  const last = env.server.requests.at(-1)?.body.messages as Array<{ role: string; content: unknown }>
  return last.filter((m) => m.role === 'tool').map((m) => String(m.content))
}

/** The error envelopes the model got, in call order (undefined for successful calls). */
type Envelope = { category: string; message: string; retryable: boolean }

function envelopes(): Array<Envelope | undefined> {
  return toolResults().map((text) => {
    try {
      return JSON.parse(text).error
    } catch {
      return undefined
    }
  })
}

/** A port nothing listens on now (the OS picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

async function run(args: string[] = []) {
  const r = await env.cli(['-p', 'use the MCP tools', '--output-format', 'json', ...args])
  const trace = r.stdout ? (JSON.parse(r.stdout) as Trace) : undefined
  return { ...r, trace, statuses: trace?.tool_calls.map((c) => c.status) ?? [] }
}

const pidFile = () => join(env.box.root, 'server.pid')
const readPid = async (file = pidFile()) => Number(await readFile(file, 'utf8'))

describe('stdio servers from .mcp.json', () => {
  it('server-everything in a trusted folder: echo, resources, and its process group gone after exit', async () => {
    // A shell wrapper stays the group leader with node as its child, as `npx` servers do.
    await mcpJson({
      everything: {
        command: 'sh',
        args: ['-c', `echo $$ > "${pidFile()}"; "${node}" "${EVERYTHING}" stdio`],
      },
    })
    env.server.enqueue(
      { toolCalls: [{ name: 'mcp__everything__echo', arguments: { message: 'hello over MCP' } }] },
      { toolCalls: [{ name: 'ListMcpResources', arguments: {} }] },
      {
        toolCalls: [
          {
            name: 'ReadMcpResource',
            arguments: { server: 'everything', uri: 'demo://resource/static/document/architecture.md' },
          },
        ],
      },
      {
        toolCalls: [
          {
            name: 'ReadMcpResource',
            arguments: { server: 'everything', uri: 'demo://resource/dynamic/blob/1' },
          },
        ],
      },
      { text: 'done' },
    )
    // Every definition sent (at this window the server's tools would wait behind ToolSearch: e2e/tools-on-demand).
    await userSettings({ deferTools: 'never' })
    const r = await run(['--trust-project'])
    expect(r.code).toBe(0)
    expect(r.statuses).toEqual(['done', 'done', 'done', 'done'])
    const [echo, list, read, blob] = toolResults()
    expect(echo).toBe('Echo: hello over MCP')
    expect(list).toContain('everything  demo://resource/static/document/architecture.md')
    expect(list).toContain('demo://resource/dynamic/text/{resourceId}  (template)')
    expect(read).toContain('# Everything Server')
    expect(blob).toMatch(
      /^\[binary resource demo:\/\/resource\/dynamic\/blob\/1: [\w/-]+, \d+ bytes; not shown as text\]$/,
    )
    // The tools were in the first request's definitions, with the server's own schema.
    const tools = env.server.requests[0]?.body.tools as Array<{
      function: { name: string; parameters: unknown }
    }>
    const names = tools.map((t) => t.function.name)
    expect(names).toContain('ListMcpResources')
    expect(names).toContain('ReadMcpResource')
    const echoTool = tools.find((t) => t.function.name === 'mcp__everything__echo')
    expect(echoTool?.function.parameters).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    })
    const leader = await readPid()
    expect(isProcessAlive(leader)).toBe(false)
    expect(groupMembers(leader)).toEqual([])
  })

  it("an untrusted folder's .mcp.json is not started, says so on stderr, and its tools are unknown", async () => {
    await mcpJson({
      everything: {
        command: 'sh',
        args: ['-c', `echo $$ > "${pidFile()}"; "${node}" "${EVERYTHING}" stdio`],
      },
    })
    env.server.enqueue(
      { toolCalls: [{ name: 'mcp__everything__echo', arguments: { message: 'hi' } }] },
      { text: 'done' },
    )
    const r = await run()
    expect(r.code).toBe(0)
    expect(r.statuses).toEqual(['error'])
    expect(envelopes()[0]?.message).toBe('unknown tool "mcp__everything__echo"')
    expect(r.stderr).toContain('MCP server everything')
    expect(r.stderr).toContain('--trust-project')
    expect(existsSync(pidFile())).toBe(false)
    const sent = env.server.requests[0]?.body.tools as Array<{ function: { name: string } }>
    const names = sent.map((t) => t.function.name)
    // Nothing can start in this run: not even the resource tools are offered.
    expect(names.some((n) => n.startsWith('mcp__') || n.includes('McpResource'))).toBe(false)
  })

  it('server-filesystem: a read-only tool runs in ci mode, a writing one is denied unless a rule allows it', async () => {
    await writeFile(join(env.box.workspace, 'hello.txt'), 'hello from the workspace\n')
    await mcpJson({ fs: { command: node, args: [FILESYSTEM, env.box.workspace] } })
    const script = () =>
      env.server.enqueue(
        {
          toolCalls: [
            { name: 'mcp__fs__read_text_file', arguments: { path: join(env.box.workspace, 'hello.txt') } },
          ],
        },
        {
          toolCalls: [
            {
              name: 'mcp__fs__write_file',
              arguments: { path: join(env.box.workspace, 'new.txt'), content: 'x' },
            },
          ],
        },
        { text: 'done' },
      )
    script()
    const ci = await run(['--trust-project'])
    expect(ci.statuses).toEqual(['done', 'denied'])
    expect(toolResults()[0]).toContain('hello from the workspace')
    expect(envelopes()[1]).toMatchObject({
      category: 'permission',
      message:
        'mcp__fs__write_file denied: ci mode denies mcp__fs__write_file (it may change things) without an allow rule',
    })
    expect(existsSync(join(env.box.workspace, 'new.txt'))).toBe(false)

    script()
    const allowed = await run(['--trust-project', '--allowed-tools', 'mcp__fs__*'])
    expect(allowed.statuses).toEqual(['done', 'done'])
    expect(await readFile(join(env.box.workspace, 'new.txt'), 'utf8')).toBe('x')
  })
})

describe('failures never crash the run', () => {
  const testServer = (extra: Record<string, unknown> = {}, args: string[] = []) => ({
    command: node,
    args: [TEST_SERVER, ...args],
    env: { MCP_TEST_PID_FILE: pidFile(), MCP_TEST_CHILD_PID_FILE: join(env.box.root, 'child.pid') },
    ...extra,
  })

  it('an error result, a call past its timeout, and a server that dies mid-call give error envelopes', async () => {
    await mcpJson({ t: testServer({ toolTimeoutSeconds: 0.5 }, ['--child']) })
    env.server.enqueue(
      { toolCalls: [{ name: 'mcp__t__fail', arguments: {} }] },
      { toolCalls: [{ name: 'mcp__t__slow', arguments: { ms: 20_000 } }] },
      { toolCalls: [{ name: 'mcp__t__die', arguments: {} }] },
      { toolCalls: [{ name: 'mcp__t__echo', arguments: { text: 'anyone there?' } }] },
      { text: 'done' },
    )
    const r = await run(['--trust-project', '--allowed-tools', 'mcp__t__die'])
    expect(r.code).toBe(0)
    expect(r.statuses).toEqual(['error', 'error', 'error', 'error'])
    const [failed, slow, died, after] = envelopes().map((e) => {
      if (!e) throw new Error('expected an error envelope')
      return e
    }) as [Envelope, Envelope, Envelope, Envelope]
    expect(failed).toMatchObject({ category: 'execution' })
    expect(failed.message).toContain('the database is locked')
    expect(slow).toMatchObject({ category: 'timeout', retryable: true })
    expect(slow.message).toContain('no answer within 0.5 s (toolTimeoutSeconds)')
    expect(died.category).toBe('execution')
    expect(died.message).toMatch(/MCP server "t"/)
    expect(after.message).toContain(
      'MCP server "t" is not available: it failed: the server process exited with code 3',
    )
    expect(after.message).toContain('exiting on purpose')
    expect(r.stderr).toContain('MCP server "t" failed: the server process exited with code 3')
    // The server's child (its process group) went with it.
    const child = await readPid(join(env.box.root, 'child.pid'))
    expect(isProcessAlive(child)).toBe(false)
  })

  it('SIGTERM during a call: the server and its children are gone', async () => {
    await mcpJson({ t: testServer({}, ['--child']) })
    env.server.enqueue({ toolCalls: [{ name: 'mcp__t__slow', arguments: { ms: 60_000 } }] }, { text: 'done' })
    let cli = 0
    const running = runCli(
      ['--base-url', env.server.baseUrl, '--model', 'm', '-p', 'wait', '--trust-project'],
      {
        cwd: env.box.workspace,
        env: env.box.env,
        onSpawn: (pid) => {
          cli = pid
        },
      },
    )
    const childFile = join(env.box.root, 'child.pid')
    await pollUntil(() => existsSync(childFile), { timeoutMs: 20_000, intervalMs: 20 })
    await env.server.waitForRequests(1)
    process.kill(cli, 'SIGTERM')
    const r = await running
    expect(r.code).toBe(143)
    const [leader, child] = [await readPid(), await readPid(childFile)]
    // SIGKILL is sent before the CLI exits, but a loaded host may run the killed processes' exit later.
    const gone = () => !isProcessAlive(leader) && !isProcessAlive(child)
    expect(await pollUntil(gone, { timeoutMs: 5_000 })).toBe(true)
  })

  it('a server that cannot start is reported and the run goes on without it', async () => {
    await mcpJson({
      broken: testServer({}, ['--crash-on-start']),
      missing: { command: 'no-such-mcp-server-binary' },
      unset: { command: node, args: [UNSET_VAR] },
      // Starts and never answers: its start-up timeout is what the user is told, not what closing it did.
      silent: { command: node, args: ['-e', 'setInterval(() => {}, 1000)'], startupTimeoutSeconds: 0.5 },
    })
    env.server.enqueue({ text: 'fine without them' })
    const r = await run(['--trust-project'])
    expect(r.code).toBe(0)
    expect(r.trace?.status).toBe('completed')
    expect(r.stderr).toContain(
      'MCP server "broken" failed: the server process exited with code 1; its stderr: boom: the test server cannot find its configuration',
    )
    expect(r.stderr).toContain(
      'MCP server "missing" failed: cannot start the server: command not found: no-such-mcp-server-binary',
    )
    expect(r.stderr).toContain(`MCP server "unset" failed: ${UNSET_VAR} is not set in the environment`)
    expect(r.stderr).toContain(
      'MCP server "silent" failed: did not start within 0.5 s (startupTimeoutSeconds)',
    )
  })

  it('a tool list that changes mid-session is announced in a message; the definitions never change', async () => {
    await mcpJson({ t: testServer() })
    env.server.enqueue(
      { toolCalls: [{ name: 'mcp__t__grow', arguments: {} }] },
      { toolCalls: [{ name: 'mcp__t__late_tool', arguments: { n: 7 } }] },
      { text: 'done' },
    )
    // Every definition sent (at this window the server's tools would wait behind ToolSearch: e2e/tools-on-demand).
    await userSettings({ deferTools: 'never' })
    const r = await run(['--trust-project'])
    expect(r.statuses).toEqual(['done', 'done'])
    expect(toolResults()[1]).toBe('late tool got 7')
    const [first, second, third] = env.server.requests.map((q) => JSON.stringify(q.body.tools))
    expect(second).toBe(first)
    expect(third).toBe(first)
    expect(first).not.toContain('late_tool')
    const messages = env.server.requests[1]?.body.messages as Array<{ role: string; content: string }>
    const note = messages.find((m) => m.role === 'user' && String(m.content).includes('mcp__t__late_tool'))
    expect(note?.content).toContain('you can call them by name')
    expect(note?.content).toContain('"n":{"type":"number"}')
  })

  it('-p "/mcp__t__greet Ada" sends the MCP prompt; a missing argument shows the usage, exit 2', async () => {
    await mcpJson({ t: testServer() })
    env.server.enqueue({ text: 'greeted' })
    const r = await env.cli(['-p', '/mcp__t__greet Ada', '--trust-project'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('greeted\n')
    const messages = env.server.requests[0]?.body.messages as Array<{ role: string; content: string }>
    expect(messages.findLast((m) => m.role === 'user')?.content).toBe('Please greet Ada warmly.')

    const missing = await env.cli(['-p', '/mcp__t__greet', '--trust-project'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('agent-tui: /mcp__t__greet failed:')
    expect(missing.stderr).toContain('/mcp__t__greet <name>')
    expect(env.server.requests).toHaveLength(1)
  })

  it('@server:uri in the prompt attaches the resource to the message', async () => {
    await mcpJson({ t: testServer() })
    env.server.enqueue({ text: 'read it' })
    const r = await env.cli(['-p', 'summarise @t:test://readme please', '--trust-project'])
    expect(r.code).toBe(0)
    const messages = env.server.requests[0]?.body.messages as Array<{ role: string; content: string }>
    const user = messages.find((m) => m.role === 'user')
    expect(user?.content).toContain('summarise @t:test://readme please')
    expect(user?.content).toContain(
      '<mcp-resource server="t" uri="test://readme">\nThe test server reads this to you.\n</mcp-resource>',
    )
  })
})

describe('streamable HTTP servers', () => {
  let http: HttpMcpServer | undefined
  afterEach(async () => {
    await http?.close()
    http = undefined
  })

  it("a server in the user's settings works (no trust needed: it is the user's)", async () => {
    http = await startHttpMcpServer()
    await userSettings({ mcpServers: { web: { type: 'http', url: http.url } } })
    env.server.enqueue(
      { toolCalls: [{ name: 'mcp__web__echo', arguments: { text: 'over http' } }] },
      { text: 'done' },
    )
    const r = await run()
    expect(r.statuses).toEqual(['done'])
    expect(toolResults()[0]).toBe('http echo: over http')
    expect(http.calls).toEqual(['echo over http'])
  })

  it('a server nobody listens for is reported with why it could not connect', async () => {
    const port = await freePort()
    await userSettings({ mcpServers: { gone: { url: `http://127.0.0.1:${port}/mcp` } } })
    env.server.enqueue({ text: 'went on without it' })
    const r = await run()
    expect(r.code).toBe(0)
    expect(r.stderr).toBe(
      `agent-tui: warning: MCP server "gone" failed: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    )
  })

  it('the older HTTP+SSE transport (type "sse"): server-everything in its sse mode', async () => {
    const port = await freePort()
    const sse = spawn(node, [EVERYTHING, 'sse'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    try {
      await new Promise<void>((resolve, reject) => {
        let said = ''
        sse.stderr?.on('data', (chunk) => {
          said += chunk
          if (said.includes('Server is running')) resolve()
        })
        sse.once('exit', (code) => reject(new Error(`server-everything sse exited (${code}): ${said}`)))
      })
      await userSettings({ mcpServers: { legacy: { type: 'sse', url: `http://127.0.0.1:${port}/sse` } } })
      env.server.enqueue(
        { toolCalls: [{ name: 'mcp__legacy__echo', arguments: { message: 'over sse' } }] },
        { text: 'done' },
      )
      const r = await run()
      expect(r.statuses).toEqual(['done'])
      expect(toolResults()[0]).toBe('Echo: over sse')
    } finally {
      sse.kill('SIGKILL')
    }
  })

  it('behind OAuth, headless and never signed in: says to sign in from the TUI, its tools are unknown', async () => {
    http = await startHttpMcpServer({ oauth: true })
    await userSettings({ mcpServers: { secure: { url: http.url } } })
    env.server.enqueue({ toolCalls: [{ name: 'mcp__secure__whoami', arguments: {} }] }, { text: 'done' })
    const first = await run()
    expect(first.stderr).toContain('MCP server "secure" needs you to sign in (OAuth)')
    expect(first.statuses).toEqual(['error'])
    expect(envelopes()[0]?.message).toBe('unknown tool "mcp__secure__whoami"')
    expect(http.calls).toEqual([])
    expect(http.stats.authorizations).toBe(0)
  })
})

describe('the OAuth token file', () => {
  it('is written with mode 0600 in the state dir', async () => {
    const { createOAuthStore } = await import('../../source/mcp/oauth-store.ts')
    const file = join(env.box.root, 'state', 'mcp-oauth.json')
    const store = createOAuthStore(file)
    await store.update('https://x.example/mcp', () => ({
      tokens: { access_token: 'a', token_type: 'bearer' },
    }))
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect((await store.get('https://x.example/mcp'))?.tokens).toEqual({
      access_token: 'a',
      token_type: 'bearer',
    })
  })
})
