import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { TaskSummary } from '../../../source/store/domain.js'
import { createPidRegistry } from '../../../source/tasks/pid-registry.js'
import { createProcessGroups } from '../../../source/tasks/process-groups.js'
import {
  createTaskManager,
  type TaskManager,
  type TaskManagerOptions,
} from '../../../source/tasks/task-manager.js'
import { isGone, killGroupQuietly, makeTempDir, readPidFile, waitFor } from './helpers.js'

const LONG = 60_000
/** Blocks until the file `go` appears in the job's cwd; lets a test decide when a job moves on. */
const WAIT_FOR_GO = 'while [ ! -f go ]; do sleep 0.02; done'

let dir: string
let cleanup: () => Promise<void>
let managers: TaskManager[]
let strays: ChildProcess[]

beforeEach(async () => {
  ;({ dir, cleanup } = await makeTempDir())
  managers = []
  strays = []
})

afterEach(async () => {
  await Promise.all(managers.map((manager) => manager.dispose()))
  for (const child of strays) killGroupQuietly(child.pid)
  await cleanup()
})

function manager(opts: Partial<TaskManagerOptions> = {}): TaskManager {
  const created = createTaskManager({ outputsDir: join(dir, 'outputs'), ...opts })
  managers.push(created)
  return created
}

const go = () => writeFile(join(dir, 'go'), '')

/** The process group of `pid`, from /proc (these tests run on Linux). */
function groupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
}

describe('launch and read', () => {
  it('numbers tasks b1, b2, … in start order', () => {
    const tasks = manager()
    const ids = ['true', 'true', 'true'].map((command) => tasks.launch({ command, cwd: dir }).id)
    expect(ids).toEqual(['b1', 'b2', 'b3'])
    expect(tasks.list().map((task) => task.id)).toEqual(['b1', 'b2', 'b3'])
    expect(tasks.get('b2')?.command).toBe('true')
  })

  it('collects stdout and stderr of a job that exits, with its exit code and last line', async () => {
    const tasks = manager()
    const task = tasks.launch({ command: 'echo one; echo two >&2; exit 3', cwd: dir, description: 'fails' })
    expect(task).toMatchObject({ id: 'b1', kind: 'bash', status: 'running', description: 'fails' })
    expect(task.logPath).toBe(join(dir, 'outputs', 'tasks', 'b1.log'))

    const result = await tasks.read('b1', { block: true, timeoutMs: LONG })
    expect(result.status).toBe('failed')
    expect(result.exitCode).toBe(3)
    // Both streams write into the same log, so the order is exactly the order of the writes.
    expect(result.output).toBe('one\ntwo\n')
    expect(tasks.get('b1')).toMatchObject({ status: 'failed', exitCode: 3, outputBytes: 8, lastLine: 'two' })
    expect(tasks.get('b1')?.endedAt).toBeGreaterThanOrEqual(task.startedAt)
  })

  it('marks a job that exits 0 as completed', async () => {
    const tasks = manager()
    tasks.launch({ command: 'printf "a\\nb"', cwd: dir })
    const result = await tasks.read('b1', { block: true, timeoutMs: LONG })
    expect(result).toMatchObject({ status: 'completed', exitCode: 0, output: 'a\nb', droppedBytes: 0 })
    expect(tasks.get('b1')?.lastLine).toBe('b')
  })

  it('returns only the output produced since the previous read', async () => {
    const tasks = manager()
    tasks.launch({ command: `echo first; ${WAIT_FOR_GO}; echo second`, cwd: dir })
    await waitFor(() => tasks.get('b1')?.outputBytes === 6, 'the first line')
    expect(await tasks.read('b1', { block: false, timeoutMs: 0 })).toMatchObject({
      status: 'running',
      output: 'first\n',
    })
    expect((await tasks.read('b1', { block: false, timeoutMs: 0 })).output).toBe('')
    await go()
    const rest = await tasks.read('b1', { block: true, timeoutMs: LONG })
    expect(rest).toMatchObject({ status: 'completed', output: 'second\n' })
    expect((await tasks.read('b1', { block: true, timeoutMs: LONG })).output).toBe('')
  })

  it('a blocking read waits for the job to exit', async () => {
    const tasks = manager()
    tasks.launch({ command: `${WAIT_FOR_GO}; echo finished`, cwd: dir })
    const reading = tasks.read('b1', { block: true, timeoutMs: LONG })
    await go()
    // Had the read returned before the exit, the status would still be running.
    expect(await reading).toMatchObject({ status: 'completed', exitCode: 0, output: 'finished\n' })
  })

  it('a blocking read gives up at its timeout or abort and returns what there is', async () => {
    const tasks = manager()
    tasks.launch({ command: `echo partial; ${WAIT_FOR_GO}`, cwd: dir })
    await waitFor(() => tasks.get('b1')?.outputBytes === 8, 'the partial line')
    expect(await tasks.read('b1', { block: true, timeoutMs: 10 })).toMatchObject({
      status: 'running',
      output: 'partial\n',
    })
    const controller = new AbortController()
    const reading = tasks.read('b1', { block: true, timeoutMs: LONG, signal: controller.signal })
    controller.abort()
    expect(await reading).toMatchObject({ status: 'running', output: '' })
  })

  it('reports a missing working directory as a failed task', async () => {
    const tasks = manager()
    const missing = join(dir, 'nope')
    tasks.launch({ command: 'echo hi', cwd: missing })
    const result = await tasks.read('b1', { block: true, timeoutMs: LONG })
    expect(result.status).toBe('failed')
    expect(result.output).toContain(`working directory does not exist: ${missing}`)
    expect(tasks.get('b1')?.lastLine).toContain('working directory does not exist')
  })

  it('names the known ids when an id is unknown', async () => {
    const tasks = manager()
    await expect(tasks.read('b9', { block: false, timeoutMs: 0 })).rejects.toThrow(
      'unknown task id "b9"; no background tasks exist',
    )
    tasks.launch({ command: 'true', cwd: dir })
    tasks.launch({ command: 'true', cwd: dir })
    await expect(tasks.read('b9', { block: false, timeoutMs: 0 })).rejects.toThrow(
      'unknown task id "b9"; known: b1, b2',
    )
    await expect(tasks.stop('b9')).rejects.toThrow('unknown task id "b9"; known: b1, b2')
    expect(() => tasks.tail('x')).toThrow('unknown task id "x"; known: b1, b2')
    expect(tasks.get('b9')).toBeUndefined()
  })

  it('keeps the complete output in the log file when memory dropped the middle', async () => {
    const tasks = manager({ buffer: { headBytes: 1024, tailBytes: 64 * 1024 } })
    tasks.launch({ command: 'seq 1 750000', cwd: dir })
    const result = await tasks.read('b1', { block: true, timeoutMs: LONG })
    let expected = ''
    for (let i = 1; i <= 750_000; i++) expected += `${i}\n`
    expect(expected.length).toBeGreaterThan(5_000_000)

    const log = await readFile(result.logPath, 'utf8')
    expect(log).toBe(expected)
    expect(tasks.get('b1')?.outputBytes).toBe(expected.length)
    expect(result.status).toBe('completed')
    expect(result.droppedBytes).toBe(expected.length - 1024 - 64 * 1024)
    expect(result.output.startsWith('1\n2\n3\n')).toBe(true)
    expect(result.output.endsWith('749999\n750000\n')).toBe(true)
    expect(result.output).toContain(`bytes not kept in memory; the full output is in ${result.logPath}`)
    expect(tasks.tail('b1', 14)).toBe('749999\n750000\n')
  })
})

describe('stop', () => {
  it('kills the whole tree: children and grandchildren', async () => {
    const tasks = manager()
    const command = '(sleep 300 & echo $! > gpid; wait) & echo $! > cpid; sleep 300'
    const task = tasks.launch({ command, cwd: dir })
    const grandchild = await readPidFile(join(dir, 'gpid'))
    const child = await readPidFile(join(dir, 'cpid'))
    expect(isGone(grandchild)).toBe(false)

    const stopped = await tasks.stop('b1')
    expect(stopped.status).toBe('stopped')
    expect(stopped.exitCode).toBe(143)
    for (const pid of [task.pid!, child, grandchild]) await waitFor(() => isGone(pid), `pid ${pid} to exit`)
  })

  it('falls back to SIGKILL when the job ignores SIGTERM', async () => {
    const tasks = manager({ killGraceMs: 200 })
    tasks.launch({ command: `trap '' TERM; echo ready; ${WAIT_FOR_GO}`, cwd: dir })
    await waitFor(() => tasks.get('b1')?.lastLine === 'ready', 'the trap to be set')
    const stopped = await tasks.stop('b1')
    expect(stopped).toMatchObject({ status: 'stopped', exitCode: 137 })
    await waitFor(() => isGone(stopped.pid!), 'the job to exit')
  })

  it('returns a finished task unchanged and shares one stop between callers', async () => {
    const tasks = manager()
    tasks.launch({ command: 'exit 4', cwd: dir })
    await tasks.read('b1', { block: true, timeoutMs: LONG })
    const before = tasks.get('b1')
    expect(await tasks.stop('b1')).toEqual(before)

    tasks.launch({ command: 'sleep 300', cwd: dir })
    const [a, b] = await Promise.all([tasks.stop('b2'), tasks.stop('b2')])
    expect(a).toEqual(b)
    expect(a.status).toBe('stopped')
  })

  it('stopAll stops every running job', async () => {
    const tasks = manager()
    const pids = [1, 2, 3].map(() => tasks.launch({ command: 'sleep 300', cwd: dir }).pid!)
    await tasks.stopAll()
    expect(tasks.list().map((task) => task.status)).toEqual(['stopped', 'stopped', 'stopped'])
    for (const pid of pids) expect(isGone(pid)).toBe(true)
  })

  it('stopAllSync kills the groups at once', async () => {
    const tasks = manager()
    const task = tasks.launch({ command: '(sleep 300 & echo $! > gpid; wait)', cwd: dir })
    const grandchild = await readPidFile(join(dir, 'gpid'))
    tasks.stopAllSync()
    await waitFor(() => tasks.get('b1')?.status === 'stopped', 'the job to be stopped')
    expect(tasks.get('b1')?.exitCode).toBe(137)
    for (const pid of [task.pid!, grandchild]) await waitFor(() => isGone(pid), `pid ${pid} to exit`)
  })

  it('keeps a job running while processes it started outlive the leader', async () => {
    const tasks = manager()
    tasks.launch({ command: 'sleep 300 & echo $! > cpid; echo leader done', cwd: dir })
    const lingering = await readPidFile(join(dir, 'cpid'))
    await waitFor(() => tasks.get('b1')?.lastLine === 'leader done', 'the leader to finish')
    expect(tasks.get('b1')?.status).toBe('running')
    process.kill(lingering, 'SIGTERM')
    await tasks.read('b1', { block: true, timeoutMs: LONG })
    expect(tasks.get('b1')).toMatchObject({ status: 'completed', exitCode: 0 })
  })

  it('stop kills what outlived the leader', async () => {
    const tasks = manager()
    tasks.launch({ command: 'sleep 300 & echo $! > cpid', cwd: dir })
    const lingering = await readPidFile(join(dir, 'cpid'))
    expect((await tasks.stop('b1')).status).toBe('stopped')
    await waitFor(() => isGone(lingering), 'the lingering process to exit')
  })

  it('does not wait forever for an adopted pipe held by a process that escaped with setsid', async () => {
    const tasks = manager({ killGraceMs: 100 })
    const child = spawn('bash', ['-c', 'setsid sleep 300 & echo $! > epid; sleep 300'], {
      cwd: dir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    strays.push(child)
    tasks.adopt({ child, command: 'escapes', cwd: dir, initialOutput: '' })
    const escaped = await readPidFile(join(dir, 'epid'))
    try {
      await waitFor(() => groupOf(escaped) === escaped, 'the escape into its own group')
      expect((await tasks.stop('b1')).status).toBe('stopped')
      expect(isGone(escaped)).toBe(false)
    } finally {
      process.kill(escaped, 'SIGKILL')
    }
  })
})

describe('adopt', () => {
  it('keeps the output collected before the hand-over and everything after it', async () => {
    const tasks = manager()
    const child = spawn('bash', ['-c', `echo before; ${WAIT_FOR_GO}; echo after`], {
      cwd: dir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    strays.push(child)
    let collected = ''
    const collect = (chunk: Buffer) => {
      collected += chunk.toString()
    }
    child.stdout.on('data', collect)
    await waitFor(() => collected === 'before\n', 'the foreground output')
    child.stdout.off('data', collect)

    const task = tasks.adopt({ child, command: 'the command', cwd: dir, initialOutput: collected })
    expect(task).toMatchObject({
      id: 'b1',
      status: 'running',
      pid: child.pid,
      outputBytes: 7,
      lastLine: 'before',
    })
    await go()
    const result = await tasks.read('b1', { block: true, timeoutMs: LONG })
    expect(result).toMatchObject({ status: 'completed', exitCode: 0, output: 'before\nafter\n' })
    expect(await readFile(result.logPath, 'utf8')).toBe('before\nafter\n')
  })

  it('takes a subprocess and can skip output the caller already showed', async () => {
    const tasks = manager()
    const subprocess = spawn('bash', ['-c', `${WAIT_FOR_GO}; echo later`], {
      cwd: dir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    tasks.adopt({
      child: subprocess,
      command: 'x',
      cwd: dir,
      initialOutput: 'shown already\n',
      initialOutputSeen: true,
    })
    await go()
    const result = await tasks.read('b1', { block: true, timeoutMs: LONG })
    expect(result).toMatchObject({ status: 'completed', output: 'later\n' })
    expect(await readFile(result.logPath, 'utf8')).toBe('shown already\nlater\n')
  })

  it('refuses a process that does not lead its own group, and one that never started', () => {
    const tasks = manager()
    const child = spawn('sleep', ['300'], { stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      expect(() => tasks.adopt({ child, command: 'sleep 300', cwd: dir, initialOutput: '' })).toThrow(
        /is not a process-group leader .*spawn it with detached: true/,
      )
    } finally {
      child.kill('SIGKILL')
    }
    const failed = spawn('bash', [], { cwd: join(dir, 'missing'), stdio: 'ignore' })
    failed.on('error', () => {})
    expect(() => tasks.adopt({ child: failed, command: 'bash', cwd: dir, initialOutput: '' })).toThrow(
      'cannot adopt "bash": the process never started (no pid)',
    )
    expect(tasks.list()).toEqual([])
  })
})

describe('updates and the registry', () => {
  it('throttles output updates but delivers every status change at once', async () => {
    const updates: TaskSummary[] = []
    const tasks = manager({ onUpdate: (summary) => updates.push(summary), updateThrottleMs: 1_000_000 })
    tasks.launch({ command: 'for i in $(seq 1 200); do echo line $i; done', cwd: dir })
    await tasks.read('b1', { block: true, timeoutMs: LONG })
    // One update when the job appears; output within the throttle window adds none; then the exit.
    expect(updates.map((u) => u.status)).toEqual(['running', 'completed'])
    expect(updates[1]).toMatchObject({
      lastLine: 'line 200',
      outputBytes: (await stat(updates[1]!.logPath)).size,
    })
  })

  it('sends output updates while a job runs when the throttle allows', async () => {
    const updates: TaskSummary[] = []
    const tasks = manager({ onUpdate: (summary) => updates.push(summary), updateThrottleMs: 0 })
    tasks.launch({ command: `echo hello; ${WAIT_FOR_GO}`, cwd: dir })
    await waitFor(() => updates.some((u) => u.lastLine === 'hello'), 'an output update')
    expect(updates.every((u) => u.status === 'running')).toBe(true)
  })

  it('records running jobs in the pid registry and forgets them when they end', async () => {
    const registry = createPidRegistry(join(dir, 'state', 'jobs.json'))
    const processes = createProcessGroups({ registry })
    const tasks = manager({ processes })
    const task = tasks.launch({ command: WAIT_FOR_GO, cwd: dir })
    expect(registry.list()).toMatchObject([
      { pid: task.pid, pgid: task.pid, command: WAIT_FOR_GO, ownerPid: process.pid, kind: 'background' },
    ])
    expect(processes.pids()).toEqual([task.pid])
    await go()
    await tasks.read('b1', { block: true, timeoutMs: LONG })
    expect(registry.list()).toEqual([])
    expect(processes.pids()).toEqual([])
  })

  it('refuses new work after dispose', async () => {
    const tasks = manager()
    await tasks.dispose()
    expect(() => tasks.launch({ command: 'true', cwd: dir })).toThrow(/disposed/)
  })
})
