import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_BREAKER } from '../../../../source/agent/turn/circuit-breaker.js'
import { Runtime } from '../../../../source/agent/runtime/runtime.js'
import { createOpenAIProvider } from '../../../../source/provider/client.js'
import { createStore, type Store } from '../../../../source/store/create-store.js'
import { initialState } from '../../../../source/store/state.js'
import { createFileStateTracker } from '../../../../source/tools/file-state.js'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'
import { allowAllGate, echoTool } from '../turn/loop-harness.js'

let server: ScriptedServer
afterEach(async () => {
  expect(server.pairingViolations).toEqual([])
  await server.close()
})

function makeRuntime(store: Store, files = createFileStateTracker(), vision = false) {
  return new Runtime({
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
    files,
    spill: {
      dir: '/tmp',
      spill: async () => '/tmp/x',
      open: () => {
        throw new Error('this test streams no output to spill files')
      },
      isSpillPath: () => false,
    },
    systemPrompt: 'system',
    capabilities: () => ({ supportsVision: vision, supportsAllowedTools: false }),
    maxSteps: 10,
    breaker: DEFAULT_BREAKER,
    interactive: true,
  })
}

const fresh = () =>
  createStore(
    initialState({ id: 's', cwd: process.cwd(), model: 'm', baseUrl: 'x', title: '', startedAt: 0 }, 'safe'),
  )
type Msg = { role: string; content: unknown }
const userTexts = (i: number) =>
  ((server.requests[i]?.body.messages ?? []) as Msg[]).filter((m) => m.role === 'user').map((m) => m.content)

describe('Runtime', () => {
  it('queues a message submitted while busy and sends it with the next step', async () => {
    server = await startScriptedServer({
      replies: [
        { toolCalls: [{ name: 'Echo', arguments: { text: 'x' } }], chunkDelayMs: 20 },
        { text: 'done' },
      ],
    })
    const store = fresh()
    const runtime = makeRuntime(store)
    runtime.submit({ text: 'first' })
    expect(runtime.isBusy()).toBe(true)
    runtime.submit({ text: 'also this' })
    // The store shows it until it is sent.
    expect(store.getState().queued).toMatchObject([{ text: 'also this', images: 0 }])
    await runtime.idle()
    expect(userTexts(1)).toEqual(['first', 'also this'])
    expect(store.getState().session.title).toBe('first')
    expect(server.requests).toHaveLength(2)
    expect(store.getState().queued).toEqual([])
  })

  it('gives the newest queued message back on unqueue; nothing is left to send', async () => {
    server = await startScriptedServer({
      replies: [
        { toolCalls: [{ name: 'Echo', arguments: { text: 'x' } }], chunkDelayMs: 20 },
        { text: 'done' },
      ],
    })
    const store = fresh()
    const runtime = makeRuntime(store)
    runtime.submit({ text: 'first' })
    runtime.submit({ text: 'one' })
    runtime.submit({ text: 'two' })
    expect(runtime.unqueue()).toEqual({ text: 'two' })
    expect(store.getState().queued.map((q) => q.text)).toEqual(['one'])
    expect(runtime.unqueue()).toEqual({ text: 'one' })
    expect(runtime.unqueue()).toBeNull()
    await runtime.idle()
    expect(userTexts(1)).toEqual(['first'])
  })

  it('after an interrupt a queued message is not sent: it waits and goes before the next message', async () => {
    server = await startScriptedServer({
      replies: [{ text: 'streaming…', hangAfterChunks: 1 }, { text: 'ok' }],
    })
    const store = fresh()
    const runtime = makeRuntime(store)
    runtime.submit({ text: 'first' })
    await server.waitForRequests(1)
    runtime.submit({ text: 'queued one' })
    runtime.interrupt()
    await runtime.idle()
    expect(server.requests).toHaveLength(1)
    expect(store.getState().queued.map((q) => q.text)).toEqual(['queued one'])
    const notices = Object.values(store.getState().transcript.items).filter((i) => i.kind === 'notice')
    expect(notices.at(-1)).toMatchObject({ text: expect.stringContaining('Your queued message waits') })

    runtime.submit({ text: 'and now this' })
    await runtime.idle()
    expect(server.requests).toHaveLength(2)
    expect(userTexts(1).slice(-2)).toEqual(['queued one', 'and now this'])
    expect(store.getState().queued).toEqual([])
  })

  it('never sends image parts to a model without vision: the model is told, the user is warned', async () => {
    server = await startScriptedServer({ replies: [{ text: 'no image here' }, { text: 'a cat' }] })
    const image = { path: '/x/cat.png', url: 'data:image/png;base64,AAAA' }
    const store = fresh()
    await makeRuntime(store).runTurn({ text: 'what is this?', images: [image] })
    const sent = userTexts(0).at(-1)
    expect(typeof sent).toBe('string')
    expect(sent).toBe(
      'what is this?\n\n[An image attached by the user was not sent: this model cannot see images.]',
    )
    const notices = Object.values(store.getState().transcript.items).filter((i) => i.kind === 'notice')
    expect(notices.at(-1)).toMatchObject({
      level: 'warn',
      text: expect.stringContaining('m cannot see images'),
    })
    // The transcript shows what the user typed.
    expect(Object.values(store.getState().transcript.items).find((i) => i.kind === 'user')).toMatchObject({
      text: 'what is this?',
    })

    const seeing = fresh()
    await makeRuntime(seeing, createFileStateTracker(), true).runTurn({ text: 'and this?', images: [image] })
    expect(userTexts(1).at(-1)).toEqual([
      { type: 'text', text: 'and this?' },
      { type: 'image_url', image_url: { url: image.url } },
    ])
  })

  it('appends the plan-mode instruction as a message, never editing the system prompt', async () => {
    server = await startScriptedServer({ replies: [{ text: 'a' }, { text: 'b' }] })
    const store = fresh()
    const runtime = makeRuntime(store)
    await runtime.runTurn({ text: 'one' })
    runtime.setMode('plan')
    await runtime.runTurn({ text: 'two' })
    const [first, second] = server.requests.map((r) => r.body.messages as Msg[])
    expect(second?.[0]).toEqual(first?.[0])
    expect(userTexts(1).some((t) => String(t).startsWith('PLAN MODE is now on'))).toBe(true)
    expect(store.getState().mode).toBe('plan')
  })

  it('refuses a mode change the mode policy forbids, says why, and changes nothing', async () => {
    server = await startScriptedServer({ replies: [{ text: 'a' }] })
    const store = fresh()
    const runtime = makeRuntime(store)
    expect(runtime.setMode('dangerous')).toEqual({
      ok: false,
      reason: 'dangerous mode can only be chosen when starting agent-tui (--dangerously-skip-permissions)',
    })
    expect(runtime.setMode('ci')).toMatchObject({ ok: false })
    expect(store.getState().mode).toBe('safe')
    expect(runtime.setMode('auto')).toEqual({ ok: true, mode: 'auto' })
    await runtime.runTurn({ text: 'one' })
    expect(store.getState().mode).toBe('auto')
  })

  it('lets a session launched in dangerous mode return to it, never to ci', async () => {
    server = await startScriptedServer({ replies: [] })
    const store = createStore(
      initialState(
        { id: 's', cwd: process.cwd(), model: 'm', baseUrl: 'x', title: '', startedAt: 0 },
        'dangerous',
      ),
    )
    const runtime = makeRuntime(store)
    expect(runtime.setMode('plan')).toEqual({ ok: true, mode: 'plan' })
    expect(runtime.setMode('dangerous')).toEqual({ ok: true, mode: 'dangerous' })
    expect(runtime.setMode('ci')).toMatchObject({ ok: false })
    expect(store.getState().mode).toBe('dangerous')
  })

  it('/clear starts a fresh conversation and forgets which files were read', async () => {
    server = await startScriptedServer({ replies: [{ text: 'a' }, { text: 'b' }] })
    const store = fresh()
    const files = createFileStateTracker()
    const runtime = makeRuntime(store, files)
    await runtime.runTurn({ text: 'remember me' })
    files.recordRead('/tmp/f', { mtimeMs: 1, size: 1 })
    runtime.clear()
    expect(store.getState().messages).toEqual([])
    expect(store.getState().transcript.order).toEqual([])
    expect(files.get('/tmp/f')).toBeUndefined()
    await runtime.runTurn({ text: 'new start' })
    expect(userTexts(1)).toEqual(['new start'])
  })

  it('reports that nothing can be backgrounded when no command runs', async () => {
    server = await startScriptedServer()
    const store = fresh()
    expect(makeRuntime(store).backgroundForeground()).toBe(false)
  })
})
