import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'
import { addStep, makeRuntime, makeStore, textOf, type WireMessage } from './harness.js'

let server: ScriptedServer
let spillDir: string
beforeEach(async () => {
  server = await startScriptedServer()
  spillDir = await mkdtemp(join(tmpdir(), 'agent-tui-rtc-'))
})
afterEach(async () => {
  expect(server.pairingViolations).toEqual([])
  await server.close()
  await rm(spillDir, { recursive: true, force: true })
})

const messagesOf = (i: number) => (server.requests[i]?.body.messages ?? []) as WireMessage[]

function longRuntime() {
  const store = makeStore()
  for (let i = 0; i < 8; i++) addStep(store, i)
  return { store, runtime: makeRuntime({ store, baseUrl: server.baseUrl, spillDir }) }
}

describe('runtime context commands', () => {
  it('/compact focus: the focus reaches the summariser, and the next turn sends the summary', async () => {
    const { store, runtime } = longRuntime()
    const preview = await runtime.compactionPreview('the parser')
    expect(preview).toMatchObject({ ok: true, focus: 'the parser' })
    server.enqueue({ text: 'SUMMARY: parser work' }, { text: 'next answer' })
    expect(await runtime.compact('the parser')).toBe(true)
    const instructions = textOf(messagesOf(0).at(-1))
    expect(instructions).toContain('FOCUS: the user asked the summary to concentrate on: the parser')
    expect(store.getState().run.phase).toBe('idle')
    await runtime.runTurn({ text: 'go on' })
    expect(textOf(messagesOf(1)[1])).toContain('SUMMARY: parser work')
  })

  it('refuses /compact while a turn runs, and queues messages sent during a compaction', async () => {
    const { store, runtime } = longRuntime()
    server.enqueue({ text: 'slow', chunkDelayMs: 30, chunkSize: 1 })
    const turn = runtime.runTurn({ text: 'first' })
    await server.waitForRequests(1)
    expect(await runtime.compact()).toBe(false)
    await turn
    const notices = store.getState().transcript.order.map((id) => store.getState().transcript.items[id])
    expect(notices.some((i) => i?.kind === 'notice' && i.text.includes('then /compact'))).toBe(true)
    server.enqueue({ text: 'SUMMARY', chunkDelayMs: 20 }, { text: 'queued answer' })
    const compacting = runtime.compact()
    runtime.submit({ text: 'while compacting' })
    expect(await compacting).toBe(true)
    await server.waitForRequests(3)
    await runtime.idle()
    expect(textOf(messagesOf(2).at(-1))).toBe('while compacting')
  })

  it('pins only messages and finished results', () => {
    const { store, runtime } = longRuntime()
    expect(runtime.setPinned('call-3-0', true)).toBeNull()
    expect(store.getState().context.pins).toEqual({ 'call-3-0': true })
    store.dispatch({ type: 'notice/added', id: 'n1', level: 'info', text: 'hello' })
    expect(runtime.setPinned('n1', true)).toBe('only messages and tool results can be pinned')
    store.dispatch({ type: 'tool/started', callId: 'live', name: 'Bash', summary: 'sleep', at: 0 })
    expect(runtime.setPinned('live', true)).toMatch(/still running/)
  })

  it('offers observationWindow and compactAt to the Config tool, as real settings', async () => {
    const { store, runtime } = longRuntime()
    server.enqueue(
      { toolCalls: [{ name: 'Config', arguments: { setting: 'observationWindow', value: 2 } }] },
      { toolCalls: [{ name: 'Config', arguments: { setting: 'compactAt', value: '0.5' } }] },
      { text: 'ok' },
    )
    const configTool = (await import('../../../../source/tools/config.js')).configTool
    const rt = makeRuntime({ store, baseUrl: server.baseUrl, spillDir, tools: [configTool] })
    void runtime
    await rt.runTurn({ text: 'tighten the context' })
    expect(store.getState().context.overrides).toEqual({ observationWindow: 2, compactAt: 0.5 })
    expect(rt.context.window()).toBe(2)
    expect(rt.context.compactAt()).toBe(0.5)
    const results = messagesOf(2)
      .filter((m) => m.role === 'tool')
      .slice(-2)
    expect(results.map(textOf)).toEqual([
      'observationWindow changed from 4 to 2.',
      'compactAt changed from 0.7 to 0.5.',
    ])
  })
})
