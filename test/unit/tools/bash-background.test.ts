import { readFileSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTaskManager, type TaskManager } from '../../../source/tasks/task-manager.js'
import { createBashTool } from '../../../source/tools/bash.js'
import type { ForegroundRegistry, ToolContext } from '../../../source/tools/types.js'
import { createTestEnv, isAlive, readIfExists, run, runError, type TestEnv, waitFor } from './helpers.js'

const bash = createBashTool({ isReadOnlyCommand: () => false })

type Handle = Parameters<ForegroundRegistry['register']>[0]

let env: TestEnv
let tasks: TaskManager
let ctx: ToolContext
/** What Bash registered with the foreground registry and has not unregistered yet. */
let handles: Handle[]
let registered: number

beforeEach(async () => {
  env = await createTestEnv()
  tasks = createTaskManager({ outputsDir: join(env.root, 'outputs'), killGraceMs: 500 })
  handles = []
  registered = 0
  const foreground: ForegroundRegistry = {
    register(handle) {
      handles.push(handle)
      registered++
      return () => {
        const at = handles.indexOf(handle)
        if (at >= 0) handles.splice(at, 1)
      }
    },
  }
  ctx = { ...env.ctx, tasks, foreground }
})
afterEach(async () => {
  await tasks.dispose()
  await env.cleanup()
})

/** A command fragment that blocks until the test creates `<root>/go`, so the test decides when it ends. */
function waitForGo(): string {
  return `while [ ! -e ${join(env.root, 'go')} ]; do sleep 0.05; done`
}

const go = (): Promise<void> => writeFile(join(env.root, 'go'), '')

const taskIdOf = (text: string): string => /background task (b\d+)/.exec(text)?.[1] ?? 'none'

/** The temp file the shell's EXIT trap writes its cwd to: the last argument of the wrapper bash. */
function cwdFileOf(pid: number): string {
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
  return args.at(-1) ?? ''
}

describe('Bash hands foreground commands to the TaskManager', () => {
  it('moves a command that hits its timeout to a background task instead of killing it', async () => {
    const command = `echo early; ${waitForGo()}; echo late`
    const result = await run(bash, { command, timeout: 1_000 }, ctx)
    const id = taskIdOf(result.forModel)
    expect(id).toBe('b1')
    expect(result.forModel).toContain('still running after its 1000 ms timeout')
    expect(result.forModel).toContain('Use TaskOutput with task_id "b1"')
    expect(result.failed).toBeUndefined()
    expect(result.display).toMatchObject({
      kind: 'command',
      command,
      exitCode: null,
      taskId: 'b1',
      timedOut: true,
    })
    expect(tasks.get(id)).toMatchObject({ status: 'running', command })

    await go()
    const read = await tasks.read(id, { block: true, timeoutMs: 10_000 })
    expect(read.status).toBe('completed')
    expect(read.exitCode).toBe(0)
    expect(read.output).toContain('late')
    // Whatever the result showed is not shown again by the first read: "early" is in exactly one of them.
    expect(result.forModel.includes('early') !== read.output.includes('early')).toBe(true)
    expect(await readFile(read.logPath, 'utf8')).toBe('early\nlate\n')
    expect(handles).toEqual([])
  })

  it('moves the command on demand (Ctrl+B) with its output so far in the result and the log', async () => {
    const command = `echo started; ${waitForGo()}; echo done`
    const pending = run(bash, { command, description: 'Wait for go' }, ctx)
    await waitFor(() => handles.length === 1 && env.progress.at(-1) === 'started\n', 'the command to start')
    expect(handles[0]?.command).toBe(command)
    expect(handles[0]?.background()).toBe('b1')
    // The command is still blocked on the go file, so the call resolved before the command ended.
    const result = await pending
    expect(result.forModel).toContain('moved the still-running command to background task b1')
    expect(result.forModel).toContain('Output so far:\nstarted\n')
    expect(result.display).toMatchObject({ kind: 'command', taskId: 'b1', output: 'started\n' })
    expect(result.display).not.toHaveProperty('timedOut')
    expect(handles).toEqual([])
    expect(tasks.get('b1')).toMatchObject({ status: 'running', description: 'Wait for go' })

    await go()
    const read = await tasks.read('b1', { block: true, timeoutMs: 10_000 })
    expect(read.status).toBe('completed')
    expect(read.output).toContain('done')
    expect(read.output).not.toContain('started')
    expect(await readFile(read.logPath, 'utf8')).toBe('started\ndone\n')
  })

  it('returns a character split across the hand-over to the pipe', async () => {
    // One write of "x" and the first two bytes of "€"; the last byte comes after the hand-over.
    const command = `printf 'x\\342\\202'; ${waitForGo()}; printf '\\254\\n'`
    const pending = run(bash, { command }, ctx)
    await waitFor(() => handles.length === 1 && env.progress.at(-1) === 'x', 'the first bytes to arrive')
    handles[0]?.background()
    expect((await pending).forModel).toContain('Output so far:\nx\n')
    await go()
    const read = await tasks.read('b1', { block: true, timeoutMs: 10_000 })
    expect(read.output).toContain('€')
    expect(await readFile(read.logPath, 'utf8')).toBe('x€\n')
  })

  it('unregisters a command that finishes, and background() then fails instead of adopting', async () => {
    let handle: Handle | undefined
    let unregistered = false
    const foreground: ForegroundRegistry = {
      register(h) {
        handle = h
        return () => {
          unregistered = true
        }
      },
    }
    const result = await run(bash, { command: 'echo hi' }, { ...ctx, foreground })
    expect(result.forModel).toMatch(/^hi\n\nExit code 0/)
    expect(unregistered).toBe(true)
    expect(() => handle?.background()).toThrow('already finished')
    expect(tasks.list()).toEqual([])
  })

  it('removes the cwd file when the adopted shell exits, and leaves what it started to the task', async () => {
    const pidFile = join(env.root, 'lingering.pid')
    const pending = run(bash, { command: `sleep 300 & echo $! > ${pidFile}; echo up; ${waitForGo()}` }, ctx)
    await waitFor(() => handles.length === 1 && env.progress.length > 0, 'the command to start')
    handles[0]?.background()
    await pending
    const leader = tasks.get('b1')?.pid ?? 0
    const cwdFile = cwdFileOf(leader)
    expect(cwdFile).toMatch(/agent-tui-cwd-/)
    const sleeper = Number((await readFile(pidFile, 'utf8')).trim())
    await go()
    await waitFor(() => !isAlive(leader), 'the adopted shell to exit')
    await waitFor(async () => (await readIfExists(cwdFile)) === undefined, 'the cwd file to be removed')
    // The shell's clean-up did not treat the sleep holding the pipe as a leftover to kill.
    expect(isAlive(sleeper)).toBe(true)
    expect(tasks.get('b1')?.status).toBe('running')
    expect((await tasks.stop('b1')).status).toBe('stopped')
    await waitFor(() => !isAlive(sleeper), 'the sleep to be stopped with its task')
  })

  it('leaves no process of an adopted job behind after stopAll', async () => {
    const pidFile = join(env.root, 'grandchild.pid')
    const command = `sleep 300 & echo $! > ${pidFile}; echo started; wait`
    const result = await run(bash, { command, timeout: 1_000 }, ctx)
    const id = taskIdOf(result.forModel)
    const leader = tasks.get(id)?.pid ?? 0
    await waitFor(async () => /^\d+\n$/.test((await readIfExists(pidFile)) ?? ''), 'the grandchild pid')
    const grandchild = Number((await readFile(pidFile, 'utf8')).trim())
    expect(isAlive(leader)).toBe(true)
    expect(isAlive(grandchild)).toBe(true)
    await tasks.stopAll()
    expect(tasks.get(id)?.status).toBe('stopped')
    await waitFor(() => !isAlive(leader) && !isAlive(grandchild), 'the adopted group to be gone')
  })

  it('leaves no process of an adopted job behind after dispose', async () => {
    const result = await run(bash, { command: `echo $$; ${waitForGo()}`, timeout: 1_000 }, ctx)
    const leader = tasks.get(taskIdOf(result.forModel))?.pid ?? 0
    expect(isAlive(leader)).toBe(true)
    await tasks.dispose()
    await waitFor(() => !isAlive(leader), 'the adopted shell to be gone')
  })

  it('run_in_background returns the task id at once and the output is readable', async () => {
    const result = await run(bash, { command: `${waitForGo()}; echo bg-done`, run_in_background: true }, ctx)
    expect(result.forModel).toContain('Started background task b1')
    expect(result.forModel).toContain('TaskOutput (task_id "b1")')
    expect(result.forModel).toContain('TaskStop')
    expect(result.display).toEqual({ kind: 'task', taskId: 'b1', status: 'running' })
    expect(registered).toBe(0)
    await go()
    const read = await tasks.read('b1', { block: true, timeoutMs: 10_000 })
    expect(read.status).toBe('completed')
    expect(read.output).toContain('bg-done')
  })

  it('abort kills the foreground command but never a background task', async () => {
    await run(bash, { command: waitForGo(), run_in_background: true }, ctx)
    const pidFile = join(env.root, 'fg.pid')
    const pending = runError(bash, { command: `echo $$ > ${pidFile}; sleep 300` }, ctx)
    await waitFor(async () => /^\d+\n$/.test((await readIfExists(pidFile)) ?? ''), 'the foreground pid')
    const foregroundPid = Number((await readFile(pidFile, 'utf8')).trim())
    env.controller.abort()
    expect((await pending).category).toBe('aborted')
    await waitFor(() => !isAlive(foregroundPid), 'the foreground shell to die')
    expect(tasks.list()).toHaveLength(1)
    expect(tasks.get('b1')?.status).toBe('running')
    expect(isAlive(tasks.get('b1')?.pid ?? 0)).toBe(true)
  })

  it('kills on timeout when the task manager refuses the hand-over', async () => {
    await tasks.dispose()
    const pidFile = join(env.root, 'refused.pid')
    const result = await run(
      bash,
      { command: `sleep 300 & echo $! > ${pidFile}; echo started; wait`, timeout: 1_000 },
      ctx,
    )
    expect(result.failed).toBe(true)
    expect(result.forModel).toContain('timed out after 1000 ms and was stopped')
    expect(result.forModel).toContain('could not be moved to the background')
    expect(result.display).not.toHaveProperty('taskId')
    await waitFor(async () => /^\d+\n$/.test((await readIfExists(pidFile)) ?? ''), 'the background pid')
    const pid = Number((await readFile(pidFile, 'utf8')).trim())
    await waitFor(() => !isAlive(pid), 'the background sleep to die')
  })
})
