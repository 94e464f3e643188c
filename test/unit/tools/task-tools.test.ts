import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTaskManager, type TaskManager } from '../../../source/tasks/task-manager.js'
import { taskOutputTool } from '../../../source/tools/task-output.js'
import { taskStopTool } from '../../../source/tools/task-stop.js'
import { readPidFile } from '../tasks/helpers.js'
import { createTestEnv, isAlive, run, runError, type TestEnv, waitFor } from './helpers.js'

let env: TestEnv
let tasks: TaskManager
beforeEach(async () => {
  const base = await createTestEnv()
  // The manager logs into the env's own temp root, so cleanup removes everything.
  tasks = createTaskManager({ outputsDir: join(base.root, 'outputs') })
  env = { ...base, ctx: { ...base.ctx, tasks } }
})
afterEach(async () => {
  await tasks.dispose()
  await env.cleanup()
})

describe('TaskOutput', () => {
  it('blocks until the task exits and returns all of its output, then only what is new', async () => {
    tasks.launch({ command: 'echo one; echo two >&2; exit 3', cwd: env.workspace })
    const result = await run(taskOutputTool, { task_id: 'b1', timeout: 600_000 }, env.ctx)
    const logPath = join(env.root, 'outputs', 'tasks', 'b1.log')
    expect(result.forModel).toBe(
      'Task b1 (echo one; echo two >&2; exit 3): failed, exit code 3.\n' +
        'Output since the last TaskOutput call:\none\ntwo\n' +
        `Log file: ${logPath}`,
    )
    expect(result.display).toEqual({ kind: 'task', taskId: 'b1', status: 'failed', output: 'one\ntwo\n' })
    const again = await run(taskOutputTool, { task_id: 'b1' }, env.ctx)
    expect(again.forModel).toContain('No new output since the last TaskOutput call.')
  })

  it('returns at once without blocking, and says a blocked wait ran out', async () => {
    const task = tasks.launch({ command: 'sleep 300', cwd: env.workspace })
    const now = await run(taskOutputTool, { task_id: 'b1', block: false }, env.ctx)
    expect(now.forModel).toMatch(new RegExp(`^Task b1 \\(sleep 300\\): running \\(pid ${task.pid}\\)\\.\\n`))
    expect(now.forModel).not.toContain('still running after')
    const waited = await run(taskOutputTool, { task_id: 'b1', timeout: 1 }, env.ctx)
    expect(waited.forModel).toContain('It is still running after waiting 1 ms; call TaskOutput again')
  })

  it('lists the ports a running task listens on, with the URL to open', async () => {
    const server = `'${process.execPath}' -e "require('http').createServer().listen(0, '127.0.0.1')"`
    const watched = createTaskManager({ outputsDir: join(env.root, 'watched'), portPollMs: 50 })
    try {
      watched.launch({ command: server, cwd: env.workspace })
      await waitFor(() => (watched.get('b1')?.ports?.length ?? 0) > 0, 'the port to be seen')
      const port = watched.get('b1')?.ports?.[0]?.port
      const result = await run(
        taskOutputTool,
        { task_id: 'b1', block: false },
        { ...env.ctx, tasks: watched },
      )
      expect(result.forModel.split('\n')[1]).toBe(`Listening: 127.0.0.1:${port} → http://127.0.0.1:${port}/`)
      expect(result.display).toMatchObject({ listening: [`127.0.0.1:${port} → http://127.0.0.1:${port}/`] })
      await watched.stop('b1')
      const ended = await run(taskOutputTool, { task_id: 'b1', block: false }, { ...env.ctx, tasks: watched })
      expect(ended.forModel).not.toContain('Listening:')
    } finally {
      await watched.dispose()
    }
  })

  it('lists the known ids for an unknown id', async () => {
    tasks.launch({ command: 'true', cwd: env.workspace })
    const error = await runError(taskOutputTool, { task_id: 'b9' }, env.ctx)
    expect(error.category).toBe('not_found')
    expect(error.message).toMatch(/^unknown task id "b9"; known tasks: b1 \((running|completed): true\)$/)
  })

  it('says so when the session has no task manager', async () => {
    const { tasks: _none, ...ctx } = env.ctx
    const error = await runError(taskOutputTool, { task_id: 'b1' }, ctx)
    expect(error.message).toBe('background tasks are not available in this session')
  })

  it('rejects a timeout above 10 minutes', () => {
    expect(taskOutputTool.schema.safeParse({ task_id: 'b1', timeout: 600_001 }).success).toBe(false)
  })
})

describe('TaskStop', () => {
  it('stops a task with its children and grandchildren', async () => {
    const command = '(sleep 300 & echo $! > gpid; wait) & echo $! > cpid; sleep 300'
    const task = tasks.launch({ command, cwd: env.workspace })
    const grandchild = await readPidFile(join(env.workspace, 'gpid'))
    const child = await readPidFile(join(env.workspace, 'cpid'))
    expect(isAlive(grandchild)).toBe(true)
    const result = await run(taskStopTool, { task_id: 'b1' }, env.ctx)
    expect(result.forModel).toMatch(/^Stopped task b1 \(.*\): stopped, exit code 143\. Its log: /)
    expect(result.display).toEqual({ kind: 'task', taskId: 'b1', status: 'stopped' })
    for (const pid of [task.pid!, child, grandchild])
      await waitFor(() => !isAlive(pid), `pid ${pid} to be gone`)
  })

  it('reports a task that already finished', async () => {
    tasks.launch({ command: 'exit 0', cwd: env.workspace })
    await tasks.read('b1', { block: true, timeoutMs: 600_000 })
    const result = await run(taskStopTool, { task_id: 'b1' }, env.ctx)
    expect(result.forModel).toBe(
      'Task b1 (exit 0) had already finished (completed, exit code 0); nothing to stop.',
    )
  })

  it('lists the known ids for an unknown id', async () => {
    const error = await runError(taskStopTool, { task_id: 'b1' }, env.ctx)
    expect(error.category).toBe('not_found')
    expect(error.message).toBe('unknown task id "b1"; no background tasks exist in this session')
  })
})
