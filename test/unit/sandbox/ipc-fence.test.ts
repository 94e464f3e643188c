/**
 * The fence holds for IPC, not only TCP (issue #30, class 2), with real bubblewrap and real host
 * servers: a Unix socket under $HOME, one bound inside the workspace before the command, and an
 * abstract one answer outside the sandbox and not inside, with the network off or on; the host's IPC
 * variables are gone; what ordinary commands need (pipes, socketpairs, child processes, loopback TCP
 * inside) still works.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, realpath, writeFile } from 'node:fs/promises'
import { connect, createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type BashSandboxOptions, createBashSandbox } from '../../../source/sandbox/bash-sandbox.js'
import { HOST_IPC_ENV } from '../../../source/sandbox/host-ipc-env.js'
import { createTaskManager } from '../../../source/tasks/task-manager.js'
import { type ShellProcess, startShell } from '../../../source/tools/shell-process.js'
import { osSandbox } from '../../support/os-sandbox.ts'
import { makeTempDir } from '../tasks/helpers.js'

const hasPython = spawnSync('python3', ['-c', 'pass']).status === 0

let root: string
let home: string
let ws: string
let outputs: string
let cleanup: () => Promise<void>
const servers: Server[] = []
const shells: ShellProcess[] = []
let hits: string[]

beforeEach(async () => {
  const temp = await makeTempDir()
  root = await realpath(temp.dir)
  cleanup = temp.cleanup
  home = join(root, 'home')
  ws = join(root, 'ws')
  outputs = join(root, 'home', '.local', 'state', 'agent-tui', 'outputs', 's1')
  await mkdir(home, { recursive: true })
  await mkdir(ws)
  hits = []
})

afterEach(async () => {
  for (const shell of shells.splice(0)) await shell.kill(0)
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
  await cleanup()
})

/** A host server at `address` (a path, or `\0name` for an abstract one) that answers and records each client. */
async function serve(address: string, name: string): Promise<void> {
  const server = createServer((socket) => {
    hits.push(name)
    socket.end(`${name}-ANSWER\n`)
  })
  servers.push(server)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(address, resolve)
  })
}

/** What a client outside any sandbox gets from `address`. */
function askFromHost(address: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = ''
    const socket = connect(address)
    socket.on('data', (chunk) => {
      got += chunk
    })
    socket.on('end', () => resolve(got))
    socket.on('error', reject)
  })
}

async function sandboxed(over: Partial<BashSandboxOptions> = {}) {
  const status = await createBashSandbox({
    network: false,
    projectRoots: [ws],
    scratchRoots: [outputs],
    env: { ...process.env, HOME: home },
    ...over,
  }).status()
  if (status.kind !== 'on') throw new Error(`the sandbox should work here: ${JSON.stringify(status)}`)
  return status.sandbox
}

async function run(
  over: Partial<BashSandboxOptions>,
  command: string,
  env?: NodeJS.ProcessEnv,
): Promise<{ out: string; code: number | null }> {
  const shell = startShell({ command, cwd: ws, sandbox: await sandboxed(over), ...(env ? { env } : {}) })
  shells.push(shell)
  let out = ''
  shell.onOutput((chunk) => {
    out += chunk
  })
  const exit = await shell.exited
  if (exit === 'handed-over') throw new Error('unexpected hand-over')
  return { out, code: exit.exitCode }
}

// A Node client inside: one line per address, what it got or the error code.
const NODE_PROBE = `const net = require('net')
const next = (i) => {
  const address = process.argv[2 + i]
  if (address === undefined) return
  const name = address.startsWith('@') ? '\\0' + address.slice(1) : address
  let got = ''
  const socket = net.connect(name)
  socket.on('data', (d) => { got += d })
  socket.on('end', () => { console.log(address, 'reached', got.trim()); next(i + 1) })
  socket.on('error', (e) => { console.log(address, e.code); next(i + 1) })
}
next(0)
`

describe.runIf(osSandbox?.kind === 'bwrap')('Unix sockets from inside bubblewrap', () => {
  it.each([false, true])(
    'network %s: a socket under $HOME, one bound in the workspace before the command and an abstract one answer outside, not inside',
    async (network) => {
      const abstract = `agent-tui-test-${randomBytes(6).toString('hex')}`
      await serve(join(home, 'agent.sock'), 'HOME')
      await serve(join(ws, 'planted.sock'), 'WORKSPACE')
      await serve(`\0${abstract}`, 'ABSTRACT')
      // Each answers a client on the host.
      expect(await askFromHost(join(home, 'agent.sock'))).toBe('HOME-ANSWER\n')
      expect(await askFromHost(join(ws, 'planted.sock'))).toBe('WORKSPACE-ANSWER\n')
      expect(await askFromHost(`\0${abstract}`)).toBe('ABSTRACT-ANSWER\n')
      hits = []
      await writeFile(join(ws, 'probe.cjs'), NODE_PROBE)
      const r = await run(
        { network },
        `"${process.execPath}" probe.cjs ${join(home, 'agent.sock')} planted.sock @${abstract}`,
      )
      expect(r.out.split('\n').filter(Boolean)).toEqual([
        `${join(home, 'agent.sock')} EPERM`,
        'planted.sock EPERM',
        `@${abstract} EPERM`,
      ])
      expect(hits).toEqual([])
    },
  )

  it('a background job gets the same filter', async () => {
    await serve(join(home, 'agent.sock'), 'HOME')
    await writeFile(join(ws, 'probe.cjs'), NODE_PROBE)
    const manager = createTaskManager({ outputsDir: outputs })
    try {
      const task = manager.launch({
        command: `"${process.execPath}" probe.cjs ${join(home, 'agent.sock')}`,
        cwd: ws,
        sandbox: await sandboxed(),
      })
      const read = await manager.read(task.id, { block: true, timeoutMs: 20_000 })
      expect(read.output).toBe(`${join(home, 'agent.sock')} EPERM\n`)
      expect(hits).toEqual([])
    } finally {
      await manager.dispose()
    }
  })

  it.runIf(hasPython)(
    'python3: socket(AF_UNIX) is refused, a datagram socketpair too, io_uring and the session keyring',
    async () => {
      await serve(join(home, 'agent.sock'), 'HOME')
      const script = `
import ctypes, errno, platform, socket
def attempt(name, fn):
    try:
        fn()
        print(name, 'ok')
    except OSError as e:
        print(name, errno.errorcode[e.errno])
attempt('unix', lambda: socket.socket(socket.AF_UNIX).connect(${JSON.stringify(join(home, 'agent.sock'))}))
attempt('dgram-pair', lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))
a, b = socket.socketpair()
b.close()
# A stream pair cannot be pointed elsewhere.
attempt('pair-connect', lambda: a.connect(${JSON.stringify(join(home, 'agent.sock'))}))
attempt('seqpacket-pair', lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET))
attempt('inet', lambda: socket.socket(socket.AF_INET).close())
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
print('io_uring_setup', errno.errorcode.get(ctypes.get_errno()) if libc.syscall(425, 4, params) < 0 else 'ok')
# keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0): the session keyring agent-tui was started in.
keyctl = 250 if platform.machine() == 'x86_64' else 219
print('keyctl', errno.errorcode.get(ctypes.get_errno()) if libc.syscall(keyctl, 0, -3, 0) < 0 else 'ok')
`
      await writeFile(join(ws, 'probe.py'), script)
      const r = await run({}, 'python3 probe.py')
      expect(r.out.split('\n').filter(Boolean)).toEqual([
        'unix EPERM',
        'dgram-pair EPERM',
        'pair-connect EISCONN',
        'seqpacket-pair ok',
        'inet ok',
        'io_uring_setup EPERM',
        'keyctl EPERM',
      ])
      expect(hits).toEqual([])
    },
  )

  it.runIf(hasPython)('a System V shared memory segment of the host is out of reach', async () => {
    const key = 0x5a000000 + Math.floor(Math.random() * 0xffff)
    const shm = (call: string) =>
      `import ctypes, errno\nlibc = ctypes.CDLL(None, use_errno=True)\nr = ${call}\nprint(r if r >= 0 else errno.errorcode[ctypes.get_errno()])`
    const made = spawnSync('python3', ['-c', shm(`libc.shmget(${key}, 4096, 0o1600)`)], { encoding: 'utf8' })
    const id = Number(made.stdout.trim())
    expect(Number.isInteger(id)).toBe(true)
    try {
      expect(
        spawnSync('python3', ['-c', shm(`libc.shmget(${key}, 0, 0)`)], { encoding: 'utf8' }).stdout,
      ).toBe(`${id}\n`)
      await writeFile(join(ws, 'shm.py'), shm(`libc.shmget(${key}, 0, 0)`))
      expect((await run({}, 'python3 shm.py')).out).toBe('ENOENT\n')
    } finally {
      spawnSync('python3', ['-c', shm(`libc.shmctl(${id}, 0, None)`)])
    }
  })

  it('drops the host IPC variables and keeps the rest of the environment', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, AGENT_TUI_KEPT: 'kept' }
    for (const name of HOST_IPC_ENV) env[name] = `/host/${name}`
    const r = await run({}, 'env')
    const inside = await run({}, 'env', env)
    expect(inside.out).toContain('AGENT_TUI_KEPT=kept')
    for (const name of HOST_IPC_ENV) expect(inside.out).not.toContain(`${name}=`)
    expect(r.code).toBe(0)
  })

  it('the runtime dir and the host’s processes are out of sight', async () => {
    const r = await run({}, `ls -A /proc/${process.pid} 2>&1; echo "[$(ls -A /dev/shm)]"`)
    expect(r.out).toContain('No such file or directory')
    expect(r.out).toContain('[]')
  })

  it('ordinary commands still work: pipelines, node with child processes and IPC, loopback TCP inside, git', async () => {
    const child = `const cp = require('child_process')
console.log(cp.execSync('echo from-exec').toString().trim())
// fork's IPC channel is a socketpair.
const c = cp.fork('./forked.cjs')
c.on('message', (m) => {
  console.log(m)
  const net = require('net')
  const s = net.createServer((x) => x.end('tcp')).listen(0, '127.0.0.1', () => {
    net.connect(s.address().port, '127.0.0.1').on('data', (d) => { console.log('loopback', String(d)); process.exit(0) })
  })
})
`
    await writeFile(join(ws, 'child.cjs'), child)
    await writeFile(join(ws, 'forked.cjs'), 'process.send("from-fork")\n')
    spawnSync('git', ['init', '-q'], { cwd: ws })
    const r = await run(
      {},
      `echo a b c | tr a-z A-Z | wc -w; "${process.execPath}" child.cjs; git status --short | head -1; npm --version >/dev/null && echo npm-ok`,
    )
    expect(r.out).toBe('3\nfrom-exec\nfrom-fork\nloopback tcp\n?? child.cjs\nnpm-ok\n')
    expect(r.code).toBe(0)
  })
})

describe('the runtime dir is private too', () => {
  it.runIf(osSandbox?.kind === 'bwrap')('XDG_RUNTIME_DIR is an empty private dir inside', async () => {
    const runtime = join(root, 'runtime')
    await mkdir(runtime)
    await serve(join(runtime, 'bus'), 'BUS')
    await writeFile(join(runtime, 'auth.json'), 'REGISTRY-TOKEN')
    const r = await run(
      { env: { ...process.env, HOME: home, XDG_RUNTIME_DIR: runtime } },
      `ls -A ${runtime}; echo made > ${runtime}/own && cat ${runtime}/own`,
    )
    expect(r.out).toBe('made\n')
  })
})
