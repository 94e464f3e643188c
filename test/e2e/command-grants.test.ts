/**
 * A user command's `allowed-tools` cover that command's own turn only: the built CLI, headless (ci mode:
 * what would ask is denied), in a trusted folder, against the scripted server. The command's turn starts
 * a background subagent that makes the very call the command allows; the command's own call runs, the
 * subagent's is denied.
 */
import { access, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { agentRouter, isMain, lastToolResult, taskOf } from '../support/agent-router.ts'
import { setupE2eEnv } from '../support/e2e-env.ts'

const env = setupE2eEnv()

const CLEAN = `---
description: Clean up
allowed-tools: Bash(rm:*)
---
Clean up the build output.
`

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })
const exists = (name: string) =>
  access(join(env.box.workspace, name)).then(
    () => true,
    () => false,
  )

describe('headless: -p "/clean" with allowed-tools: Bash(rm:*)', () => {
  it("allows the command's own rm and denies the same rm to the background subagent its turn started", async () => {
    await mkdir(join(env.box.workspace, '.agent-tui', 'commands'), { recursive: true })
    await writeFile(join(env.box.workspace, '.agent-tui', 'commands', 'clean.md'), CLEAN)
    await writeFile(join(env.box.workspace, 'own.txt'), 'x')
    await writeFile(join(env.box.workspace, 'theirs.txt'), 'x')
    const router = agentRouter()
      .main(
        call('Agent', { description: 'Helper', prompt: 'TASK-RM: clean too', run_in_background: true }),
        call('Bash', { command: 'rm own.txt' }),
        call('TaskOutput', { task_id: 'a1', block: true, timeout: 20000 }),
        { text: 'cleaned' },
      )
      .agent('TASK-RM', call('Bash', { command: 'rm theirs.txt' }), { text: 'helper tried' })
    env.server.enqueue(...router.sources())
    const r = await env.cli(['-p', '/clean', '--trust-project'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('cleaned\n')
    expect(await exists('own.txt')).toBe(false)
    expect(await exists('theirs.txt')).toBe(true)
    const main = env.server.requests.filter(isMain)
    expect(lastToolResult(main[2])).toContain('Exit code 0')
    const helper = env.server.requests.filter((q) => !isMain(q) && taskOf(q).includes('TASK-RM'))
    expect(lastToolResult(helper.at(-1))).toMatch(/Bash denied: ci mode denies running commands/)
  })
})
