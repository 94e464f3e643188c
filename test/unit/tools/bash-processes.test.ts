import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createPidRegistry } from '../../../source/tasks/pid-registry.js'
import { createProcessGroups, type ProcessGroups } from '../../../source/tasks/process-groups.js'
import { createTaskManager, type TaskManager } from '../../../source/tasks/task-manager.js'
import { createBashTool } from '../../../source/tools/bash.js'
import type { ForegroundRegistry, ToolContext } from '../../../source/tools/types.js'
import { createTestEnv, isAlive, readIfExists, run, type TestEnv, waitFor } from './helpers.js'

const bash = createBashTool({ isReadOnlyCommand: () => false })

let env: TestEnv
let ctx: ToolContext
let processes: ProcessGroups
let registry: ReturnType<typeof createPidRegistry>
const strays: number[] = []

beforeEach(async () => {
  env = await createTestEnv()
  registry = createPidRegistry(join(env.root, 'state', 'pids.json'))
  processes = createProcessGroups({ registry })
  ctx = { ...env.ctx, processes }
})
afterEach(async () => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  await env.cleanup()
})

/** The pids a command wrote to `names` (one file each, in the workspace). */
async function pids(...names: string[]): Promise<number[]> {
  const out: number[] = []
  for (const name of names) {
    const file = join(env.workspace, name)
    await waitFor(async () => /^\d+\n$/.test((await readIfExists(file)) ?? ''), `a pid in ${name}`)
    const pid = Number((await readIfExists(file))?.trim())
    strays.push(pid)
    out.push(pid)
  }
  return out
}

describe('Bash owns the processes of a foreground command', () => {
  it.each([
    ['output redirected', 'sleep 300 > /dev/null 2>&1 & echo $! > a.pid'],
    ['in a subshell', '(sleep 300 > /dev/null 2>&1 & echo $! > a.pid)'],
    ['with nohup', 'nohup sleep 300 > /dev/null 2>&1 & echo $! > a.pid'],
    ['holding the output', 'sleep 300 & echo $! > a.pid'],
  ])('kills what the command left running (%s) when it ends, and says so', async (_, command) => {
    const result = await run(bash, { command }, ctx)
    const [pid = 0] = await pids('a.pid')
    expect(result.forModel).toContain('Background processes started by the command were stopped')
    await waitFor(() => !isAlive(pid), 'the process left behind to be killed')
  })

  it('says nothing of leftovers when the command waited for what it started', async () => {
    const result = await run(bash, { command: 'sleep 0.1 & wait; echo done' }, ctx)
    expect(result.forModel).not.toContain('Background processes')
  })

  it('records the command in the pid registry while it runs, and forgets it after', async () => {
    const pending = run(
      bash,
      { command: `echo $$ > leader.pid; while [ ! -f ${join(env.root, 'go')} ]; do sleep 0.02; done` },
      ctx,
    )
    const [leader] = await pids('leader.pid')
    expect(registry.list()).toMatchObject([{ pid: leader, pgid: leader, kind: 'foreground' }])
    expect(processes.pids()).toEqual([leader])
    await writeFile(join(env.root, 'go'), '')
    await pending
    expect(registry.list()).toEqual([])
    expect(processes.pids()).toEqual([])
  })

  it('leaves the group to the TaskManager when the command moves to the background', async () => {
    const tasks: TaskManager = createTaskManager({ outputsDir: join(env.root, 'outputs'), processes })
    let background: (() => string) | undefined
    const foreground: ForegroundRegistry = {
      register(handle) {
        background = handle.background
        return () => {
          background = undefined
        }
      },
    }
    try {
      const pending = run(
        bash,
        { command: `echo $$ > leader.pid; while [ ! -f ${join(env.root, 'go')} ]; do sleep 0.02; done` },
        { ...ctx, tasks, foreground },
      )
      const [leader] = await pids('leader.pid')
      expect(background?.()).toBe('b1')
      expect((await pending).forModel).toContain('background task b1')
      expect(registry.list()).toMatchObject([{ pid: leader, kind: 'background' }])
      await writeFile(join(env.root, 'go'), '')
      await tasks.read('b1', { block: true, timeoutMs: 20_000 })
      expect(registry.list()).toEqual([])
    } finally {
      await tasks.dispose()
    }
  })
})
