/**
 * Process ownership end to end: whatever way agent-tui ends (a signal, Ctrl+C, a crash), no process a
 * command started outlives it, and a kill -9 leaves nothing the next start does not reap.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { keys, pollUntil, startTui, type TuiSession } from '../support/pty-terminal.ts'
import { type CliResult, runCli } from '../support/run-cli.ts'
import { setupE2eEnv } from '../support/e2e-env.ts'
import { isGone, waitFor } from '../unit/tasks/helpers.ts'

const env = setupE2eEnv()
let tui: TuiSession | undefined
/** Every pid a test learnt of; killed afterwards whatever happened, so a failure leaves nothing behind. */
const seen: number[] = []

afterEach(async () => {
  await tui?.kill()
  tui = undefined
  for (const pid of seen.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
})

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })

/**
 * A foreground command with a tree: a subshell with a `sleep` child, a `sleep` detached from the output,
 * and the shell waiting on both. Each process writes its pid to a file in the workspace.
 */
const TREE =
  '(sleep 300 & echo $! > grandchild.pid; wait) & echo $! > subshell.pid; ' +
  'sleep 301 > /dev/null 2>&1 & echo $! > detached.pid; echo $$ > leader.pid; wait'
const TREE_FILES = ['leader.pid', 'subshell.pid', 'grandchild.pid', 'detached.pid']

/** Waits until each file holds a pid (written by the command) and returns them. */
async function pidsIn(files: string[]): Promise<number[]> {
  const pids: number[] = []
  for (const file of files) {
    let pid = 0
    await waitFor(async () => {
      const text = await readFile(join(env.box.workspace, file), 'utf8').catch(() => '')
      pid = Number(text.trim())
      return text.endsWith('\n') && Number.isInteger(pid) && pid > 0
    }, `a pid in ${file}`)
    seen.push(pid)
    pids.push(pid)
  }
  return pids
}

async function allGone(pids: number[], what: string): Promise<void> {
  for (const pid of pids) await waitFor(() => isGone(pid), `${what}: pid ${pid} to be gone`)
}

/** Starts headless agent-tui on `prompt` and returns its pid and its result. */
function startHeadless(args: string[]): { pid: Promise<number>; result: Promise<CliResult> } {
  let resolvePid: (pid: number) => void = () => {}
  const pid = new Promise<number>((resolve) => {
    resolvePid = resolve
  })
  const result = runCli(['--base-url', env.server.baseUrl, '--model', 'm', ...args], {
    cwd: env.box.workspace,
    env: env.box.env,
    timeoutMs: 40_000,
    onSpawn: resolvePid,
  })
  return { pid, result }
}

const pidRegistry = () => join(env.box.home, '.local', 'state', 'agent-tui', 'pids.json')

describe('headless: a signal while a foreground command runs', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s kills the whole tree of the command and exits %i', async (signal, code) => {
    env.server.enqueue(call('Bash', { command: TREE }), { text: 'never reached' })
    const cli = startHeadless(['-p', 'run it', '--mode', 'dangerous'])
    const pids = await pidsIn(TREE_FILES)
    process.kill(await cli.pid, signal)
    const result = await cli.result
    expect(result.code, result.stderr).toBe(code)
    await allGone(pids, `after ${signal}`)
  })
})

describe('a kill -9 leaves the foreground command to the next start', () => {
  it('records the command in pids.json, and the next start reaps its tree and says so', async () => {
    env.server.enqueue(call('Bash', { command: TREE }), { text: 'never reached' })
    const cli = startHeadless(['-p', 'run it', '--mode', 'dangerous'])
    const pids = await pidsIn(TREE_FILES)
    const [leader] = pids
    const registry = JSON.parse(await readFile(pidRegistry(), 'utf8')) as { entries: unknown[] }
    expect(registry.entries).toMatchObject([{ pid: leader, pgid: leader, kind: 'foreground', command: TREE }])
    process.kill(await cli.pid, 'SIGKILL')
    expect((await cli.result).signal).toBe('SIGKILL')
    // Nothing ran the clean-up: the tree is still there, orphaned.
    expect(pids.filter(isGone)).toEqual([])

    env.server.enqueue({ text: 'hello again' })
    const next = await env.cli(['-p', 'hi'])
    expect(next.code, next.stderr).toBe(0)
    expect(next.stderr).toContain(`stopped an orphaned command from a crashed run: pid ${leader} (${TREE})`)
    await allGone(pids, 'after the next start')
    expect(JSON.parse(await readFile(pidRegistry(), 'utf8')).entries).toEqual([])
  })
})

describe('the TUI', () => {
  function launchTui(): TuiSession {
    tui = startTui({
      args: ['--base-url', env.server.baseUrl, '--model', 'test-model', '--mode', 'dangerous'],
      cwd: env.box.workspace,
      env: env.box.env,
    })
    return tui
  }

  // SIGINT comes from outside here (kill -INT): in raw mode Ctrl+C is a key.
  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
    ['SIGINT', 130],
  ] as const)(
    '%s while a foreground command runs kills its whole tree, restores the terminal and exits %i',
    async (signal, code) => {
      env.server.enqueue(call('Bash', { command: TREE }), { text: 'never reached' })
      const t = launchTui()
      await t.waitFor('❯  Message')
      await t.submit('run it')
      const pids = await pidsIn(TREE_FILES)
      process.kill(t.pid, signal)
      expect((await t.exited).exitCode).toBe(code)
      await t.settle()
      expect(t.term.buffer.active.type).toBe('normal')
      await allGone(pids, `after ${signal}`)
    },
  )

  it('Ctrl+C twice leaves nothing of a finished command that started a detached process', async () => {
    env.server.enqueue(
      call('Bash', { command: 'sleep 300 > /dev/null 2>&1 & echo $! > detached.pid; echo started' }),
      { text: 'The server is up.' },
    )
    const t = launchTui()
    await t.waitFor('❯  Message')
    await t.submit('start it')
    const [detached = 0] = await pidsIn(['detached.pid'])
    await t.waitFor('The server is up.')
    await pollUntil(
      () => !/responding|running tools|thinking/.test(t.lines()[0] ?? ''),
      () => `the turn never ended; screen:\n${t.screen()}`,
    )
    t.write(keys.ctrlC)
    await t.waitFor(/again to exit/)
    t.write(keys.ctrlC)
    expect((await t.exited).exitCode).toBe(0)
    await allGone([detached], 'after Ctrl+C twice')
  })
})
