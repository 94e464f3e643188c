import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createBashTool } from '../../../source/tools/bash.js'
import { readTool } from '../../../source/tools/read.js'
import type { TaskManagerApi } from '../../../source/tasks/types.js'
import type { TaskSummary } from '../../../source/store/domain.js'
import { createTestEnv, isAlive, readIfExists, run, runError, type TestEnv, waitFor } from './helpers.js'

const bash = createBashTool({ isReadOnlyCommand: (command) => command.startsWith('ls') })

let env: TestEnv
beforeEach(async () => {
  env = await createTestEnv()
})
afterEach(async () => {
  await env.cleanup()
})

/** Waits until the command has written its background child's pid to `file`. */
async function pidFrom(file: string): Promise<number> {
  await waitFor(async () => /^\d+\n$/.test((await readIfExists(file)) ?? ''), `pid in ${file}`)
  return Number((await readFile(file, 'utf8')).trim())
}

describe('Bash', () => {
  it('reports the exit code, and a non-zero exit marks the card failed', async () => {
    const ok = await run(bash, { command: 'echo hello' }, env.ctx)
    expect(ok.forModel).toMatch(/^hello\n\nExit code 0 · \d+\.\d s$/)
    expect(ok.failed).toBeUndefined()
    expect(ok.display).toMatchObject({
      kind: 'command',
      command: 'echo hello',
      exitCode: 0,
      output: 'hello\n',
    })
    const bad = await run(bash, { command: 'echo oops >&2; exit 3' }, env.ctx)
    expect(bad.failed).toBe(true)
    expect(bad.forModel).toContain('oops\n\nExit code 3')
    const silent = await run(bash, { command: 'true' }, env.ctx)
    expect(silent.forModel).toMatch(/^\(no output\)\n/)
  })

  it('interleaves stdout and stderr in the order written and reports progress', async () => {
    const result = await run(bash, { command: 'echo a; echo b >&2; echo c; echo d >&2' }, env.ctx)
    expect(result.forModel.startsWith('a\nb\nc\nd\n')).toBe(true)
    expect(env.progress.at(-1)).toBe('a\nb\nc\nd\n')
  })

  it('closes stdin so reading commands do not hang', async () => {
    const result = await run(bash, { command: 'cat; echo done' }, env.ctx)
    expect(result.forModel.startsWith('done\n')).toBe(true)
  })

  it('keeps a cd inside the workspace; environment changes do not persist', async () => {
    await run(bash, { command: 'mkdir -p sub/inner && cd sub/inner && export FOO=bar' }, env.ctx)
    expect(env.ctx.cwd()).toBe(join(env.workspace, 'sub', 'inner'))
    const result = await run(bash, { command: 'pwd; echo "FOO=[$FOO]"' }, env.ctx)
    expect(result.forModel.startsWith(`${join(env.workspace, 'sub', 'inner')}\nFOO=[]\n`)).toBe(true)
    // A cd followed by `exit` still counts.
    await run(bash, { command: 'cd ..; exit 0' }, env.ctx)
    expect(env.ctx.cwd()).toBe(join(env.workspace, 'sub'))
  })

  it('resets the cwd to the workspace when a cd leaves it', async () => {
    await mkdir(join(env.workspace, 'sub'))
    env.ctx.setCwd(join(env.workspace, 'sub'))
    const result = await run(bash, { command: 'cd /' }, env.ctx)
    expect(env.ctx.cwd()).toBe(env.workspace)
    expect(result.forModel).toContain('cwd reset to workspace')
  })

  it('the command cannot redirect where the wrapper records its directory', async () => {
    // `__agent_tui_cwd_file=~/.bashrc` is only an assignment (read-only to the classifier); if the wrapper
    // kept the cwd file's name in a variable, its EXIT trap would overwrite that file with the cwd path.
    const victim = join(env.root, 'victim.rc')
    await writeFile(victim, '# mine\n')
    await run(
      bash,
      { command: `__agent_tui_cwd_file=${victim}; __agent_tui_cmd=x; cd sub 2>/dev/null; true` },
      env.ctx,
    )
    expect(await readFile(victim, 'utf8')).toBe('# mine\n')
    await mkdir(join(env.workspace, 'sub'))
    await run(bash, { command: 'cd sub' }, env.ctx)
    expect(env.ctx.cwd()).toBe(join(env.workspace, 'sub'))
  })

  it('kills the whole process group on timeout and says so', async () => {
    const pidFile = join(env.root, 'timeout.pid')
    const result = await run(
      bash,
      { command: `sleep 300 & echo $! > ${pidFile}; echo started; wait`, timeout: 2_000 },
      env.ctx,
    )
    expect(result.failed).toBe(true)
    expect(result.forModel).toContain('started')
    expect(result.forModel).toContain('timed out after 2000 ms')
    expect(result.display).toMatchObject({ kind: 'command', timedOut: true })
    const pid = await pidFrom(pidFile)
    await waitFor(() => !isAlive(pid), 'the background sleep to die')
  })

  it('abort kills the command and its grandchildren promptly', async () => {
    const pidFile = join(env.root, 'abort.pid')
    const pending = runError(bash, { command: `bash -c 'sleep 300 & echo $! > ${pidFile}; wait'` }, env.ctx)
    const pid = await pidFrom(pidFile)
    expect(isAlive(pid)).toBe(true)
    env.controller.abort()
    const error = await pending
    expect(error.category).toBe('aborted')
    await waitFor(() => !isAlive(pid), 'the grandchild sleep to die')
  })

  it('stops background processes left holding the output when the command ends', async () => {
    const pidFile = join(env.root, 'left.pid')
    const result = await run(bash, { command: `sleep 300 & echo $! > ${pidFile}` }, env.ctx)
    expect(result.forModel).toContain('Background processes started by the command were stopped')
    const pid = await pidFrom(pidFile)
    await waitFor(() => !isAlive(pid), 'the leftover sleep to die')
  })

  it('spills output over 30000 chars and Read restores it in full', async () => {
    const command = 'for i in $(seq 1 3000); do echo "line $i of the long output"; done'
    const expected = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} of the long output`)
    const result = await run(bash, { command }, env.ctx)
    expect(result.forModel.length).toBeLessThan(31_000)
    expect(result.forModel.startsWith('line 1 of the long output\n')).toBe(true)
    expect(result.forModel).toContain('line 3000 of the long output')
    const path = /full output: (\S+) \(lines \d+–\d+; Read it with offset\/limit\)/.exec(result.forModel)?.[1]
    expect(path).toBeDefined()
    expect(env.ctx.spill.isSpillPath(path ?? '')).toBe(true)
    expect(result.display).toMatchObject({ kind: 'command', truncated: true })
    // Page through the spill file the way the model would, following Read's offset notes.
    const body: string[] = []
    for (let offset = 1, pages = 0; offset > 0 && pages < 10; pages++) {
      const page = await run(readTool, { file_path: path, offset }, env.ctx)
      const [numbered = '', note] = page.forModel.split('\n\n[')
      body.push(...numbered.split('\n').map((line) => line.replace(/^ *\d+\t/, '')))
      offset = Number(/offset=(\d+)/.exec(note ?? '')?.[1] ?? 0)
    }
    expect(body).toEqual(expected)
  })

  it('refuses run_in_background without a task manager, and launches with one', async () => {
    const error = await runError(bash, { command: 'sleep 1', run_in_background: true }, env.ctx)
    expect(error.category).toBe('execution')
    expect(error.message).toBe('background jobs are not available in this build')

    const launched: string[] = []
    const summary: TaskSummary = {
      id: 'b1',
      kind: 'bash',
      command: 'npm run dev',
      status: 'running',
      exitCode: null,
      startedAt: 0,
      endedAt: null,
      lastLine: '',
      outputBytes: 0,
      logPath: '/tmp/b1.log',
    }
    const tasks: TaskManagerApi = {
      launch: (opts) => {
        launched.push(`${opts.command} @ ${opts.cwd}`)
        return summary
      },
      get: () => summary,
      list: () => [summary],
      read: async () => ({
        status: 'running',
        exitCode: null,
        output: '',
        droppedBytes: 0,
        logPath: summary.logPath,
      }),
      stop: async () => summary,
      stopAll: async () => undefined,
    }
    const withTasks = await createTestEnv({ tasks })
    try {
      const result = await run(bash, { command: 'npm run dev', run_in_background: true }, withTasks.ctx)
      expect(launched).toEqual([`npm run dev @ ${withTasks.workspace}`])
      expect(result.forModel).toContain('Started background task b1')
      expect(result.display).toEqual({ kind: 'task', taskId: 'b1', status: 'running' })
    } finally {
      await withTasks.cleanup()
    }
  })

  it('classifies, labels and previews commands', async () => {
    expect(bash.isReadOnly({ command: 'ls -la' })).toBe(true)
    expect(bash.isReadOnly({ command: 'rm -rf x' })).toBe(false)
    expect(await bash.permissionTarget({ command: 'npm test' }, env.ctx)).toEqual({
      kind: 'command',
      command: 'npm test',
    })
    expect(bash.summarize({ command: 'npm test' })).toBe('Bash npm test')
    expect(await bash.preview({ command: 'npm test' }, env.ctx)).toEqual({
      kind: 'command',
      command: 'npm test',
      cwd: env.workspace,
    })
  })

  it('rejects timeouts over the maximum at validation', () => {
    expect(bash.schema.safeParse({ command: 'x', timeout: 600_001 }).success).toBe(false)
    expect(bash.schema.safeParse({ command: 'x', timeout: 600_000 }).success).toBe(true)
  })
})
