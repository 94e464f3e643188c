import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import {
  groupSignalRefusal,
  type OwnedGroup,
  ownedGroup,
  type SignalFacts,
  signalFacts,
  signalOwnedGroup,
} from '../../../source/util/process-ownership.js'
import { isGone, killGroupQuietly, waitFor } from '../tasks/helpers.js'

const started: number[] = []
afterEach(() => {
  for (const pgid of started.splice(0)) killGroupQuietly(pgid)
})

function sleeper(): number {
  const child = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' })
  child.unref()
  if (child.pid === undefined) throw new Error('sleep did not start')
  started.push(child.pid)
  return child.pid
}

const ownPgrp = (): number => {
  const stat = readFileSync('/proc/self/stat', 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
}

describe('groupSignalRefusal', () => {
  const linux: SignalFacts = { ownPid: 500, ownPgid: 400, leader: { start: '777' } }
  const recorded: OwnedGroup = { pgid: 9000, leaderStart: '777' }
  const cases: Array<[string, OwnedGroup, SignalFacts, RegExp | undefined]> = [
    ['the recorded group, same leader', recorded, linux, undefined],
    [
      'leader gone, members may remain (the pid cannot be reused then)',
      recorded,
      { ...linux, leader: 'gone' },
      undefined,
    ],
    ['pgid 0: kill(-0) is our own group', { ...recorded, pgid: 0 }, linux, /0 is not a process group id/],
    ['pgid 1: kill(-1) is every process', { ...recorded, pgid: 1 }, linux, /group 1 is init/],
    [
      'negative: kill(--5) names one process',
      { ...recorded, pgid: -5 },
      linux,
      /-5 is not a process group id/,
    ],
    ['not an integer', { ...recorded, pgid: 12.5 }, linux, /12.5 is not a process group id/],
    ['NaN', { ...recorded, pgid: Number.NaN }, linux, /NaN is not a process group id/],
    ['our own pid', { ...recorded, pgid: 500 }, linux, /agent-tui itself/],
    ['our own group', { ...recorded, pgid: 400 }, linux, /agent-tui's own group/],
    [
      'pid reused: another start time',
      recorded,
      { ...linux, leader: { start: '778' } },
      /now another process/,
    ],
    [
      'no start time recorded although /proc has one',
      { pgid: 9000, leaderStart: undefined },
      linux,
      /no start time was recorded/,
    ],
    // Without /proc (macOS): only the numbers and our own pid can be checked.
    [
      'non-Linux: a group',
      { pgid: 9000, leaderStart: undefined },
      { ownPid: 500, ownPgid: undefined, leader: 'unknown' },
      undefined,
    ],
    [
      'non-Linux: pgid 1',
      { pgid: 1, leaderStart: undefined },
      { ownPid: 500, ownPgid: undefined, leader: 'unknown' },
      /init/,
    ],
    [
      'non-Linux: our own pid',
      { pgid: 500, leaderStart: undefined },
      { ownPid: 500, ownPgid: undefined, leader: 'unknown' },
      /itself/,
    ],
  ]
  it.each(cases)('%s', (_name, group, facts, refusal) => {
    const said = groupSignalRefusal(group, facts)
    if (refusal === undefined) expect(said).toBeUndefined()
    else expect(said).toMatch(refusal)
  })
})

describe.runIf(process.platform === 'linux')('signalOwnedGroup on this machine', () => {
  it('knows its own process and group from /proc', () => {
    const facts = signalFacts(process.pid)
    expect(facts.ownPid).toBe(process.pid)
    expect(facts.ownPgid).toBe(ownPgrp())
  })

  // Signal 0 sends nothing: were the check missing, these would answer 'sent' and harm no one.
  it.each([
    ['init', 1],
    ['agent-tui itself', process.pid],
    ['its own group', ownPgrp()],
    ['group 0', 0],
    ['a negative number', -process.pid],
  ])('never signals %s', (_name, pgid) => {
    const result = signalOwnedGroup({ pgid, leaderStart: undefined }, 0)
    expect(result).toMatchObject({ refused: expect.any(String) })
  })

  it('signals a group it spawned, and says when it is gone', async () => {
    const pid = sleeper()
    const group = ownedGroup(pid)
    expect(group.leaderStart).toMatch(/^\d+$/)
    expect(signalOwnedGroup(group, 'SIGKILL')).toBe('sent')
    await waitFor(() => isGone(pid), 'the sleeper to die')
    await waitFor(() => signalOwnedGroup(group, 0) === 'gone', 'the group to be reaped')
  })

  it('leaves a process alone whose start time is not the recorded one (a reused pid)', async () => {
    const pid = sleeper()
    const real = ownedGroup(pid)
    const stale: OwnedGroup = { pgid: pid, leaderStart: String(Number(real.leaderStart) - 1) }
    expect(signalOwnedGroup(stale, 'SIGKILL')).toMatchObject({
      refused: expect.stringMatching(/another process/),
    })
    expect(isGone(pid)).toBe(false)
  })

  it('answers gone for a process that no longer exists', async () => {
    const child = spawn('true')
    await once(child, 'exit')
    expect(signalOwnedGroup({ pgid: child.pid as number, leaderStart: '1' }, 'SIGTERM')).toBe('gone')
  })
})
