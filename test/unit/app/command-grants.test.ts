import { execFileSync } from 'node:child_process'
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseArgs } from '../../../source/config/flags.js'
import { loadSettings } from '../../../source/config/load.js'
import { resolvePaths } from '../../../source/config/app-paths.js'
import { resolveConfig } from '../../../source/config/resolve-config.js'
import { expandCommand } from '../../../source/extensions/expand.js'
import type { CommandDefinition } from '../../../source/extensions/types.js'
import { createSession, type Session } from '../../../source/app/session/create-session.js'
import { agentCall, agentRouter, isMain, lastToolResult, taskOf } from '../../support/agent-router.ts'
import { type ScriptedServer, startScriptedServer } from '../../support/scripted-server.ts'
import { waitFor } from '../tasks/helpers.js'

/**
 * A user command's `allowed-tools` cover its own turn's calls only: in a whole session built in-process
 * (the CLI's wiring, real subagents, real Bash), in ci mode where what would ask is denied, a subagent
 * running beside the command's turn — started by it, in the background or not, or started before it —
 * makes the same call and is denied, and nothing is left granted once the turn is over.
 */

let server: ScriptedServer
let root: string
let workspace: string
let session: Session | undefined

beforeEach(async () => {
  server = await startScriptedServer()
  root = await mkdtemp(join(tmpdir(), 'agent-tui-command-grants-'))
  workspace = join(root, 'work')
  await mkdir(join(root, 'home'), { recursive: true })
  await mkdir(workspace, { recursive: true })
  for (const name of ['own.txt', 'bg.txt', 'fg.txt', 'early.txt', 'later.txt']) {
    await writeFile(join(workspace, name), name)
  }
})
afterEach(async () => {
  await session?.close()
  session = undefined
  expect(server.pairingViolations).toEqual([])
  await server.close()
  await rm(root, { recursive: true, force: true })
})

async function open(args: string[] = []): Promise<Session> {
  const home = join(root, 'home')
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(home, '.state') }
  const loaded = await loadSettings({ cwd: workspace, env, home })
  session = await createSession({
    config: resolveConfig(parseArgs(['--mode', 'ci', ...args]), loaded, env),
    paths: resolvePaths(env, home),
    endpoint: { baseUrl: server.baseUrl, model: 'm' },
    workspace,
    interactive: false,
  })
  return session
}

const CLEAN: CommandDefinition = {
  name: 'clean',
  scope: 'project',
  namespace: [],
  description: 'Clean up',
  allowedTools: ['Bash(rm *)'],
  readBody: async () => 'Clean up the workspace.',
  file: '.agent-tui/commands/clean.md',
}
const runClean = (s: Session) =>
  s.runtime.runTurn({ text: '/clean', command: expandCommand(CLEAN, 'Clean up the workspace.', '') })

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })
const exists = (name: string) =>
  access(join(workspace, name)).then(
    () => true,
    () => false,
  )
const agentResult = (key: string) =>
  lastToolResult(server.requests.filter((r) => !isMain(r) && taskOf(r).includes(key)).at(-1))

describe("a user command's allowed-tools", () => {
  it('allow its own calls, not a subagent it starts, in the background or not', async () => {
    const router = agentRouter()
      .main(
        {
          toolCalls: [
            agentCall({ description: 'Bg', prompt: 'TASK-BG: clean', run_in_background: true }),
            agentCall({ description: 'Fg', prompt: 'TASK-FG: clean' }),
            { name: 'Bash', arguments: { command: 'rm own.txt' } },
          ],
        },
        call('TaskOutput', { task_id: 'a1', block: true, timeout: 20000 }),
        { text: 'cleaned' },
        call('Bash', { command: 'rm later.txt' }),
        { text: 'next turn' },
      )
      .agent('TASK-BG', call('Bash', { command: 'rm bg.txt' }), { text: 'bg tried' })
      .agent('TASK-FG', call('Bash', { command: 'rm fg.txt' }), { text: 'fg tried' })
    server.enqueue(...router.sources())
    const s = await open()
    expect((await runClean(s)).kind).toBe('completed')
    expect(await exists('own.txt')).toBe(false)
    expect(await exists('bg.txt')).toBe(true)
    expect(await exists('fg.txt')).toBe(true)
    for (const key of ['TASK-BG', 'TASK-FG']) {
      expect(agentResult(key)).toMatch(
        /Bash denied: ci mode denies running commands without an allow rule \(`rm /,
      )
    }
    // Over with its turn.
    await s.runtime.runTurn({ text: 'and now?' })
    expect(await exists('later.txt')).toBe(true)
    expect(lastToolResult(server.requests.filter(isMain).at(-1))).toMatch(/ci mode denies/)
  })

  it('do not reach a background subagent started before the command, while the command runs', async () => {
    execFileSync('mkfifo', [join(workspace, 'gate.fifo')])
    const router = agentRouter()
      .main(
        call('Agent', {
          description: 'Early',
          prompt: 'TASK-EARLY: wait, then clean',
          run_in_background: true,
        }),
        { text: 'started' },
        call('Bash', { command: 'rm own.txt' }),
        call('TaskOutput', { task_id: 'a1', block: true, timeout: 20000 }),
        { text: 'cleaned' },
      )
      // Reading the FIFO blocks until the test writes it, once the command's turn is under way.
      .agent(
        'TASK-EARLY',
        call('Bash', { command: 'cat gate.fifo' }),
        call('Bash', { command: 'rm early.txt' }),
        {
          text: 'early tried',
        },
      )
    server.enqueue(...router.sources())
    const s = await open(['--allowed-tools', 'Bash(cat gate.fifo)'])
    await s.runtime.runTurn({ text: 'start a helper' })
    await waitFor(
      () => s.store.getState().tasks.byId.a1?.agent?.tool?.startsWith('Bash') === true,
      'the early agent to wait on the FIFO',
    )
    const turn = runClean(s)
    await waitFor(async () => !(await exists('own.txt')), "the command's own rm")
    await writeFile(join(workspace, 'gate.fifo'), 'go\n')
    expect((await turn).kind).toBe('completed')
    expect(await exists('early.txt')).toBe(true)
    expect(agentResult('TASK-EARLY')).toMatch(
      /Bash denied: ci mode denies running commands without an allow rule \(`rm /,
    )
  })
})
