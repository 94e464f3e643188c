/**
 * What the Bash sandbox fences beyond files and TCP (issue #30), end to end: headless `--sandbox --mode
 * auto` against the scripted server, commands run unasked. Host IPC (a Unix socket under $HOME named
 * by SSH_AUTH_SOCK, a descriptor agent-tui was started with) is out of reach, and so are agent-tui's
 * own state (other sessions' logs, the trust store) and the user's shell history — while the session's
 * own outputs dir stays writable.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { osSandbox } from '../support/os-sandbox.ts'
import { type CliResult, cliPath } from '../support/run-cli.ts'
import type { RecordedRequest } from '../support/scripted-server.ts'

const env = setupE2eEnv()

type Msg = { role: string; content: string }
const toolResults = (req: RecordedRequest | undefined) =>
  ((req?.body.messages as Msg[]) ?? []).filter((m) => m.role === 'tool').map((m) => m.content)
const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })
type Trace = { status: string; tool_calls: Array<{ name: string; status: string }> }

const SANDBOX_ARGS = ['-p', 'go', '--sandbox', '--mode', 'auto', '--output-format', 'json']
/** High enough that Node does not mark it close-on-exec at start-up (it does so for the low ones). */
const LEAKED_FD = 40

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
})

const node = (script: string) => `"${process.execPath}" -e "${script.replace(/"/g, '\\"')}"`
const readScript = (file: string) =>
  node(
    `try { console.log(require('fs').readFileSync('${file}', 'utf8')) } catch (e) { console.log('cannot read', e.code) }`,
  )

/**
 * The CLI as a careless parent would start it: with a pipe left open at LEAKED_FD. Returns what the
 * run wrote to that pipe, too.
 */
function runWithLeakedPipe(args: string[]): Promise<CliResult & { leaked: string }> {
  return new Promise((resolve, reject) => {
    const stdio = [
      'ignore',
      'pipe',
      'pipe',
      ...Array<'ignore'>(LEAKED_FD - 3).fill('ignore'),
      'pipe',
    ] as const
    const child = spawn(
      process.execPath,
      [cliPath, '--base-url', env.server.baseUrl, '--model', 'm', ...args],
      {
        cwd: env.box.workspace,
        env: env.box.env,
        stdio: [...stdio],
      },
    )
    let stdout = ''
    let stderr = ''
    let leaked = ''
    child.stdout?.on('data', (d) => {
      stdout += d
    })
    child.stderr?.on('data', (d) => {
      stderr += d
    })
    ;(child.stdio as unknown as Array<NodeJS.ReadableStream | null>)[LEAKED_FD]?.on('data', (d) => {
      leaked += d
    })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`agent-tui did not finish\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, 40_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr, leaked })
    })
  })
}

describe.runIf(osSandbox?.kind === 'bwrap')('the fence for IPC and agent-tui’s own state, headless', () => {
  it('a host agent socket under $HOME, its variables and a descriptor agent-tui inherited are out of reach', async () => {
    const socket = join(env.box.home, '.ssh-agent.sock')
    let hits = 0
    const server = createServer((client) => {
      hits++
      client.end('AGENT-ANSWER\n')
    })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(socket, resolve))
    env.box.env.SSH_AUTH_SOCK = socket
    env.box.env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${socket}`
    env.box.env.DISPLAY = ':0'
    const connectScript = `require('net').connect('${socket}').on('data', (d) => console.log('reached', String(d))).on('error', (e) => console.log('failed', e.code))`
    env.server.enqueue(
      call('Bash', { command: node(connectScript) }),
      call('Bash', {
        command: 'env | grep -E "^(SSH_AUTH_SOCK|DBUS_SESSION_BUS_ADDRESS|DISPLAY)=" ; echo env-checked',
      }),
      call('Bash', {
        command: node(
          `const fs = require('fs'); console.log('leads to', fs.readlinkSync('/proc/self/fd/${LEAKED_FD}')); try { fs.writeSync(${LEAKED_FD}, 'LEAKED') } catch (e) { console.log('write', e.code) }`,
        ),
      }),
      { text: 'done' },
    )
    const r = await runWithLeakedPipe(SANDBOX_ARGS)
    expect(r.code, r.stderr).toBe(0)
    expect((JSON.parse(r.stdout) as Trace).tool_calls.map((c) => c.status)).toEqual(['done', 'done', 'done'])
    const [connected, environment, leaked] = toolResults(env.server.requests.at(-1))
    expect(connected).toContain('failed EPERM')
    expect(hits).toBe(0)
    expect(environment).toMatch(/^env-checked/)
    // The descriptor is there, but it is /dev/null, read-only: nothing reaches the pipe.
    expect(leaked).toContain('leads to /dev/null')
    expect(leaked).toContain('write EBADF')
    expect(r.leaked).toBe('')
  })

  it('other sessions’ logs, the trust store, agent-tui’s settings and the shell history are hidden; this session’s outputs are writable', async () => {
    const state = join(env.box.home, '.local', 'state', 'agent-tui')
    const secrets = {
      otherSession: join(state, 'sessions', '-home-u-other-project', 'old.jsonl'),
      trustStore: join(state, 'trusted-folders.json'),
      userCommand: join(env.box.home, '.config', 'agent-tui', 'commands', 'deploy.md'),
      history: join(env.box.home, '.bash_history'),
    }
    for (const [name, file] of Object.entries(secrets)) {
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, `SECRET-${name}\n`)
    }
    env.server.enqueue(
      ...Object.values(secrets).map((file) => call('Bash', { command: readScript(file) })),
      // A program run unasked, which the policy cannot see into: where it can write is the sandbox's call.
      call('Bash', {
        command: node(
          `const fs = require('fs'); const state = '${state}'; const [id] = fs.readdirSync(state + '/outputs'); ` +
            `fs.writeFileSync(state + '/outputs/' + id + '/probe', 'kept'); ` +
            `console.log(id, fs.readFileSync(state + '/outputs/' + id + '/probe', 'utf8'), fs.readdirSync(state).join(','))`,
        ),
      }),
      { text: 'done' },
    )
    const r = await env.cli(SANDBOX_ARGS)
    expect(r.code, r.stderr).toBe(0)
    expect((JSON.parse(r.stdout) as Trace).tool_calls.map((c) => c.status)).toEqual([
      'done',
      'done',
      'done',
      'done',
      'done',
    ])
    const results = toolResults(env.server.requests.at(-1))
    for (const result of results) expect(result).not.toContain('SECRET-')
    expect(results.slice(0, 3).every((result) => result.includes('cannot read ENOENT'))).toBe(true)
    expect(results[3]).toContain('cannot read EACCES')
    // One session's outputs dir, the one this run writes to; only the way there in the state dir.
    const sessions = readdirSync(join(state, 'outputs')).filter((name) => !name.startsWith('.'))
    expect(sessions).toHaveLength(1)
    expect(results[4]?.startsWith(`${sessions[0]} kept outputs\n`)).toBe(true)
    expect(readFileSync(join(state, 'outputs', sessions[0]!, 'probe'), 'utf8')).toBe('kept')
    // The host's files are untouched.
    for (const [name, file] of Object.entries(secrets))
      expect(readFileSync(file, 'utf8')).toBe(`SECRET-${name}\n`)
    expect(existsSync(secrets.otherSession)).toBe(true)
  })
})
