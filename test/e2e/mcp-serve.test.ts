/**
 * `agent-tui mcp serve` end to end: the built CLI as a stdio MCP server, driven by the MCP SDK's client
 * (v1, as most clients in the wild), against the scripted chat server. docs/mcp.md#agent-tui-as-an-mcp-server
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client as ModernClient } from '@modelcontextprotocol/client'
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterEach, describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { serveClients } from '../support/mcp-serve-clients.ts'
import { repoRoot, runCli } from '../support/run-cli.ts'
import { isGone, readPidFile, waitFor } from '../unit/tasks/helpers.ts'
import { projectKey } from '../../source/config/app-paths.ts'

const env = setupE2eEnv()
const { connect, seen, serveArgs } = serveClients(env)
const children: ChildProcessWithoutNullStreams[] = []

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
})

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })
/** A foreground command that writes its pid (then runs long): what a cancelled task must kill. */
const SLEEPER = 'echo $$ > sleeper.pid; exec sleep 300'

/** The messages of the `n`th chat request the scripted server saw. */
function messagesOf(n: number): Array<Record<string, unknown>> {
  return (env.server.requests[n]?.body.messages ?? []) as Array<Record<string, unknown>>
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = result.content as Array<{ type: string; text?: string }>
  return content.map((part) => part.text ?? '').join('')
}

describe('agent-tui mcp serve', () => {
  it('lists run_task with its schema, the modes this server allows named', async () => {
    const { client } = await connect(['--max-mode', 'auto'])
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['run_task'])
    const tool = tools[0]!
    expect(tool.inputSchema.required).toEqual(['prompt'])
    expect(Object.keys(tool.inputSchema.properties ?? {})).toEqual(['prompt', 'cwd', 'mode', 'model'])
    expect(JSON.stringify(tool.inputSchema.properties?.mode)).toContain('allowed here: ci, safe, auto')
    expect(tool.outputSchema?.required).toEqual(['result', 'session_id', 'status', 'steps'])
  })

  it('runs a task that reads a file and answers: the answer, the session id, the session log', async () => {
    await writeFile(join(env.box.workspace, 'notes.txt'), 'the secret word is plover\n')
    env.server.enqueue(call('Read', { file_path: 'notes.txt' }), { text: 'The word is plover.' })
    const { client } = await connect()
    const result = await client.callTool({ name: 'run_task', arguments: { prompt: 'what is the word?' } })
    expect(result.isError).toBeFalsy()
    expect(textOf(result)).toBe('The word is plover.')
    const structured = result.structuredContent as {
      result: string
      session_id: string
      status: string
      steps: number
    }
    expect(structured).toMatchObject({ result: 'The word is plover.', status: 'completed', steps: 2 })
    // The model saw the file through the Read tool, on the same runtime as -p.
    expect(JSON.stringify(messagesOf(1))).toContain('plover')
    expect(messagesOf(0).at(-1)).toMatchObject({ role: 'user' })
    // The session log is where -p would write it, under the task's session id.
    const log = join(
      env.box.home,
      '.local',
      'state',
      'agent-tui',
      'sessions',
      projectKey(env.box.workspace),
      `${structured.session_id}.jsonl`,
    )
    expect(await readFile(log, 'utf8')).toContain('what is the word?')
  })

  it("sends a prompt that starts with / as text: a client cannot run the user's commands", async () => {
    // A command whose shell line and grants a client's arguments would otherwise reach.
    const commands = join(env.box.env.XDG_CONFIG_HOME ?? '', 'agent-tui', 'commands')
    await mkdir(commands, { recursive: true })
    await writeFile(
      join(commands, 'deploy.md'),
      '---\nallowed-tools: Bash(touch *)\n---\n!`touch ran-$ARGUMENTS`\nDeploy it.\n',
    )
    env.server.enqueue({ text: 'not a command here' })
    const { client } = await connect()
    const result = await client.callTool({ name: 'run_task', arguments: { prompt: '/deploy now' } })
    expect(textOf(result)).toBe('not a command here')
    expect(JSON.stringify(messagesOf(0).at(-1))).toContain('/deploy now')
    expect(JSON.stringify(messagesOf(0))).not.toContain('Deploy it.')
    expect(existsSync(join(env.box.workspace, 'ran-now'))).toBe(false)
  })

  it('--debug writes a log per task and says where', async () => {
    env.server.enqueue({ text: 'logged' })
    const { client, stderr } = await connect(['--debug'])
    await client.callTool({ name: 'run_task', arguments: { prompt: 'log this' } })
    await waitFor(() => /debug log written to (\S+)/.test(stderr()), 'the debug log line')
    const path = /\[task 1\]: debug log written to (\S+)/.exec(stderr())?.[1] ?? ''
    expect(await readFile(path, 'utf8')).toContain('"type":"user/submitted"')
  })

  it('refuses an unsafe Bash command in ci mode, and the model is told why', async () => {
    env.server.enqueue(call('Bash', { command: 'touch made.txt' }), { text: 'I was not allowed.' })
    const { client } = await connect()
    const result = await client.callTool({ name: 'run_task', arguments: { prompt: 'make a file' } })
    expect(textOf(result)).toBe('I was not allowed.')
    expect(existsSync(join(env.box.workspace, 'made.txt'))).toBe(false)
    const envelope = JSON.stringify(messagesOf(1).at(-1))
    expect(envelope).toContain('permission')
    expect(envelope).toContain('ci mode')
  })

  it("does not apply an untrusted folder's allow rules", async () => {
    await mkdir(join(env.box.workspace, '.agent-tui'))
    await writeFile(
      join(env.box.workspace, '.agent-tui', 'settings.json'),
      JSON.stringify({ permissions: { allow: ['Bash(touch *)'] } }),
    )
    env.server.enqueue(call('Bash', { command: 'touch made.txt' }), { text: 'done' })
    const { client, stderr } = await connect()
    await client.callTool({ name: 'run_task', arguments: { prompt: 'make a file' } })
    expect(existsSync(join(env.box.workspace, 'made.txt'))).toBe(false)
    expect(stderr()).toContain('is not a trusted folder, so what its repository brings is ignored')
    expect(stderr()).toContain('allow rule Bash(touch *)')
    // The server refuses --trust-project, so the notice does not suggest it.
    expect(stderr()).not.toContain('--trust-project')
  })

  it('refuses a mode looser than --max-mode before anything runs', async () => {
    const { client } = await connect(['--max-mode', 'safe'])
    const result = await client.callTool({ name: 'run_task', arguments: { prompt: 'go', mode: 'dangerous' } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toContain('mode "dangerous" is looser than this server allows (--max-mode safe')
    expect(env.server.requests).toHaveLength(0)
  })

  it('refuses a cwd outside the folder the server was started in', async () => {
    const { client } = await connect()
    const result = await client.callTool({ name: 'run_task', arguments: { prompt: 'go', cwd: env.box.home } })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toContain('outside the folder this server was started in')
    expect(env.server.requests).toHaveLength(0)
  })

  it('runs concurrent tasks as separate sessions', async () => {
    env.server.enqueue({ text: 'one', holdUntilInFlight: 2 }, { text: 'two', holdUntilInFlight: 2 })
    const { client } = await connect()
    const [a, b] = await Promise.all([
      client.callTool({ name: 'run_task', arguments: { prompt: 'first' } }),
      client.callTool({ name: 'run_task', arguments: { prompt: 'second' } }),
    ])
    expect(env.server.maxInFlight).toBe(2)
    expect([textOf(a), textOf(b)].sort()).toEqual(['one', 'two'])
    const ids = [a, b].map((r) => (r.structuredContent as { session_id: string }).session_id)
    expect(new Set(ids).size).toBe(2)
  })

  it('a cancelled call interrupts the task and kills its command', async () => {
    // No second reply: an interrupted task sends no further request.
    env.server.enqueue(call('Bash', { command: SLEEPER }))
    const { client } = await connect(['--max-mode', 'dangerous'])
    const progress: string[] = []
    const abort = new AbortController()
    const pending = client.callTool(
      { name: 'run_task', arguments: { prompt: 'sleep', mode: 'dangerous' } },
      undefined,
      { signal: abort.signal, onprogress: (p) => progress.push(p.message ?? '') },
    )
    const pid = await readPidFile(join(env.box.workspace, 'sleeper.pid'))
    seen.push(pid)
    abort.abort()
    await expect(pending).rejects.toThrow()
    await waitFor(() => isGone(pid), 'the cancelled command to be killed')
    expect(progress.some((line) => line.includes('sleeper.pid'))).toBe(true)
    // The server is still up for the next call.
    env.server.enqueue({ text: 'still here' })
    const next = await client.callTool({ name: 'run_task', arguments: { prompt: 'again' } })
    expect(textOf(next)).toBe('still here')
  })
})

describe('agent-tui mcp serve with a 2026-07-28 client', () => {
  it('lists run_task and runs a task on the modern protocol (the 2.4 client, pinned)', async () => {
    env.server.enqueue({ text: 'modern answer' })
    const client = new ModernClient(
      { name: 'e2e-modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    const transport = new ModernStdio({
      command: process.execPath,
      args: serveArgs(),
      cwd: env.box.workspace,
      env: env.box.env as Record<string, string>,
      stderr: 'ignore',
    })
    try {
      await client.connect(transport)
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(['run_task'])
      const result = await client.callTool({ name: 'run_task', arguments: { prompt: 'hello' } })
      expect(result.structuredContent).toMatchObject({ result: 'modern answer', status: 'completed' })
    } finally {
      await client.close()
    }
  })
})

describe('the server modules', () => {
  const SERVER_MODULES = [
    'source/app/mcp-serve/serve.ts',
    'node_modules/@modelcontextprotocol/server/src/server/serveStdio.ts',
  ]
  const reporting = (report: string) => ({
    ...env.box.env,
    NODE_OPTIONS: `--import ${JSON.stringify(join(repoRoot, 'test', 'support', 'report-sources.mjs'))}`,
    AGENT_TUI_TEST_SOURCES: report,
  })

  it('are not loaded by a -p run, and are by mcp serve', async () => {
    const report = join(env.box.root, 'sources.txt')
    env.server.enqueue({ text: 'ok' })
    const run = await runCli(['--base-url', env.server.baseUrl, '--model', 'm', '-p', 'hi'], {
      cwd: env.box.workspace,
      env: reporting(report),
      timeoutMs: 40_000,
    })
    expect(run.code, run.stderr).toBe(0)
    const headless = (await readFile(report, 'utf8')).split('\n')
    expect(headless).toContain('source/app/run-headless.ts')
    for (const module of SERVER_MODULES) expect(headless).not.toContain(module)

    const served = await runCli(['mcp', 'serve', '--base-url', env.server.baseUrl, '--model', 'm'], {
      cwd: env.box.workspace,
      env: reporting(report),
      stdin: '',
      timeoutMs: 40_000,
    })
    expect(served.code, served.stderr).toBe(0)
    const serving = (await readFile(report, 'utf8')).split('\n')
    for (const module of SERVER_MODULES) expect(serving).toContain(module)
  })
})

describe('agent-tui mcp serve as a process', () => {
  /** The server spawned by hand, to see its exit and every byte it writes on stdout. */
  function spawnServer(extra: string[] = []) {
    const child = spawn(process.execPath, serveArgs(extra), { cwd: env.box.workspace, env: env.box.env })
    children.push(child)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => {
      stdout += d
    })
    child.stderr.on('data', (d) => {
      stderr += d
    })
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    )
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
    const lines = () => stdout.split('\n').filter(Boolean)
    return { child, send, lines, exited, stderr: () => stderr }
  }

  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  }

  it('writes only protocol on stdout and exits 0 when the client closes stdin', async () => {
    const server = spawnServer()
    server.send(initialize)
    await waitFor(() => server.lines().length >= 1, 'the initialize answer')
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
    await waitFor(() => server.lines().length >= 2, 'the tools/list answer')
    server.child.stdin.end()
    expect(await server.exited).toEqual({ code: 0, signal: null })
    for (const line of server.lines()) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' })
    expect(server.stderr()).toContain('serving on stdio')
  })

  it('kills a running task processes when the client goes away', async () => {
    env.server.enqueue(call('Bash', { command: SLEEPER }), { text: 'never asked for' })
    const server = spawnServer(['--max-mode', 'dangerous'])
    server.send(initialize)
    await waitFor(() => server.lines().length >= 1, 'the initialize answer')
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    server.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'run_task', arguments: { prompt: 'sleep', mode: 'dangerous' } },
    })
    const pid = await readPidFile(join(env.box.workspace, 'sleeper.pid'))
    seen.push(pid)
    server.child.stdin.end()
    expect(await server.exited).toEqual({ code: 0, signal: null })
    await waitFor(() => isGone(pid), 'the command to be killed')
  })

  it('on SIGTERM stops its tasks, kills their processes and exits 143', async () => {
    env.server.enqueue(call('Bash', { command: SLEEPER }))
    const server = spawnServer(['--max-mode', 'dangerous'])
    server.send(initialize)
    await waitFor(() => server.lines().length >= 1, 'the initialize answer')
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    server.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'run_task', arguments: { prompt: 'sleep', mode: 'dangerous' } },
    })
    const pid = await readPidFile(join(env.box.workspace, 'sleeper.pid'))
    seen.push(pid)
    server.child.kill('SIGTERM')
    expect(await server.exited).toEqual({ code: 143, signal: null })
    await waitFor(() => isGone(pid), 'the command to be killed')
  })

  it('says what is wrong with its arguments, on stderr, exit 2', async () => {
    const server = spawnServer(['--max-mode', 'loose'])
    expect(await server.exited).toEqual({ code: 2, signal: null })
    expect(server.stderr()).toContain('--max-mode must be one of')
    expect(server.lines()).toEqual([])
  })
})
