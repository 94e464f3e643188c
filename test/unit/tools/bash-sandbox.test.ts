/**
 * The Bash tool with the session's sandbox: what it tells the policy and the consent prompt, that it
 * runs fenced (foreground and background), and that an unavailable sandbox never fences silently.
 */
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createBashSandbox } from '../../../source/sandbox/bash-sandbox.js'
import { createTaskManager, type TaskManager } from '../../../source/tasks/task-manager.js'
import { createBashTool } from '../../../source/tools/bash.js'
import { osSandbox } from '../../support/os-sandbox.ts'
import { createTestEnv, run, type TestEnv } from './helpers.js'

const bash = createBashTool({ isReadOnlyCommand: () => false })

let env: TestEnv | undefined
let manager: TaskManager | undefined
afterEach(async () => {
  await manager?.dispose()
  manager = undefined
  await env?.cleanup()
  env = undefined
})

async function sandboxedEnv(extra: Record<string, string> = {}, withTasks = false): Promise<TestEnv> {
  env = await createTestEnv({
    sandbox: ({ workspace, outputs }) =>
      createBashSandbox({
        network: false,
        projectRoots: [workspace],
        scratchRoots: [outputs],
        env: { ...process.env, ...extra },
      }),
  })
  if (withTasks) {
    manager = createTaskManager({ outputsDir: join(env.root, 'outputs') })
    Object.assign(env.ctx, { tasks: manager })
  }
  return env
}

describe('Bash when the sandbox is unavailable', () => {
  it.runIf(process.platform === 'linux')(
    'tells the policy nothing (so it asks) and the prompt that the command runs unsandboxed',
    async () => {
      const e = await sandboxedEnv({ AGENT_TUI_BWRAP: '/nonexistent/bwrap' })
      expect(await bash.permissionTarget({ command: 'touch x' }, e.ctx)).toEqual({
        kind: 'command',
        command: 'touch x',
      })
      expect(await bash.preview({ command: 'touch x' }, e.ctx)).toMatchObject({
        sandbox: { status: 'unavailable', network: false },
      })
      // The user allowed it: it runs, unsandboxed, and its write outside lands.
      const result = await run(bash, { command: 'touch ../allowed-outside.txt' }, e.ctx)
      expect(result.failed).toBeUndefined()
      expect(existsSync(join(e.root, 'allowed-outside.txt'))).toBe(true)
    },
  )
})

describe.runIf(osSandbox?.kind === 'bwrap')('Bash in the sandbox', () => {
  it('gives the policy what the command may write, and the prompt that it runs fenced', async () => {
    const e = await sandboxedEnv()
    const target = await bash.permissionTarget({ command: 'touch x' }, e.ctx)
    expect(target).toMatchObject({ kind: 'command', command: 'touch x' })
    expect(target.kind === 'command' && target.sandbox?.writableRoots).toEqual(
      expect.arrayContaining([e.workspace, join(e.root, 'outputs')]),
    )
    expect(target.kind === 'command' && target.sandbox?.projectRoots).toEqual([e.workspace])
    expect(await bash.preview({ command: 'touch x' }, e.ctx)).toMatchObject({
      sandbox: { status: 'on', network: false },
    })
  })

  it('runs fenced: the real error, and a note that says why, go to the model', async () => {
    const e = await sandboxedEnv()
    const result = await run(bash, { command: 'touch inside.txt ../outside.txt' }, e.ctx)
    expect(result.failed).toBe(true)
    expect(result.forModel).toContain("touch: cannot touch '../outside.txt': Read-only file system")
    expect(result.forModel).toContain('It ran in the OS sandbox')
    expect(existsSync(join(e.workspace, 'inside.txt'))).toBe(true)
    expect(existsSync(join(e.root, 'outside.txt'))).toBe(false)
    // A command that succeeds gets no note.
    expect((await run(bash, { command: 'echo fine' }, e.ctx)).forModel).not.toContain('sandbox')
  })

  it('a sandboxed command that outlives its timeout moves to the background, still fenced', async () => {
    const e = await sandboxedEnv({}, true)
    const command = 'echo early; while [ ! -e go ]; do sleep 0.05; done; touch ../late-outside.txt; echo late'
    const moved = await run(bash, { command, timeout: 300 }, e.ctx)
    expect(moved.forModel).toContain('moved to background task b1')
    expect(moved.forModel).toContain('early')
    await writeFile(join(e.workspace, 'go'), '')
    const read = await manager!.read('b1', { block: true, timeoutMs: 20_000 })
    expect(read.output).toContain('Read-only file system')
    expect(read.output).toContain('late')
    expect(existsSync(join(e.root, 'late-outside.txt'))).toBe(false)
  })

  it('runs background jobs fenced', async () => {
    const e = await sandboxedEnv({}, true)
    await run(bash, { command: 'touch ../bg.txt; echo ok > bg-in.txt', run_in_background: true }, e.ctx)
    const read = await manager!.read('b1', { block: true, timeoutMs: 20_000 })
    expect(read.output).toContain('Read-only file system')
    expect(existsSync(join(e.workspace, 'bg-in.txt'))).toBe(true)
    expect(existsSync(join(e.root, 'bg.txt'))).toBe(false)
  })
})
