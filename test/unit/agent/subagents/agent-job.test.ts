import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type AgentJob, createAgentJob } from '../../../../source/agent/subagents/agent-job.js'
import type { TaskSummary } from '../../../../source/store/domain.js'

let dir = ''
let updates: TaskSummary[] = []
let job: AgentJob
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-job-'))
  updates = []
  job = createAgentJob({
    id: 'a1',
    type: 'explore',
    description: 'Find tests',
    logPath: join(dir, 'tasks', 'a1.log'),
    startedAt: 1000,
    onUpdate: (s) => updates.push(s),
    now: () => 5000,
  })
})
afterEach(async () => {
  // The log is written in the background: let it settle before the directory goes.
  job.finish('stopped', '')
  await job.done
  await rm(dir, { recursive: true, force: true })
})

describe('a background subagent as a task', () => {
  it('shows its type, current tool, steps and tokens, and logs one line per event', async () => {
    job.progress({ steps: 1 })
    job.progress({ tool: 'Grep foo' })
    job.progress({ tool: null, tokens: 1500 }, '✓ Grep foo (3 ms)')
    expect(updates.at(-1)).toMatchObject({
      id: 'a1',
      kind: 'agent',
      command: 'explore agent: Find tests',
      description: 'Find tests',
      status: 'running',
      lastLine: '✓ Grep foo (3 ms)',
      agent: { type: 'explore', tool: null, steps: 1, tokens: 1500 },
    })
    const read = await job.read({ block: false, timeoutMs: 0 })
    expect(read).toMatchObject({ status: 'running', exitCode: null, output: '✓ Grep foo (3 ms)\n' })
    expect((await job.read({ block: false, timeoutMs: 0 })).output).toBe('')
  })

  it('blocks a read until it ends, then gives the answer once; the log file holds everything', async () => {
    job.progress({}, 'started')
    const pending = job.read({ block: true, timeoutMs: 10_000 })
    job.finish('completed', 'The tests are in test/.')
    const read = await pending
    expect(read.status).toBe('completed')
    expect(read.output).toBe('started\n── answer ──\nThe tests are in test/.\n')
    expect(job.answerRead()).toBe(true)
    await job.done
    expect(await readFile(join(dir, 'tasks', 'a1.log'), 'utf8')).toBe(read.output)
    expect(updates.at(-1)).toMatchObject({ status: 'completed', endedAt: 5000, lastLine: 'done' })
  })

  it('knows whether the model read the answer yet', async () => {
    await job.read({ block: false, timeoutMs: 0 })
    job.finish('failed', 'half an answer')
    expect(job.answerRead()).toBe(false)
    expect((await job.read({ block: false, timeoutMs: 0 })).output).toContain('── failed; what it had ──')
    expect(job.answerRead()).toBe(true)
  })

  it('stop() aborts its signal and resolves once it has ended', async () => {
    const stopped = job.stop()
    expect(job.signal.aborted).toBe(true)
    job.finish('stopped', '')
    expect((await stopped).status).toBe('stopped')
    expect((await job.stop()).status).toBe('stopped')
  })

  it('a read with a timeout returns while it still runs', async () => {
    const read = await job.read({ block: true, timeoutMs: 10 })
    expect(read.status).toBe('running')
  })
})

describe('a subagent log where a sandboxed command planted something', () => {
  it('a link named like the log: the log gets a fresh name, the link’s target is untouched', async () => {
    const { mkdir, symlink, writeFile, readdir } = await import('node:fs/promises')
    const outputs = join(dir, 'outputs')
    await mkdir(join(outputs, 'tasks'), { recursive: true })
    await mkdir(join(dir, 'home'))
    const bashrc = join(dir, 'home', '.bashrc')
    await writeFile(bashrc, 'export PS1=ok\n')
    await symlink(bashrc, join(outputs, 'tasks', 'a2.log'))
    await symlink(join(dir, 'home', '.profile'), join(outputs, 'tasks', 'a3.log'))
    for (const id of ['a2', 'a3']) {
      const planted = createAgentJob({
        id,
        type: 'explore',
        description: 'x',
        logPath: join(outputs, 'tasks', `${id}.log`),
        privateRoot: outputs,
        startedAt: 1,
        onUpdate: () => undefined,
        now: () => 2,
      })
      planted.progress({}, 'PWNED')
      planted.finish('completed', 'answer')
      await planted.done
      const { logPath } = planted.summary()
      expect(logPath).toMatch(new RegExp(`/${id}\\.[0-9a-f]{12}\\.log$`))
      expect(await readFile(logPath, 'utf8')).toBe('PWNED\n── answer ──\nanswer\n')
    }
    expect(await readFile(bashrc, 'utf8')).toBe('export PS1=ok\n')
    expect(await readdir(join(dir, 'home'))).toEqual(['.bashrc'])
  })
})
