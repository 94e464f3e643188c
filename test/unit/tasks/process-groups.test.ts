import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createPidRegistry } from '../../../source/tasks/pid-registry.js'
import { createProcessGroups } from '../../../source/tasks/process-groups.js'
import { isGone, killGroupQuietly, makeTempDir, readPidFile, waitFor } from './helpers.js'

let dir: string
let cleanup: () => Promise<void>
const groups: number[] = []

beforeEach(async () => {
  ;({ dir, cleanup } = await makeTempDir())
})
afterEach(async () => {
  for (const pgid of groups.splice(0)) killGroupQuietly(pgid)
  await cleanup()
})

/** A detached `bash` whose child `sleep` writes its pid to a file: a group of two live processes. */
async function startGroup(name: string): Promise<{ leader: number; child: number }> {
  const file = join(dir, `${name}.pid`)
  const leader = spawn('bash', ['-c', `sleep 300 & echo $! > ${file}; wait`], {
    detached: true,
    stdio: 'ignore',
  })
  leader.unref()
  if (leader.pid === undefined) throw new Error('bash did not start')
  groups.push(leader.pid)
  return { leader: leader.pid, child: await readPidFile(file) }
}

describe('createProcessGroups', () => {
  it('records a tracked group in the registry until it is released', () => {
    const registry = createPidRegistry(join(dir, 'pids.json'))
    const owner = createProcessGroups({ registry })
    const release = owner.track({ pid: process.pid, command: 'make test', cwd: dir, kind: 'foreground' })
    expect(owner.pids()).toEqual([process.pid])
    expect(registry.list()).toMatchObject([
      { pid: process.pid, pgid: process.pid, command: 'make test', cwd: dir, kind: 'foreground' },
    ])
    release()
    release()
    expect(owner.pids()).toEqual([])
    expect(registry.list()).toEqual([])
  })

  it('hands a pid over: the earlier holder releasing it no longer untracks it', () => {
    const registry = createPidRegistry(join(dir, 'pids.json'))
    const owner = createProcessGroups({ registry })
    const foreground = owner.track({ pid: process.pid, command: 'npm run dev', kind: 'foreground' })
    const background = owner.track({ pid: process.pid, command: 'npm run dev', kind: 'background' })
    foreground()
    expect(owner.pids()).toEqual([process.pid])
    expect(registry.list()).toMatchObject([{ pid: process.pid, kind: 'background' }])
    background()
    expect(registry.list()).toEqual([])
  })

  it('killAllSync kills every tracked group, children included, and empties the registry', async () => {
    const registry = createPidRegistry(join(dir, 'pids.json'))
    const owner = createProcessGroups({ registry })
    const a = await startGroup('a')
    const b = await startGroup('b')
    owner.track({ pid: a.leader, command: 'a', kind: 'foreground' })
    owner.track({ pid: b.leader, command: 'b', kind: 'background' })
    owner.killAllSync()
    expect(owner.pids()).toEqual([])
    expect(registry.list()).toEqual([])
    for (const pid of [a.leader, a.child, b.leader, b.child]) {
      await waitFor(() => isGone(pid), `pid ${pid} to be killed`)
    }
    // Nothing left to kill: a second call is harmless.
    owner.killAllSync()
  })

  it.runIf(process.platform === 'linux')(
    'killAllSync leaves alone a pid that another process holds now (its start time is not the recorded one)',
    async () => {
      const owner = createProcessGroups({ registry: createPidRegistry(join(dir, 'pids.json')) })
      const mine = await startGroup('mine')
      const reused = await startGroup('reused')
      owner.track({ pid: mine.leader, command: 'mine', kind: 'background' })
      // As if the tracked job had died and an unrelated group had got its pid since.
      owner.track({ pid: reused.leader, command: 'gone long ago', kind: 'background', leaderStart: '1' })
      owner.killAllSync()
      await waitFor(() => isGone(mine.leader), 'the tracked group to be killed')
      expect(isGone(reused.leader)).toBe(false)
      expect(isGone(reused.child)).toBe(false)
    },
  )

  it('never signals its own process when it is tracked (a hand-over gone wrong)', () => {
    const owner = createProcessGroups()
    owner.track({ pid: process.pid, command: 'agent-tui', kind: 'foreground' })
    const sent: number[] = []
    // Swallows real signals, so that a regression fails here instead of killing the test runner.
    const spy = vi.spyOn(process, 'kill').mockImplementation((pid, signal) => {
      if (signal !== 0) sent.push(pid)
      return true
    })
    try {
      owner.killAllSync()
    } finally {
      spy.mockRestore()
    }
    expect(sent).toEqual([])
    expect(owner.pids()).toEqual([])
  })
})
