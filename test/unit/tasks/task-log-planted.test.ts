import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTaskManager, type TaskManager } from '../../../source/tasks/task-manager.js'
import { killGroupQuietly, makeTempDir } from './helpers.js'

/**
 * The outputs dir is writable inside the Bash sandbox: a sandboxed command can plant a link named like
 * the next job's log. The log must never be written through it, and the job's output must not be lost.
 */
let dir: string
let cleanup: () => Promise<void>
let tasks: TaskManager
let outputs: string
let logs: string
let bashrc: string

beforeEach(async () => {
  ;({ dir, cleanup } = await makeTempDir())
  outputs = join(dir, 'outputs')
  logs = join(outputs, 'run-1', 'tasks')
  mkdirSync(logs, { recursive: true })
  mkdirSync(join(dir, 'home'))
  bashrc = join(dir, 'home', '.bashrc')
  writeFileSync(bashrc, 'export PS1=ok\n')
  tasks = createTaskManager({ outputsDir: join(outputs, 'run-1'), privateRoot: outputs })
})
afterEach(async () => {
  await tasks.dispose()
  await cleanup()
})

const untouched = () => expect(readFileSync(bashrc, 'utf8')).toBe('export PS1=ok\n')

describe('a job log where something was planted', () => {
  it('a symlink named like the next log: the log gets a fresh name, the target is untouched', async () => {
    symlinkSync(bashrc, join(logs, 'b1.log'))
    const task = tasks.launch({ command: 'echo PWNED', cwd: dir })
    expect(task.logPath).toMatch(/\/b1\.[0-9a-f]{12}\.log$/)
    const result = await tasks.read('b1', { block: true, timeoutMs: 20_000 })
    expect(result.output).toBe('PWNED\n')
    expect(readFileSync(task.logPath, 'utf8')).toBe('PWNED\n')
    untouched()
  })

  it('a dangling symlink: its target is not created', async () => {
    const profile = join(dir, 'home', '.profile')
    symlinkSync(profile, join(logs, 'b1.log'))
    tasks.launch({ command: 'echo PWNED', cwd: dir })
    await tasks.read('b1', { block: true, timeoutMs: 20_000 })
    expect(readdirSync(join(dir, 'home'))).toEqual(['.bashrc'])
  })

  it('a FIFO named like the log does not block the launch', async () => {
    execFileSync('mkfifo', [join(logs, 'b1.log')])
    const task = tasks.launch({ command: 'echo fine', cwd: dir })
    expect(task.logPath).not.toBe(join(logs, 'b1.log'))
    expect((await tasks.read('b1', { block: true, timeoutMs: 20_000 })).output).toBe('fine\n')
  })

  it('the log folder replaced by a link: a specific error, and nothing is started or written there', () => {
    rmSync(logs, { recursive: true })
    symlinkSync(join(dir, 'home'), logs)
    expect(() => tasks.launch({ command: 'echo PWNED > marker', cwd: dir })).toThrow(
      /cannot create the task log directory .*tasks is a symbolic link; agent-tui does not write through links/,
    )
    expect(readdirSync(join(dir, 'home'))).toEqual(['.bashrc'])
    expect(readdirSync(dir)).not.toContain('marker')
  })

  it('a process taken over from the foreground gets a fresh log too', async () => {
    symlinkSync(bashrc, join(logs, 'b1.log'))
    const child = spawn('bash', ['-c', 'echo adopted; sleep 0.2'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    try {
      const task = tasks.adopt({ child, command: 'adopted', cwd: dir, initialOutput: 'before\n' })
      expect(task.logPath).toMatch(/\/b1\.[0-9a-f]{12}\.log$/)
      const result = await tasks.read('b1', { block: true, timeoutMs: 20_000 })
      expect(result.output).toBe('before\nadopted\n')
      expect(readFileSync(task.logPath, 'utf8')).toBe('before\nadopted\n')
    } finally {
      killGroupQuietly(child.pid)
    }
    untouched()
  })
})
