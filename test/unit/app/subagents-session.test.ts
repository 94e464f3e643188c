import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseArgs } from '../../../source/config/flags.js'
import { loadSettings } from '../../../source/config/load.js'
import { resolvePaths } from '../../../source/config/app-paths.js'
import { openProjectTrust } from '../../../source/config/project-trust.js'
import { DEFAULT_MAX_STEPS, resolveConfig } from '../../../source/config/resolve-config.js'
import { DEFAULT_BREAKER } from '../../../source/agent/turn/circuit-breaker.js'
import { createSession, type Session } from '../../../source/app/session/create-session.js'
import {
  agentCall,
  agentRouter,
  isMain,
  lastToolResult,
  messagesOf,
  systemOf,
  taskOf,
  toolNamesOf,
} from '../../support/agent-router.ts'
import { type ScriptedServer, startScriptedServer } from '../../support/scripted-server.ts'
import { waitFor } from '../tasks/helpers.js'

/**
 * Subagents in a whole session built in-process (the same wiring as the CLI), where a test can act as
 * the user: interrupt, answer a consent prompt, switch agents, trust the folder.
 */

let server: ScriptedServer
let root: string
let session: Session | undefined

beforeEach(async () => {
  server = await startScriptedServer()
  root = await mkdtemp(join(tmpdir(), 'agent-tui-subagents-'))
  await mkdir(join(root, 'home'), { recursive: true })
  await mkdir(join(root, 'work'), { recursive: true })
})
afterEach(async () => {
  await session?.close()
  session = undefined
  expect(server.pairingViolations).toEqual([])
  await server.close()
  await rm(root, { recursive: true, force: true })
})

async function open(opts: { interactive: boolean; mode: string; withTrust?: boolean }) {
  const home = join(root, 'home')
  const workspace = join(root, 'work')
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(home, '.state') }
  const paths = resolvePaths(env, home)
  const loaded = await loadSettings({ cwd: workspace, env, home })
  const args = parseArgs(['--mode', opts.mode])
  const trust = opts.withTrust
    ? await openProjectTrust({
        workspace,
        home,
        storeFile: paths.trustStoreFile,
        ledgerFile: paths.localSettingsLedgerFile,
        loaded,
        trustFlag: false,
        baseline: { maxSteps: DEFAULT_MAX_STEPS, breaker: DEFAULT_BREAKER },
      })
    : undefined
  const configFor = (trusted: boolean) =>
    resolveConfig(args, trust ? trust.settings(trusted).loaded : loaded, env)
  session = await createSession({
    config: configFor(false),
    paths,
    endpoint: { baseUrl: server.baseUrl, model: 'm' },
    workspace,
    interactive: opts.interactive,
    ...(trust ? { projectTrust: { trust, configFor } } : {}),
  })
  return { session, trust, workspace }
}

const main = () => server.requests.filter(isMain)

describe('subagents in a session', () => {
  it('interrupting the main session stops its foreground subagents but not a background one; every request stays paired', async () => {
    const router = agentRouter()
      .main(
        {
          toolCalls: [
            agentCall({ description: 'Bg', prompt: 'TASK-BG: wait', run_in_background: true }),
            agentCall({ description: 'Sleeper', prompt: 'TASK-SLEEP: run a long command' }),
            agentCall({ description: 'Thinker', prompt: 'TASK-THINK: think', subagent_type: 'explore' }),
          ],
        },
        { text: 'after the interrupt' },
      )
      .agent('TASK-BG', call('Bash', { command: 'until [ -f go ]; do sleep 0.02; done' }), {
        text: 'bg done',
      })
      .agent('TASK-SLEEP', call('Bash', { command: 'sleep 30' }), { text: 'never' })
      .agent('TASK-THINK', { text: 'never', hangAfterChunks: 0 })
    server.enqueue(...router.sources())
    const { session, workspace } = await open({ interactive: false, mode: 'dangerous' })
    const turn = session.runtime.runTurn({ text: 'go' })
    // Interrupted while the thinker's stream hangs, the sleeper runs its command and a1 waits for a file.
    await waitFor(
      () =>
        server.requests.some((r) => taskOf(r).includes('TASK-THINK')) &&
        session.store.getState().tasks.byId.a1?.agent?.tool?.startsWith('Bash') === true &&
        server.requests.filter((r) => taskOf(r).includes('TASK-SLEEP')).length === 1,
      'the subagents to be busy',
    )
    session.runtime.interrupt()
    const result = await turn
    expect(result.kind).toBe('interrupted')
    expect(session.store.getState().tasks.byId.a1?.status).toBe('running')
    await writeFile(join(workspace, 'go'), '')
    await waitFor(
      () => session.store.getState().tasks.byId.a1?.status === 'completed',
      'the background agent to finish',
    )
    await session.runtime.runTurn({ text: 'continue' })
    const next = messagesOf(main().at(-1))
    const results = next.filter((m) => m.role === 'tool').map((m) => String(m.content))
    expect(results[0]).toContain('Started background agent a1')
    expect(results[1]).toContain('cancelled')
    expect(results[2]).toContain('cancelled')
    // The background agent's end is told before the new message.
    expect(String(next.at(-2)?.content)).toMatch(
      /<background-agent id="a1" status="completed">[\s\S]*bg done/,
    )
    expect(next.at(-1)).toEqual({ role: 'user', content: 'continue' })
  })

  it("shows a subagent's permission request in the main prompt, labelled, and runs it once allowed", async () => {
    const router = agentRouter()
      .main(call('Agent', { description: 'Write it', prompt: 'TASK-W: write a file' }), { text: 'written' })
      .agent('TASK-W', call('Write', { file_path: 'out.txt', content: 'from the subagent\n' }), {
        text: 'wrote out.txt',
      })
    server.enqueue(...router.sources())
    const { session, workspace } = await open({ interactive: true, mode: 'safe' })
    const turn = session.runtime.runTurn({ text: 'delegate' })
    await waitFor(() => session.store.getState().consent.queue.length === 1, 'the consent request')
    const state = session.store.getState()
    const request = state.consent.byId[state.consent.queue[0] as string]
    expect(request).toMatchObject({ tool: 'Write', agent: 'general-purpose · Write it', risk: 'edit' })
    session.commands.resolveConsent(request?.id as string, { kind: 'once' })
    expect((await turn).kind).toBe('completed')
    expect(await readFile(join(workspace, 'out.txt'), 'utf8')).toBe('from the subagent\n')
    expect(lastToolResult(main()[1])).toContain('wrote out.txt')
    // Its tokens count in the session's.
    expect(session.store.getState().usage.subagents.input).toBeGreaterThan(0)
  })

  it('/agents switches the main agent: a new system prompt and tools from the next request, said in a notice', async () => {
    server.enqueue({ text: 'one' }, { text: 'two' })
    const { session } = await open({ interactive: true, mode: 'safe' })
    await session.runtime.runTurn({ text: 'first' })
    const listing = session.commands.listAgents()
    expect(listing.current).toBe('build')
    expect(listing.agents.map((a) => a.name)).toEqual(['build', 'general-purpose', 'explore', 'plan'])
    const text = await session.runtime.switchAgent('plan')
    expect(text).toContain("provider's prompt cache starts over")
    await session.runtime.runTurn({ text: 'second' })
    const [first, second] = server.requests
    expect(systemOf(first)).not.toContain('# Agent profile')
    expect(systemOf(second)).toContain('# Agent profile: plan')
    expect(toolNamesOf(second)).toEqual(['Bash', 'Read', 'Glob', 'Grep', 'WebFetch', 'WebSearch'])
    expect(session.store.getState().agent).toBe('plan')
    await expect(session.runtime.switchAgent('nobody')).rejects.toThrow(/no agent "nobody"; agents: build/)
  })

  it('a project agent that appears when the user trusts the folder is announced, never added to the definitions', async () => {
    const dir = join(root, 'work', '.agent-tui', 'agents')
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, 'helper.md'), '---\ndescription: Helps out\n---\nYou are the HELPER.\n')
    const router = agentRouter()
      .main(
        { text: 'hello' },
        call('Agent', { description: 'Help', prompt: 'TASK-H: help', subagent_type: 'helper' }),
        {
          text: 'ok',
        },
      )
      .agent('TASK-H', { text: 'helped' })
    server.enqueue(...router.sources())
    const { session, trust } = await open({ interactive: true, mode: 'safe', withTrust: true })
    await session.runtime.runTurn({ text: 'first' })
    await trust?.decide('trust-folder')
    await waitFor(
      () => session.commands.listAgents().agents.some((a) => a.name === 'helper'),
      'the agent to load',
    )
    await session.runtime.runTurn({ text: 'now use it' })
    const [before, after] = main()
    expect(JSON.stringify(after?.body.tools)).toBe(JSON.stringify(before?.body.tools))
    const told = messagesOf(after).at(-2)
    expect(String(told?.content)).toMatch(/<agents-changed>[\s\S]*- helper: Helps out/)
    expect(lastToolResult(main()[2])).toContain('helped')
  })
})

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] })
