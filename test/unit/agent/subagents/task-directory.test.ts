import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTaskDirectory, type TaskDirectory } from '../../../../source/agent/subagents/task-directory.js'
import type { TaskSummary } from '../../../../source/store/domain.js'
import { createTaskManager, type TaskManager } from '../../../../source/tasks/task-manager.js'
import { isGone, makeTempDir, waitFor } from '../../tasks/helpers.js'

let temp: { dir: string; cleanup: () => Promise<void> }
let processes: TaskManager
let directory: TaskDirectory
let updates: TaskSummary[]
beforeEach(async () => {
  temp = await makeTempDir()
  updates = []
  processes = createTaskManager({
    outputsDir: temp.dir,
    onUpdate: (t) => updates.push(directory.decorate(t)),
    killGraceMs: 200,
  })
  directory = createTaskDirectory({
    processes,
    logDir: `${temp.dir}/tasks`,
    onUpdate: (t) => updates.push(t),
  })
})
afterEach(async () => {
  await processes.dispose()
  await temp.cleanup()
})

describe('the task directory', () => {
  it('lists shell jobs and background subagents together and routes reads and stops by id', async () => {
    const shell = directory.launch({ command: 'echo hi', cwd: temp.dir })
    const agent = directory.createAgent({ type: 'explore', description: 'Look', startedAt: 1 })
    expect(shell.id).toBe('b1')
    expect(agent.id).toBe('a1')
    expect(directory.list().map((t) => [t.id, t.kind])).toEqual([
      ['b1', 'bash'],
      ['a1', 'agent'],
    ])
    expect((await directory.read('b1', { block: true, timeoutMs: 10_000 })).output).toBe('hi\n')
    const stopping = directory.stop('a1')
    agent.finish('stopped', '')
    expect((await stopping).status).toBe('stopped')
    await expect(directory.read('x9', { block: false, timeoutMs: 0 })).rejects.toThrow(/known: b1, a1/)
  })

  it("marks a subagent's jobs as its own and stops what still runs when asked", async () => {
    const owned = directory.owned('a1')
    const job = owned.launch({ command: 'echo $$; exec sleep 300', cwd: temp.dir })
    expect(job.owner).toBe('a1')
    expect(updates.filter((u) => u.id === job.id).at(-1)?.owner).toBe('a1')
    expect(directory.get(job.id)?.owner).toBe('a1')
    // Another owner's view does not see it as its own.
    expect(await directory.owned().stopOwned()).toEqual([])
    const pid = job.pid as number
    expect(await owned.stopOwned()).toEqual([job.id])
    await waitFor(() => isGone(pid), 'the owned job to be gone')
    expect(directory.get(job.id)?.status).toBe('stopped')
    expect(await owned.stopOwned()).toEqual([])
  })
})
