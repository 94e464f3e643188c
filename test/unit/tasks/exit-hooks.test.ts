import { spawn } from 'node:child_process'
import { EventEmitter, once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { installExitCleanup } from '../../../source/tasks/exit-hooks.js'
import { isGone, killGroupQuietly, waitFor } from './helpers.js'

const FIXTURE = fileURLToPath(new URL('./fixtures/exit-hooks-child.mjs', import.meta.url))

function fakeProcess() {
  const target = new EventEmitter()
  const stops: number[] = []
  const exits: Array<[number, NodeJS.Signals]> = []
  const uninstall = installExitCleanup(
    { killAllSync: () => stops.push(stops.length) },
    { target, exit: (code, signal) => exits.push([code, signal]) },
  )
  return { target, stops, exits, uninstall }
}

describe('installExitCleanup (handlers)', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('on %s stops all jobs, then exits with %i', (signal, code) => {
    const { target, stops, exits } = fakeProcess()
    target.emit(signal, signal)
    expect(stops).toHaveLength(1)
    expect(exits).toEqual([[code, signal]])
  })

  it('stops all jobs on the exit event without exiting again', () => {
    const { target, stops, exits } = fakeProcess()
    target.emit('exit', 0)
    expect(stops).toHaveLength(1)
    expect(exits).toEqual([])
  })

  it('still exits with the signal code when stopping fails', () => {
    const target = new EventEmitter()
    const exits: number[] = []
    const stderr = process.stderr.write
    const written: string[] = []
    process.stderr.write = ((text: string) => written.push(text) > 0) as typeof process.stderr.write
    try {
      installExitCleanup(
        {
          killAllSync: () => {
            throw new Error('kill failed')
          },
        },
        { target, exit: (code) => exits.push(code) },
      )
      target.emit('SIGTERM', 'SIGTERM')
    } finally {
      process.stderr.write = stderr
    }
    expect(exits).toEqual([143])
    expect(written.join('')).toContain('could not stop running commands on exit: kill failed')
  })

  it('removes every listener when uninstalled', () => {
    const { target, uninstall } = fakeProcess()
    uninstall()
    for (const event of ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP']) expect(target.listenerCount(event)).toBe(0)
  })
})

describe('installExitCleanup (real exits)', () => {
  /** Starts the fixture, waits for its job to run, triggers `signal` if given, and returns the outcome. */
  async function runFixture(mode: string, signal?: NodeJS.Signals) {
    const child = spawn(process.execPath, [FIXTURE, mode], { stdio: ['ignore', 'pipe', 'pipe'] })
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string]
    const pids = JSON.parse(line) as { leader: number; grandchild: number }
    try {
      if (signal) child.kill(signal)
      const [code] = await exited
      for (const pid of [pids.leader, pids.grandchild])
        await waitFor(() => isGone(pid), `job pid ${pid} to die`)
      return code
    } finally {
      killGroupQuietly(pids.leader)
    }
  }

  it.each([
    ['natural', undefined, 0],
    ['exit', undefined, 0],
    ['throw', undefined, 1],
    ['reject', undefined, 1],
    ['wait', 'SIGINT', 130],
    ['wait', 'SIGTERM', 143],
    ['wait', 'SIGHUP', 129],
  ] as const)('mode %s (%s) kills the job group and exits with %i', async (mode, signal, code) => {
    expect(await runFixture(mode, signal)).toBe(code)
  })
})
