import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_BREAKER } from '../../../../source/agent/turn/circuit-breaker.js'
import { Runtime } from '../../../../source/agent/runtime/runtime.js'
import { createOpenAIProvider } from '../../../../source/provider/client.js'
import { createStore, type Store } from '../../../../source/store/create-store.js'
import type { TaskSummary } from '../../../../source/store/domain.js'
import { initialState } from '../../../../source/store/state.js'
import { createFileStateTracker } from '../../../../source/tools/file-state.js'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'
import { allowAllGate, echoTool } from '../turn/loop-harness.js'

let server: ScriptedServer
afterEach(async () => {
  expect(server.pairingViolations).toEqual([])
  await server.close()
})

function setup() {
  const store = createStore(
    initialState({ id: 's', cwd: process.cwd(), model: 'm', baseUrl: 'x', title: '', startedAt: 0 }, 'safe'),
  )
  const runtime = new Runtime({
    store,
    provider: createOpenAIProvider({ baseUrl: server.baseUrl, baseDelayMs: 1 }),
    tools: [echoTool()],
    gate: {
      ...allowAllGate,
      resolve: () => undefined,
      cancelAll: () => undefined,
      describeRules: () => ({ allow: [], ask: [], deny: [], savedTo: 'settings.local.json' }),
    },
    workspace: process.cwd(),
    sessionId: 's',
    files: createFileStateTracker(),
    spill: {
      dir: '/tmp',
      spill: async () => '/tmp/x',
      open: () => {
        throw new Error('no spill in this test')
      },
      isSpillPath: () => false,
    },
    systemPrompt: 'system',
    capabilities: () => ({ supportsVision: false, supportsAllowedTools: false }),
    maxSteps: 10,
    breaker: DEFAULT_BREAKER,
    interactive: true,
  })
  return { store, runtime }
}

function job(status: TaskSummary['status'], over: Partial<TaskSummary> = {}): TaskSummary {
  return {
    id: 'b1',
    kind: 'bash',
    command: 'npm run build',
    status,
    exitCode: status === 'running' ? null : 0,
    startedAt: 0,
    endedAt: status === 'running' ? null : 1,
    lastLine: 'built in 2s',
    outputBytes: 12,
    logPath: '/state/b1.log',
    ...over,
  }
}

const notices = (store: Store) =>
  Object.values(store.getState().transcript.items).flatMap((i) => (i.kind === 'notice' ? [i.text] : []))
type Msg = { role: string; content: unknown }
const messagesOf = (i: number) => (server.requests[i]?.body.messages ?? []) as Msg[]

describe('finished background work while the agent is idle', () => {
  it('shows a notice at once and tells the model with the next turn, before the user message', async () => {
    server = await startScriptedServer({ replies: [{ text: 'noted' }] })
    const { store, runtime } = setup()
    store.dispatch({ type: 'task/updated', task: job('running') })
    expect(notices(store)).toEqual([])
    store.dispatch({ type: 'task/updated', task: job('completed') })
    expect(notices(store)).toEqual([
      'Background task b1 finished (completed, exit code 0): npm run build — the agent is told with your next message.',
    ])
    expect(server.requests).toHaveLength(0)
    await runtime.runTurn({ text: 'what next?' })
    const users = messagesOf(0)
      .filter((m) => m.role === 'user')
      .map((m) => String(m.content))
    expect(users).toHaveLength(2)
    expect(users[0]).toMatch(/^\[Background task b1 finished: `npm run build` — completed, exit code 0\./)
    expect(users[0]).toContain('Last output line: "built in 2s"')
    expect(users[1]).toBe('what next?')
    // Told once.
    server.enqueue({ text: 'again' })
    await runtime.runTurn({ text: 'and now?' })
    expect(messagesOf(1).filter((m) => String(m.content).startsWith('[Background task'))).toHaveLength(1)
  })

  it('a job running at /clear ends in the old conversation: not told to the new one, and the user knows', async () => {
    server = await startScriptedServer({ replies: [{ text: 'fresh' }, { text: 'again' }] })
    const { store, runtime } = setup()
    store.dispatch({ type: 'task/updated', task: job('running', { id: 'b1' }) })
    runtime.clear()
    store.dispatch({ type: 'task/updated', task: job('completed', { id: 'b1', exitCode: 0 }) })
    // One started after the clear is the new conversation's.
    store.dispatch({ type: 'task/updated', task: job('running', { id: 'b2' }) })
    store.dispatch({ type: 'task/updated', task: job('completed', { id: 'b2', exitCode: 0 }) })
    await runtime.runTurn({ text: 'hi' })
    const told = messagesOf(0).filter((m) => String(m.content).startsWith('[Background'))
    expect(told).toHaveLength(1)
    expect(String(told[0]?.content)).toContain('"b2"')
    expect(
      notices(store).some((n) =>
        /b1 was started before \/clear, so the new conversation is not told of it/.test(n),
      ),
    ).toBe(true)
  })

  it('says nothing of jobs stopped on the way out, and /clear drops what was pending', async () => {
    server = await startScriptedServer({ replies: [{ text: 'fresh' }] })
    const { store, runtime } = setup()
    store.dispatch({ type: 'task/updated', task: job('running') })
    store.dispatch({ type: 'task/updated', task: job('failed', { id: 'b1', exitCode: 1 }) })
    runtime.clear()
    await runtime.runTurn({ text: 'hi' })
    expect(messagesOf(0).filter((m) => String(m.content).startsWith('[Background'))).toEqual([])
    store.dispatch({ type: 'task/updated', task: job('running', { id: 'b2' }) })
    await runtime.shutdown()
    store.dispatch({ type: 'task/updated', task: job('stopped', { id: 'b2', exitCode: 143 }) })
    expect(notices(store).some((n) => n.includes('b2'))).toBe(false)
  })
})
