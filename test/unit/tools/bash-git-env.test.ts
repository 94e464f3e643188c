import { execFileSync } from 'node:child_process'
import { chmod, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isReadOnlyCommand } from '../../../source/permissions/classifier.js'
import { createTaskManager, type TaskManager } from '../../../source/tasks/task-manager.js'
import { createBashTool } from '../../../source/tools/bash.js'
import type { ToolContext } from '../../../source/tools/types.js'
import { createTestEnv, run, type TestEnv, waitFor } from './helpers.js'

/**
 * The Bash tool runs a command the classifier judged read-only with the git settings that execute on a
 * read fixed (permissions/git-read-only.ts), in the foreground and as a background job; a command that
 * is not read-only (one the user approved) keeps the repository's own behaviour. Real git, real bash.
 */

const bash = createBashTool({ isReadOnlyCommand })

let env: TestEnv
let tasks: TaskManager
let ctx: ToolContext
let markers: string

beforeEach(async () => {
  env = await createTestEnv()
  tasks = createTaskManager({ outputsDir: join(env.root, 'outputs'), killGraceMs: 500 })
  ctx = { ...env.ctx, tasks }
  markers = join(env.root, 'markers')
  execFileSync('mkdir', [markers])
  const script = join(env.root, 'ran.sh')
  await writeFile(script, `#!/bin/sh\ntouch "${markers}/$1"\nexit 1\n`)
  await chmod(script, 0o755)
  const git = (...args: string[]) => execFileSync('git', args, { cwd: env.workspace })
  git('init', '-q')
  await writeFile(join(env.workspace, 'a.txt'), 'a\n')
  git('add', '.')
  git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'one')
  await writeFile(join(env.workspace, 'a.txt'), 'b\n')
  git('config', 'core.fsmonitor', `${script} fsmonitor`)
})
afterEach(async () => {
  await tasks.dispose()
  await env.cleanup()
})

describe('Bash and read-only git', () => {
  it('a read-only git command runs without the repository’s fsmonitor, in the foreground', async () => {
    const result = await run(bash, { command: 'git status --short' }, ctx)
    expect(result.forModel).toContain(' M a.txt')
    expect(await readdir(markers)).toEqual([])
  })

  it('and as a background job', async () => {
    const started = await run(bash, { command: 'git status --short', run_in_background: true }, ctx)
    const id = /background task (b\d+)/.exec(started.forModel)?.[1] ?? 'none'
    await waitFor(() => tasks.get(id)?.status === 'completed', 'the job to end')
    expect(await readdir(markers)).toEqual([])
  })

  it('a command that is not read-only keeps the repository’s settings (the user approved it)', async () => {
    await run(bash, { command: 'git status --short && touch b.txt' }, ctx)
    expect(await readdir(markers)).toEqual(['fsmonitor'])
  })
})
