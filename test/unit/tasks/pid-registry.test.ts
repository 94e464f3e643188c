import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createPidRegistry, type PidEntry } from '../../../source/tasks/pid-registry.js'
import { isGone, killGroupQuietly, makeTempDir, readPidFile, waitFor } from './helpers.js'

let dir: string
let cleanup: () => Promise<void>
let file: string
let groups: ChildProcess[]

beforeEach(async () => {
  ;({ dir, cleanup } = await makeTempDir())
  file = join(dir, 'state', 'jobs.json')
  await mkdir(join(dir, 'state'))
  groups = []
})

afterEach(async () => {
  for (const child of groups) killGroupQuietly(child.pid)
  await cleanup()
})

/** A pid that surely belongs to no process: one that has just exited. */
async function deadPid(): Promise<number> {
  const child = spawn('true')
  await once(child, 'exit')
  return child.pid!
}

/** Starts `script` in its own process group, as a job of a crashed agent-tui would have been. */
function startGroup(script: string): ChildProcess {
  const child = spawn('bash', ['-c', script], { cwd: dir, detached: true, stdio: 'ignore' })
  groups.push(child)
  return child
}

const writeEntries = (entries: unknown[]) => writeFile(file, JSON.stringify({ version: 1, entries }))

describe('createPidRegistry', () => {
  it('reads a missing or corrupt file as empty and recovers on the next write', async () => {
    const registry = createPidRegistry(file)
    expect(registry.list()).toEqual([])
    registry.add({ pid: 4242, command: 'first' })
    await writeFile(file, '{ not json')
    expect(registry.list()).toEqual([])
    registry.add({ pid: 4343, command: 'second', startedAt: 1 })
    expect(registry.list()).toMatchObject([{ pid: 4343, pgid: 4343, command: 'second', startedAt: 1 }])
  })

  it('keeps well-formed entries next to damaged ones', async () => {
    await writeEntries([{ pid: 'x' }, { pid: 7, pgid: 7, command: 'ok', startedAt: 1, ownerPid: 9 }])
    expect(createPidRegistry(file).list()).toEqual([
      { pid: 7, pgid: 7, command: 'ok', startedAt: 1, ownerPid: 9 },
    ])
  })

  it('adds and removes entries atomically, leaving no temp files', async () => {
    const registry = createPidRegistry(file)
    registry.add({ pid: 10, command: 'a', cwd: '/work' })
    registry.add({ pid: 11, command: 'b' })
    registry.add({ pid: 10, command: 'a again' })
    expect(registry.list().map((e) => [e.pid, e.command, e.ownerPid])).toEqual([
      [11, 'b', process.pid],
      [10, 'a again', process.pid],
    ])
    registry.remove(11)
    expect(registry.list().map((e) => e.pid)).toEqual([10])
    expect(await readdir(join(dir, 'state'))).toEqual(['jobs.json'])
  })

  it('never reads or writes through a link at its name, and a FIFO there does not stall it', async () => {
    const { symlink, lstat, readFile: read } = await import('node:fs/promises')
    const { execFileSync } = await import('node:child_process')
    const elsewhere = join(dir, 'bashrc')
    await writeFile(
      elsewhere,
      JSON.stringify({ version: 1, entries: [{ pid: 1, pgid: 1, command: 'x', startedAt: 1, ownerPid: 2 }] }),
    )
    await symlink(elsewhere, file)
    const registry = createPidRegistry(file)
    expect(registry.list()).toEqual([])
    registry.add({ pid: 4242, command: 'job' })
    expect((await lstat(file)).isFile()).toBe(true)
    expect(await read(elsewhere, 'utf8')).toContain('"command":"x"')
    expect(registry.list().map((e) => e.pid)).toEqual([4242])
    await rm(file)
    execFileSync('mkfifo', [file])
    expect(registry.list()).toEqual([])
    // Temp files have random names in the state dir: nothing planted can be guessed.
    expect((await readdir(join(dir, 'state'))).sort()).toEqual(['jobs.json'])
  })

  it('reports write failures through onError instead of throwing', async () => {
    await writeFile(join(dir, 'blocker'), '')
    const errors: Error[] = []
    const registry = createPidRegistry(join(dir, 'blocker', 'jobs.json'), { onError: (e) => errors.push(e) })
    registry.add({ pid: 1, command: 'x' })
    expect(errors).toHaveLength(1)
    expect(errors[0]?.message).toMatch(/could not update the background job registry .*blocker/)
  })
})

describe('reapOrphans', () => {
  it('kills the group of a job whose owner died, grandchildren included', async () => {
    const leader = startGroup('sleep 300 & echo $! > gpid; wait')
    const grandchild = await readPidFile(join(dir, 'gpid'))
    const registry = createPidRegistry(file)
    registry.add({ pid: leader.pid!, command: 'orphan job', cwd: dir, ownerPid: await deadPid() })

    const reaped = await registry.reapOrphans()
    expect(reaped).toEqual([{ pid: leader.pid, command: 'orphan job', cwd: dir, killed: true }])
    for (const pid of [leader.pid!, grandchild]) await waitFor(() => isGone(pid), `pid ${pid} to exit`)
    expect(registry.list()).toEqual([])
  })

  it('uses SIGKILL for an orphan that ignores SIGTERM', async () => {
    const leader = startGroup("trap '' TERM; echo $$ > ready; while :; do sleep 0.02; done")
    await readPidFile(join(dir, 'ready'))
    const registry = createPidRegistry(file)
    registry.add({ pid: leader.pid!, command: 'stubborn', ownerPid: await deadPid() })

    expect(await registry.reapOrphans({ graceMs: 100 })).toEqual([
      { pid: leader.pid, command: 'stubborn', killed: true },
    ])
    await waitFor(() => isGone(leader.pid!), 'the stubborn orphan to exit')
  })

  it('leaves the jobs of live owners alone', async () => {
    const leader = startGroup('sleep 300')
    const registry = createPidRegistry(file)
    registry.add({ pid: leader.pid!, command: 'mine' })
    registry.add({ pid: 9_999_991, pgid: 9_999_991, command: 'other instance', ownerPid: process.ppid })

    expect(await registry.reapOrphans()).toEqual([])
    expect(registry.list().map((e) => e.command)).toEqual(['mine', 'other instance'])
    expect(isGone(leader.pid!)).toBe(false)
  })

  it('drops entries whose group is already gone without reporting them', async () => {
    const registry = createPidRegistry(file)
    const gone = await deadPid()
    registry.add({ pid: gone, command: 'finished long ago', ownerPid: await deadPid() })
    expect(await registry.reapOrphans()).toEqual([])
    expect(registry.list()).toEqual([])
  })

  it('never kills a process that merely reused a recorded pid', async () => {
    const unrelated = startGroup('sleep 300')
    const stale: PidEntry = {
      pid: unrelated.pid!,
      pgid: unrelated.pid!,
      command: 'old job',
      startedAt: 1,
      ownerPid: await deadPid(),
      leaderStart: '1',
    }
    await writeEntries([stale])
    const registry = createPidRegistry(file)

    expect(await registry.reapOrphans()).toEqual([])
    expect(isGone(unrelated.pid!)).toBe(false)
    expect(registry.list()).toEqual([])
  })

  it('ignores entries written before a reboot', async () => {
    const unrelated = startGroup('sleep 300')
    const stale: PidEntry = {
      pid: unrelated.pid!,
      pgid: unrelated.pid!,
      command: 'before reboot',
      startedAt: 1,
      ownerPid: await deadPid(),
      bootId: 'another-boot',
    }
    await writeEntries([stale])
    expect(await createPidRegistry(file).reapOrphans()).toEqual([])
    expect(isGone(unrelated.pid!)).toBe(false)
  })
})

describe.runIf(process.platform === 'linux')('reapOrphans with a hostile or stale registry file', () => {
  const ownPgrp = (): number => {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
  }

  /**
   * Records every signal the reaper sends. A signal to a group that is not the test's own child is
   * swallowed here, so that a regression fails this test instead of signalling init or the test runner.
   */
  function watchKills(allowed: () => number[]) {
    const sent: Array<[number, string | number | undefined]> = []
    const real = process.kill.bind(process)
    const spy = vi.spyOn(process, 'kill').mockImplementation((pid, signal) => {
      if (signal !== 0 && signal !== undefined) sent.push([pid, signal])
      if (signal === 0 || allowed().includes(-pid)) return real(pid, signal)
      return true
    })
    return { sent, restore: () => spy.mockRestore() }
  }

  it('never signals init, itself, its own group, or a group not led by the recorded pid', async () => {
    const bystander = startGroup('sleep 300')
    const other = startGroup('sleep 300')
    const owner = await deadPid()
    // The leader of the test runner's group may be gone (its group lives on): any start time will do.
    const start = (pid: number) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
        return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
      } catch {
        return '1'
      }
    }
    const entry = (pid: number, pgid: number, command: string, leaderStart?: string) => ({
      pid,
      pgid,
      command,
      startedAt: 1,
      ownerPid: owner,
      ...(leaderStart !== undefined && { leaderStart }),
    })
    await writeEntries([
      entry(1, 1, 'init', start(1)),
      entry(process.pid, process.pid, 'agent-tui itself', start(process.pid)),
      entry(ownPgrp(), ownPgrp(), 'its own group', start(ownPgrp())),
      entry(other.pid!, bystander.pid!, 'a group not led by its pid', start(other.pid!)),
      entry(bystander.pid!, bystander.pid!, 'no start time recorded'),
    ])
    const kills = watchKills(() => [])
    try {
      const reaped = await createPidRegistry(file).reapOrphans({ graceMs: 50, killWaitMs: 50 })
      expect(kills.sent).toEqual([])
      expect(reaped.map((r) => [r.command, r.killed, r.refused])).toEqual([
        ['init', false, expect.stringMatching(/group 1 is init/)],
        ['agent-tui itself', false, expect.stringMatching(/agent-tui itself/)],
        ['its own group', false, expect.stringMatching(/agent-tui's own group|agent-tui itself/)],
        ['a group not led by its pid', false, expect.stringMatching(/not led by the recorded pid/)],
        ['no start time recorded', false, expect.stringMatching(/no start time was recorded/)],
      ])
    } finally {
      kills.restore()
    }
    expect(isGone(bystander.pid!)).toBe(false)
    expect(isGone(other.pid!)).toBe(false)
    // The entries are dropped: the next start does not report them again.
    expect(createPidRegistry(file).list()).toEqual([])
  })

  it('still reaps a real orphan next to hostile entries', async () => {
    const orphan = startGroup('sleep 300')
    const registry = createPidRegistry(file)
    registry.add({ pid: orphan.pid!, command: 'orphan', ownerPid: await deadPid() })
    const entries = JSON.parse(readFileSync(file, 'utf8')).entries
    await writeEntries([
      ...entries,
      { pid: 1, pgid: 1, command: 'init', startedAt: 1, ownerPid: await deadPid() },
    ])
    const kills = watchKills(() => [orphan.pid!])
    try {
      const reaped = await createPidRegistry(file).reapOrphans({ graceMs: 2000 })
      expect(reaped.map((r) => [r.command, r.killed])).toEqual([
        ['init', false],
        ['orphan', true],
      ])
      expect(kills.sent.map(([pid]) => pid)).toEqual([-orphan.pid!])
    } finally {
      kills.restore()
    }
  })
})
