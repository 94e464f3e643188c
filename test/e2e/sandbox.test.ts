/**
 * The Bash sandbox end to end (issue #25): headless `--sandbox --mode auto` against the scripted server.
 * Commands run without asking and the sandbox, not a prompt, stops what they may not do; without
 * bubblewrap the run says so once and every command asks (denied headless).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { hostPids, osSandbox } from '../support/os-sandbox.ts'
import { runCli } from '../support/run-cli.ts'
import type { RecordedRequest } from '../support/scripted-server.ts'
import { isGone, waitFor } from '../unit/tasks/helpers.ts'

const env = setupE2eEnv()

type Msg = { role: string; content: string }
const toolResults = (req: RecordedRequest | undefined) =>
  ((req?.body.messages as Msg[]) ?? []).filter((m) => m.role === 'tool').map((m) => m.content)
const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })
type Trace = { status: string; tool_calls: Array<{ name: string; status: string }> }

const SANDBOX_ARGS = ['-p', 'go', '--sandbox', '--mode', 'auto', '--output-format', 'json']

let server: Server
let hits = 0
beforeEach(async () => {
  hits = 0
  server = createServer((_req, res) => {
    hits++
    res.end('secret')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
})
afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe.runIf(osSandbox?.kind === 'bwrap')('--sandbox in auto mode, headless', () => {
  it('runs commands unasked: writes inside land, writes outside, into .git/ and to the network fail inside', async () => {
    execFileSync('git', ['init', '-q'], { cwd: env.box.workspace })
    const port = (server.address() as AddressInfo).port
    const fetchScript = `fetch('http://127.0.0.1:${port}/').then((r) => console.log('reached', r.status), (e) => { console.log('failed', e.cause?.code ?? e.message); process.exit(3) })`
    env.server.enqueue(
      call('Bash', { command: 'touch inside.txt && echo created' }),
      call('Bash', { command: 'touch ../outside.txt' }),
      call('Bash', { command: 'echo "[core] fsmonitor = evil" >> .git/config' }),
      call('Bash', { command: `curl -sS -m 5 http://127.0.0.1:${port}/` }),
      call('Bash', { command: `"${process.execPath}" -e "${fetchScript.replace(/"/g, '\\"')}"` }),
      { text: 'done' },
    )
    const r = await env.cli(SANDBOX_ARGS)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    const trace = JSON.parse(r.stdout) as Trace
    // Nothing was denied: the sandbox, not a prompt, decided.
    expect(trace.tool_calls.map((c) => c.status)).toEqual(['done', 'error', 'error', 'error', 'error'])

    expect(existsSync(join(env.box.workspace, 'inside.txt'))).toBe(true)
    expect(existsSync(join(env.box.root, 'outside.txt'))).toBe(false)
    expect(readFileSync(join(env.box.workspace, '.git', 'config'), 'utf8')).not.toContain('evil')
    expect(hits).toBe(0)

    // The model knows from the start what the sandbox allows.
    const system = ((env.server.requests[0]?.body.messages ?? []) as Msg[])[0]?.content ?? ''
    expect(system).toContain('Bash commands run in an OS sandbox when it is available')
    expect(system).toContain('and there is no network')
    // The model saw each real error, and why.
    const results = toolResults(env.server.requests.at(-1))
    expect(results[0]).toContain('created')
    expect(results[1]).toContain("touch: cannot touch '../outside.txt': Read-only file system")
    expect(results[1]).toContain('It ran in the OS sandbox')
    expect(results[2]).toContain('.git/config: Read-only file system')
    expect(results[3]).toMatch(/curl: \(7\) Failed to connect to 127\.0\.0\.1/)
    expect(results[4]).toMatch(/failed E[A-Z]+/)
    // The placeholder that kept .agent-tui from being created is gone again.
    expect(existsSync(join(env.box.workspace, '.agent-tui'))).toBe(false)
  })

  it('a program run unasked cannot plant an MCP server: .mcp.json stays read-only, and a missing one uncreatable', async () => {
    const mcp = join(env.box.workspace, '.mcp.json')
    const plant = (file: string) =>
      call('Bash', {
        command: `"${process.execPath}" -e "require('fs').writeFileSync('${file}', '{}')"`,
      })
    env.server.enqueue(plant('.mcp.json'), { text: 'done' })
    const missing = await env.cli(SANDBOX_ARGS)
    expect((JSON.parse(missing.stdout) as Trace).tool_calls.map((c) => c.status)).toEqual(['error'])
    // A missing one is an empty read-only directory inside the sandbox, gone again afterwards.
    expect(toolResults(env.server.requests.at(-1))[0]).toMatch(/EISDIR|EROFS/)
    expect(existsSync(mcp)).toBe(false)

    writeFileSync(mcp, '{"mcpServers": {}}\n')
    env.server.enqueue(
      plant('.mcp.json'),
      call('Bash', { command: 'echo "{}" > .mcp.json' }),
      call('Write', { file_path: '.mcp.json', content: '{}' }),
      { text: 'done' },
    )
    const present = await env.cli(SANDBOX_ARGS)
    expect(present.stderr).toBe('')
    // The sandbox refuses the program and the redirection; the Write tool (no sandbox) asks: denied headless.
    expect((JSON.parse(present.stdout) as Trace).tool_calls.map((c) => c.status)).toEqual([
      'error',
      'error',
      'denied',
    ])
    expect(toolResults(env.server.requests.at(-1))[2]).toContain('writes to .mcp.json always ask')
    expect(readFileSync(mcp, 'utf8')).toBe('{"mcpServers": {}}\n')
  })

  it('directories added with --add-dir are writable too, their .git read-only', async () => {
    const extra = join(env.box.root, 'extra')
    execFileSync('git', ['init', '-q', extra])
    env.server.enqueue(
      call('Bash', { command: 'touch ../extra/added.txt && echo added' }),
      call('Bash', { command: 'echo "[core] fsmonitor = evil" >> ../extra/.git/config' }),
      { text: 'done' },
    )
    const r = await env.cli([...SANDBOX_ARGS, '--add-dir', extra])
    expect(r.code, r.stderr).toBe(0)
    expect((JSON.parse(r.stdout) as Trace).tool_calls.map((c) => c.status)).toEqual(['done', 'error'])
    expect(existsSync(join(extra, 'added.txt'))).toBe(true)
    expect(readFileSync(join(extra, '.git', 'config'), 'utf8')).not.toContain('evil')
    expect(toolResults(env.server.requests.at(-1))[1]).toContain('Read-only file system')
  })

  it('a .git that is a symlink could be replaced inside the sandbox: commands ask (denied headless)', async () => {
    // The link's target stays read-only, but the link itself sits in the writable workspace.
    const gitDir = join(env.box.root, 'gitdir')
    execFileSync('git', ['init', '-q', '--separate-git-dir', gitDir, env.box.workspace])
    execFileSync('rm', [join(env.box.workspace, '.git')])
    execFileSync('ln', ['-s', gitDir, join(env.box.workspace, '.git')])
    const marker = join(env.box.root, 'fsmonitor-ran')
    env.server.enqueue(
      call('Bash', {
        command: `rm .git && git init -q . && git config core.fsmonitor "touch ${marker}; false"`,
      }),
      call('Bash', { command: 'cat README.md 2>/dev/null; echo read' }),
      { text: 'done' },
    )
    const r = await env.cli(SANDBOX_ARGS)
    expect(r.code, r.stderr).toBe(0)
    expect((JSON.parse(r.stdout) as Trace).tool_calls.map((c) => c.status)).toEqual(['denied', 'done'])
    expect(toolResults(env.server.requests.at(-1))[0]).toContain(
      '.git is a symlink, which the sandbox cannot keep from being replaced',
    )
    execFileSync('git', ['status'], { cwd: env.box.workspace, stdio: 'ignore' })
    expect(existsSync(marker)).toBe(false)
  })

  it('a link made and used in one command is judged as the file it leads to', async () => {
    const key = join(env.box.home, '.ssh', 'id_rsa')
    execFileSync('mkdir', ['-p', join(env.box.home, '.ssh')])
    execFileSync('sh', ['-c', `echo PRIVATE-KEY > ${key}`])
    env.server.enqueue(call('Bash', { command: `ln -s ${key} k && cat k` }), { text: 'done' })
    const r = await env.cli(SANDBOX_ARGS)
    expect((JSON.parse(r.stdout) as Trace).tool_calls.map((c) => c.status)).toEqual(['denied'])
    expect(toolResults(env.server.requests.at(-1)).join('\n')).not.toContain('PRIVATE-KEY')
  })

  it('hides the user’s secret stores: a program run unasked cannot print them', async () => {
    // `cat ~/.ssh/id_rsa` asks (the read boundary), but the policy cannot see into a program's code.
    execFileSync('mkdir', ['-p', join(env.box.home, '.ssh')])
    execFileSync('sh', ['-c', `echo PRIVATE-KEY > ${join(env.box.home, '.ssh', 'id_rsa')}`])
    execFileSync('sh', ['-c', `echo 'machine x password NETRC-PASSWORD' > ${join(env.box.home, '.netrc')}`])
    const read = (file: string) =>
      `"${process.execPath}" -e "try { console.log(require('fs').readFileSync('${file}', 'utf8')) } catch (e) { console.log('cannot read', e.code) }"`
    env.server.enqueue(
      call('Bash', {
        command: `${read(join(env.box.home, '.ssh', 'id_rsa'))}; ${read(join(env.box.home, '.netrc'))}`,
      }),
      { text: 'done' },
    )
    const r = await env.cli(SANDBOX_ARGS)
    expect((JSON.parse(r.stdout) as Trace).tool_calls.map((c) => c.status)).toEqual(['done'])
    const [output] = toolResults(env.server.requests.at(-1))
    expect(output).toContain('cannot read ENOENT')
    expect(output).not.toContain('PRIVATE-KEY')
    expect(output).not.toContain('NETRC-PASSWORD')
    expect(readFileSync(join(env.box.home, '.netrc'), 'utf8')).toContain('NETRC-PASSWORD')
  })

  it('sandboxes background jobs too', async () => {
    env.server.enqueue(
      call('Bash', { command: 'touch ../bg-outside.txt; echo hi > bg-inside.txt', run_in_background: true }),
      call('TaskOutput', { task_id: 'b1', block: true, timeout: 20000 }),
      { text: 'done' },
    )
    const r = await env.cli(SANDBOX_ARGS)
    expect(r.code, r.stderr).toBe(0)
    expect(toolResults(env.server.requests.at(-1))[1]).toContain('Read-only file system')
    expect(readFileSync(join(env.box.workspace, 'bg-inside.txt'), 'utf8')).toBe('hi\n')
    expect(existsSync(join(env.box.root, 'bg-outside.txt'))).toBe(false)
  })

  it('a kill -9 of agent-tui takes the sandboxed command tree with it at once', async () => {
    env.server.enqueue(call('Bash', { command: '(sleep 4911 & wait) & sleep 4912; wait' }), { text: 'never' })
    let agentPid = 0
    const result = runCli(['--base-url', env.server.baseUrl, '--model', 'm', ...SANDBOX_ARGS], {
      cwd: env.box.workspace,
      env: env.box.env,
      timeoutMs: 40_000,
      onSpawn: (pid) => {
        agentPid = pid
      },
    })
    let sleeps: number[] = []
    await waitFor(() => {
      sleeps = [...hostPids('sleep', '4911'), ...hostPids('sleep', '4912')]
      return sleeps.length === 2
    }, 'the sandboxed sleeps to start')
    process.kill(agentPid, 'SIGKILL')
    expect((await result).signal).toBe('SIGKILL')
    // bubblewrap's --die-with-parent: no next start is needed to reap them.
    for (const pid of sleeps) await waitFor(() => isGone(pid), `sandboxed pid ${pid} to be gone`)
  })
})

// AGENT_TUI_BWRAP is how a Linux machine is made to lack bubblewrap; macOS uses sandbox-exec.
describe.runIf(process.platform === 'linux')('--sandbox without bubblewrap', () => {
  it('says so once, with the install command, and every command asks (denied headless)', async () => {
    env.box.env.AGENT_TUI_BWRAP = '/nonexistent/bwrap'
    env.server.enqueue(
      call('Bash', { command: 'touch inside.txt' }),
      call('Bash', { command: 'touch again.txt' }),
      {
        text: 'done',
      },
    )
    const r = await env.cli(SANDBOX_ARGS)
    expect(r.code, r.stderr).toBe(0)
    const notices = r.stderr.split('\n').filter((line) => line.includes('Bash sandbox unavailable'))
    expect(notices).toHaveLength(1)
    expect(notices[0]).toContain('sudo apt-get install bubblewrap')
    expect(notices[0]).toContain('every Bash command asks before it runs, unsandboxed')
    const trace = JSON.parse(r.stdout) as Trace
    expect(trace.tool_calls.map((c) => c.status)).toEqual(['denied', 'denied'])
    expect(toolResults(env.server.requests.at(-1))[0]).toContain(
      'needs approval (auto mode asks before running commands',
    )
    expect(existsSync(join(env.box.workspace, 'inside.txt'))).toBe(false)
  })
})
