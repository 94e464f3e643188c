import { describe, expect, it } from 'vitest'
import { StdioServerTransport } from '../../../source/mcp/stdio-transport.js'
import { groupMembers, isProcessAlive, pollUntil } from '../../../source/tasks/process-group.js'

/** A stand-in server: answers each line with {"echo": line}, says hello on stderr, prints one stray line, starts a `sleep` child. */
const SERVER = `
const { spawn } = require('node:child_process')
const child = spawn('sleep', ['600'], { stdio: 'ignore' })
process.stderr.write('server starting\\n')
process.stdout.write('not json at all\\n')
process.stdout.write(JSON.stringify({ child: child.pid }) + '\\n')
let buf = ''
process.stdin.on('data', (d) => {
  buf += d
  let nl
  while ((nl = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, nl)
    buf = buf.slice(nl + 1)
    const msg = JSON.parse(line)
    if (msg.exit) { process.stderr.write('bye\\n'); process.exit(msg.exit) }
    process.stdout.write(JSON.stringify({ echo: msg }) + '\\n')
  }
})
`

function start(extra: { onGone?: (pid: number) => void } = {}) {
  const messages: unknown[] = []
  const errors: string[] = []
  const spawned: number[] = []
  const transport = new StdioServerTransport<Record<string, unknown>>({
    command: process.execPath,
    args: ['-e', SERVER],
    env: { PATH: process.env.PATH ?? '' },
    cwd: process.cwd(),
    deserialize: (line) => JSON.parse(line),
    onSpawn: (pid) => spawned.push(pid),
    graceMs: 300,
    ...extra,
  })
  transport.onmessage = (m) => messages.push(m)
  transport.onerror = (e) => errors.push(e.message)
  return { transport, messages, errors, spawned }
}

const until = (check: () => boolean) => pollUntil(check, { timeoutMs: 10_000, intervalMs: 10 })

describe('StdioServerTransport', () => {
  it('reads line-delimited messages, reports stray lines, and close() ends the whole process group', async () => {
    const { transport, messages, errors, spawned } = start()
    await transport.start()
    await transport.send({ id: 1 })
    expect(await until(() => messages.length >= 2)).toBe(true)
    const child = (messages[0] as { child: number }).child
    expect(messages[1]).toEqual({ echo: { id: 1 } })
    expect(errors[0]).toMatch(/^not a JSON-RPC message on stdout: not json at all/)
    expect(spawned).toEqual([transport.pid])
    expect(isProcessAlive(child)).toBe(true)
    await transport.close()
    expect(isProcessAlive(child)).toBe(false)
    expect(groupMembers(spawned[0] ?? 0)).toEqual([])
  })

  it('a server that exits is described with its code and the tail of its stderr; its children go too', async () => {
    const gone: number[] = []
    const { transport, messages } = start({ onGone: (pid) => gone.push(pid) })
    let closed = false
    await transport.start()
    transport.onclose = () => {
      closed = true
    }
    expect(await until(() => messages.length >= 1)).toBe(true)
    const child = (messages[0] as { child: number }).child
    await transport.send({ exit: 4 })
    expect(await until(() => closed)).toBe(true)
    expect(transport.exitDescription()).toBe('exited with code 4')
    expect(transport.stderr()).toBe('server starting\nbye')
    expect(gone).toEqual([transport.pid])
    expect(await until(() => !isProcessAlive(child))).toBe(true)
    await expect(transport.send({ id: 2 })).rejects.toThrow('the server process is not running')
  })

  it('killSync sends SIGKILL to the group at once (exit paths)', async () => {
    const { transport, messages } = start()
    await transport.start()
    expect(await until(() => messages.length >= 1)).toBe(true)
    const child = (messages[0] as { child: number }).child
    transport.killSync()
    expect(await until(() => !isProcessAlive(child) && !isProcessAlive(transport.pid ?? 0))).toBe(true)
  })

  it('a command that does not exist fails to start with a clear message', async () => {
    const transport = new StdioServerTransport({
      command: 'no-such-command-for-agent-tui',
      args: [],
      env: { PATH: process.env.PATH ?? '' },
      cwd: process.cwd(),
      deserialize: (line) => JSON.parse(line),
    })
    await expect(transport.start()).rejects.toThrow(
      'cannot start the server: command not found: no-such-command-for-agent-tui',
    )
  })
})
