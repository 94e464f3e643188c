/**
 * The session's Bash sandbox with real processes: the "unavailable" paths everywhere, and where this
 * machine has bubblewrap, commands really fenced, killed as one group, and leaving nothing behind.
 */
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  type BashSandboxOptions,
  type CommandSandbox,
  createBashSandbox,
  type SandboxStatus,
} from '../../../source/sandbox/bash-sandbox.js'
import { createTaskManager, type TaskManager } from '../../../source/tasks/task-manager.js'
import { type ShellExit, type ShellProcess, startShell } from '../../../source/tools/shell-process.js'
import { hostPids, osSandbox } from '../../support/os-sandbox.ts'
import { isGone, makeTempDir, waitFor } from '../tasks/helpers.js'

let root: string
let ws: string
let outputs: string
let cleanup: () => Promise<void>
const shells: ShellProcess[] = []
const managers: TaskManager[] = []

beforeEach(async () => {
  const temp = await makeTempDir()
  root = await realpath(temp.dir)
  cleanup = temp.cleanup
  ws = join(root, 'ws')
  outputs = join(root, 'state', 'outputs', 's1')
  await mkdir(ws)
})

afterEach(async () => {
  for (const shell of shells.splice(0)) await shell.kill(0)
  for (const manager of managers.splice(0)) await manager.dispose()
  await cleanup()
})

function sandbox(over: Partial<BashSandboxOptions> = {}) {
  const statuses: SandboxStatus[] = []
  const created = createBashSandbox({
    network: false,
    projectRoots: [ws],
    scratchRoots: [outputs],
    onStatus: (status) => statuses.push(status),
    ...over,
  })
  return { sandbox: created, statuses }
}

describe('a sandbox that cannot run', () => {
  it('bubblewrap missing: one notice with the install command, the same answer every time', async () => {
    const { sandbox: s, statuses } = sandbox({
      platform: 'linux',
      env: { AGENT_TUI_BWRAP: '/nonexistent/bwrap' },
    })
    const first = await s.status()
    expect(first.kind).toBe('unavailable')
    expect(first.kind === 'unavailable' && first.notice).toContain('sudo apt-get install bubblewrap')
    expect(await s.status()).toBe(first)
    expect(s.current()).toBe(first)
    expect(statuses).toEqual([first])
  })

  it('an architecture without a seccomp filter: unavailable, not a sandbox that lets Unix sockets through', async () => {
    const { sandbox: s } = sandbox({
      platform: 'linux',
      arch: 'riscv64',
      env: { AGENT_TUI_BWRAP: '/bin/sh' },
    })
    const status = await s.status()
    expect(status.kind).toBe('unavailable')
    expect(status.kind === 'unavailable' && status.notice).toContain(
      'agent-tui has no seccomp filter for riscv64 (only x64 and arm64)',
    )
    expect(status.kind === 'unavailable' && status.notice).toContain('every Bash command asks before it runs')
  })

  it('a program that cannot start the sandbox (here /bin/false): unavailable, with what it said', async () => {
    const { sandbox: s } = sandbox({ platform: 'linux', env: { AGENT_TUI_BWRAP: '/bin/false' } })
    const status = await s.status()
    expect(status).toEqual({
      kind: 'unavailable',
      notice: expect.stringContaining('/bin/false could not start a sandbox (exit code 1)'),
    })
  })
})

/** Runs one command in the sandbox to its end; returns its output and exit. */
async function run(
  fence: CommandSandbox,
  command: string,
  cwd = ws,
): Promise<{ out: string; exit: ShellExit }> {
  const shell = startShell({ command, cwd, sandbox: fence })
  shells.push(shell)
  let out = ''
  shell.onOutput((chunk) => {
    out += chunk
  })
  const exit = await shell.exited
  if (exit === 'handed-over') throw new Error('unexpected hand-over')
  return { out, exit }
}

async function onSandbox(): Promise<CommandSandbox> {
  const status = await sandbox().sandbox.status()
  if (status.kind !== 'on') throw new Error(`the sandbox should work here: ${JSON.stringify(status)}`)
  return status.sandbox
}

function groupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
}

describe.runIf(osSandbox?.kind === 'bwrap')('commands in bubblewrap', () => {
  it('is on, and tells the policy what a command may write', async () => {
    const status = await sandbox().sandbox.status()
    expect(status).toMatchObject({ kind: 'on', network: false })
    expect(status.kind === 'on' && status.view.writableRoots).toEqual(expect.arrayContaining([ws, outputs]))
  })

  it('writes inside the workspace, not beside it, not into .git, and keeps a cd', async () => {
    const fence = await onSandbox()
    await mkdir(join(ws, '.git'))
    await mkdir(join(ws, 'sub'))
    const inside = await run(fence, 'touch inside.txt && cd sub && echo ok')
    expect(inside.out).toBe('ok\n')
    expect(inside.exit.exitCode).toBe(0)
    expect(inside.exit.cwd).toBe(join(ws, 'sub'))
    expect(existsSync(join(ws, 'inside.txt'))).toBe(true)

    const outside = await run(fence, 'touch ../outside.txt')
    expect(outside.out).toContain('Read-only file system')
    expect(outside.exit.exitCode).not.toBe(0)
    expect(existsSync(join(root, 'outside.txt'))).toBe(false)

    const git = await run(fence, 'echo "[core] fsmonitor = evil" >> .git/config')
    expect(git.out).toContain('Read-only file system')
    expect(existsSync(join(ws, '.git', 'config'))).toBe(false)

    // Not even as root (CI runs as root): the sandbox keeps no capability to remount it writable.
    const remount = await run(
      fence,
      'mount -o remount,rw .git 2>/dev/null; umount .git 2>/dev/null; touch .git/x',
    )
    expect(remount.out).toContain('Read-only file system')
    expect(existsSync(join(ws, '.git', 'x'))).toBe(false)
  })

  it('has a private /tmp and the outputs dir writable', async () => {
    const fence = await onSandbox()
    const r = await run(
      fence,
      `echo private > /tmp/agent-tui-probe && cat /tmp/agent-tui-probe && echo kept > ${outputs}/x`,
    )
    expect(r.out).toBe('private\n')
    expect(existsSync('/tmp/agent-tui-probe')).toBe(false)
    expect(await readFile(join(outputs, 'x'), 'utf8')).toBe('kept\n')
  })

  describe('network', () => {
    let server: Server
    let hits = 0
    beforeEach(async () => {
      hits = 0
      server = createServer((_req, res) => {
        hits++
        res.end('hello')
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    })
    afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())))

    it('is off: a loopback server on the host is out of reach', async () => {
      const port = (server.address() as AddressInfo).port
      const script = `require('http').get('http://127.0.0.1:${port}/', (r) => console.log('reached', r.statusCode)).on('error', (e) => { console.log('failed', e.code); process.exit(3) })`
      const r = await run(await onSandbox(), `"${process.execPath}" -e "${script.replace(/"/g, '\\"')}"`)
      expect(r.out).toMatch(/^failed E/)
      expect(r.exit.exitCode).toBe(3)
      expect(hits).toBe(0)
    })

    it('is on with network: true', async () => {
      const status = await sandbox({ network: true }).sandbox.status()
      if (status.kind !== 'on') throw new Error('expected the sandbox on')
      const port = (server.address() as AddressInfo).port
      const script = `require('http').get('http://127.0.0.1:${port}/', (r) => { console.log('reached', r.statusCode); process.exit(0) })`
      const r = await run(status.sandbox, `"${process.execPath}" -e "${script.replace(/"/g, '\\"')}"`)
      expect(r.out).toBe('reached 200\n')
      expect(hits).toBe(1)
    })
  })

  it('kills the whole sandboxed tree as one process group', async () => {
    const fence = await onSandbox()
    const shell = startShell({ command: '(sleep 4711 & wait) & sleep 4712; wait', cwd: ws, sandbox: fence })
    shells.push(shell)
    let pids: number[] = []
    await waitFor(() => {
      pids = [...hostPids('sleep', '4711'), ...hostPids('sleep', '4712')]
      return pids.length === 2
    }, 'both sleeps to start')
    // bubblewrap leads the group; everything inside it is in the group too.
    for (const pid of pids) expect(groupOf(pid)).toBe(shell.pid)
    await shell.kill()
    for (const pid of [...pids, shell.pid ?? 0]) await waitFor(() => isGone(pid), `pid ${pid} to be gone`)
  })

  it('reserves a missing .git and .agent-tui while commands run, and removes the placeholders after the last', async () => {
    const fence = await onSandbox()
    const hold = (name: string) => `while [ ! -f ${name} ]; do sleep 0.02; done`
    const first = startShell({ command: hold('go1'), cwd: ws, sandbox: fence })
    const second = startShell({ command: hold('go2'), cwd: ws, sandbox: fence })
    shells.push(first, second)
    await waitFor(() => existsSync(join(ws, '.git')), 'the .git placeholder')
    const created = await run(fence, 'git init -q . ; mkdir .agent-tui/x ; echo done')
    expect(created.out).toContain('Read-only file system')
    await writeFile(join(ws, 'go1'), '')
    await first.exited
    // Still in use by the second command.
    expect(existsSync(join(ws, '.git'))).toBe(true)
    await writeFile(join(ws, 'go2'), '')
    await second.exited
    expect(existsSync(join(ws, '.git'))).toBe(false)
    expect(existsSync(join(ws, '.agent-tui'))).toBe(false)
  })

  it('keeps configuration read-only at any depth (instruction files at the top), a missing .claude reserved', async () => {
    const fence = await onSandbox()
    await mkdir(join(ws, 'sub', '.agent-tui'), { recursive: true })
    await writeFile(join(ws, 'sub', '.agent-tui', 'settings.json'), '{}\n')
    await writeFile(join(ws, 'sub', '.mcp.json'), '{}\n')
    await mkdir(join(ws, 'lib', 'vendored', '.git'), { recursive: true })
    await writeFile(join(ws, 'lib', 'vendored', '.git', 'config'), '[core]\n')
    await writeFile(join(ws, 'AGENTS.md'), 'be nice\n')
    const r = await run(
      fence,
      [
        'echo \'{"hooks":{}}\' > sub/.agent-tui/settings.json',
        'echo \'{"mcpServers":{"x":{"command":"evil"}}}\' > sub/.mcp.json',
        'echo "[core] fsmonitor = evil" >> lib/vendored/.git/config',
        'echo ignore-all-rules >> AGENTS.md',
        'mkdir -p .claude/commands',
        'echo done',
      ].join('; '),
    )
    expect(r.out).toContain('done')
    expect(r.out.match(/Read-only file system/g)?.length).toBe(5)
    expect(await readFile(join(ws, 'sub', '.agent-tui', 'settings.json'), 'utf8')).toBe('{}\n')
    expect(await readFile(join(ws, 'sub', '.mcp.json'), 'utf8')).toBe('{}\n')
    expect(await readFile(join(ws, 'lib', 'vendored', '.git', 'config'), 'utf8')).toBe('[core]\n')
    expect(await readFile(join(ws, 'AGENTS.md'), 'utf8')).toBe('be nice\n')
    expect(existsSync(join(ws, '.claude'))).toBe(false)
  })

  it('sandboxes background jobs too', async () => {
    const fence = await onSandbox()
    const manager = createTaskManager({ outputsDir: outputs })
    managers.push(manager)
    const task = manager.launch({
      command: 'touch ../bg-outside.txt; echo done > bg-inside.txt',
      cwd: ws,
      sandbox: fence,
    })
    const read = await manager.read(task.id, { block: true, timeoutMs: 20_000 })
    expect(read.status).toBe('completed')
    expect(read.output).toContain('Read-only file system')
    expect(await readFile(join(ws, 'bg-inside.txt'), 'utf8')).toBe('done\n')
    expect(existsSync(join(root, 'bg-outside.txt'))).toBe(false)
  })
})
