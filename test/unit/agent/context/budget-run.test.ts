import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ContextBudgetError } from '../../../../source/agent/context/budget.js'
import type { ChatMessage, ToolDefinition } from '../../../../source/store/messages.js'
import type { Store } from '../../../../source/store/create-store.js'
import { checkPairing } from '../../../support/pairing-check.ts'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'
import { addStep, type Fixture, filler, makeContext, makeRuntime, textOf } from './harness.js'

let server: ScriptedServer
let fx: Fixture | undefined
beforeEach(async () => {
  server = await startScriptedServer({ fallback: { text: 'FILES MODIFIED: none\nCURRENT STATE: reading' } })
})
afterEach(async () => {
  expect(server.pairingViolations).toEqual([])
  await fx?.cleanup()
  fx = undefined
  await server.close()
})

const signal = () => new AbortController().signal
const summaryOf = (request: ChatMessage[]) =>
  request.find((m) => textOf(m).startsWith('[Summary of the conversation so far'))
const noMarker = (request: ChatMessage[]) =>
  expect(request.some((m) => textOf(m).includes('[earlier messages truncated'))).toBe(false)

/** A tool whose definition alone is about `chars` characters. */
const bigDefinition = (chars: number): ToolDefinition => ({
  type: 'function',
  function: { name: 'Huge', description: filler(chars, 'd'), parameters: { type: 'object', properties: {} } },
})

function talk(store: Store, n: number, size: number): void {
  for (let i = 0; i < n; i++) {
    store.dispatch({ type: 'user/submitted', id: `u${i}`, content: filler(size, `q${i}`), text: `q${i}` })
    store.dispatch({
      type: 'assistant/settled',
      id: `a${i}`,
      message: { role: 'assistant', content: filler(size, `a${i}`) },
    })
  }
}

describe('the budget gives way in order: masking, then compaction, then an error', () => {
  it('masking first: older results become placeholders and no summariser is asked', async () => {
    fx = await makeContext({
      baseUrl: server.baseUrl,
      profile: { contextLimit: 8000, compactAt: 0.95 },
      settings: { masking: false },
    })
    for (let i = 0; i < 14; i++) addStep(fx.store, i, { size: 2400 })
    const request = await fx.context.prepare({ step: 1, signal: signal() })
    expect(server.requests).toHaveLength(0)
    noMarker(request)
    expect(summaryOf(request)).toBeUndefined()
    expect(request).toHaveLength(fx.store.getState().messages.length + 1)
    expect(request.filter((m) => textOf(m).startsWith('[Tool result masked:')).length).toBe(13)
    expect(textOf(request.at(-1))).toBe(filler(2400, 'call-13-0')) // the latest step's result, whole
    expect(fx.store.getState().context.lastRequest?.estimatedTokens).toBeLessThanOrEqual(
      fx.context.budget().prompt,
    )
    expect(checkPairing(request)).toBeNull()
  })

  it('then compaction: what masking cannot shrink is summarised, the latest step kept whole', async () => {
    fx = await makeContext({ baseUrl: server.baseUrl, profile: { contextLimit: 8000, compactAt: 0.95 } })
    talk(fx.store, 10, 1600) // ~8k tokens of conversation: nothing to mask
    addStep(fx.store, 99, { size: 1200 })
    const request = await fx.context.prepare({ step: 1, signal: signal() })
    expect(server.requests).toHaveLength(1) // the summariser
    expect(summaryOf(request)).toBeDefined()
    noMarker(request)
    expect(textOf(request.at(-1))).toBe(filler(1200, 'call-99-0'))
    expect(request.some((m) => textOf(m) === 'request 99')).toBe(true)
    expect(fx.store.getState().context.lastRequest?.estimatedTokens).toBeLessThanOrEqual(
      fx.context.budget().prompt,
    )
    expect(checkPairing(request)).toBeNull()
  })

  it('then the error: definitions bigger than the window fail the step, naming them, and nothing is sent', async () => {
    fx = await makeContext({
      baseUrl: server.baseUrl,
      profile: { contextLimit: 4096 },
      toolDefinitions: [bigDefinition(20_000)],
    })
    addStep(fx.store, 0, { size: 300 })
    const error = await fx.context.prepare({ step: 1, signal: signal() }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ContextBudgetError)
    expect((error as ContextBudgetError).largest.kind).toBe('definitions')
    expect((error as Error).message).toMatch(
      /^the request does not fit the model's context window of 4,096 tokens \(the model profile\): .*The largest part is the tool definitions \(1 tool\): .*--tools/,
    )
    expect(server.requests).toHaveLength(0)
    // The start-up warning said so first, with the figures.
    const warned = fx.store.getState().transcript.order.map((id) => fx?.store.getState().transcript.items[id])
    expect(warned.some((i) => i?.kind === 'notice' && /The tool definitions take ~\d/.test(i.text))).toBe(
      true,
    )
  })

  it('a pinned item too big for the window is named, with the fix', async () => {
    fx = await makeContext({ baseUrl: server.baseUrl, profile: { contextLimit: 4096 } })
    addStep(fx.store, 0, { size: 30_000 })
    fx.store.dispatch({ type: 'context/pinned', id: 'call-0-0', pinned: true })
    addStep(fx.store, 1, { size: 300 })
    addStep(fx.store, 2, { size: 300 })
    const error = await fx.context.prepare({ step: 1, signal: signal() }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ContextBudgetError)
    expect((error as Error).message).toMatch(/The largest part is the pinned items \(1\): unpin some items/)
  })
})

describe('a tool result bigger than the window', () => {
  it('fails its call with an envelope naming the saved file; the user gets a notice; the turn goes on', async () => {
    const store = (await makeContext({ baseUrl: server.baseUrl })).store
    fx = await makeContext({ baseUrl: server.baseUrl, store })
    const runtime = makeRuntime({
      store,
      baseUrl: server.baseUrl,
      spillDir: fx.spillDir,
      profile: { contextLimit: 4096 },
      tools: [(await import('./harness.js')).bigTool(40_000)],
    })
    server.enqueue({ toolCalls: [{ name: 'Big', arguments: { tag: 'x' } }] }, { text: 'ok, asking for less' })
    const result = await runtime.runTurn({ text: 'read the big one' })
    expect(result.kind).toBe('completed')
    const second = server.requests[1]?.body.messages as Array<{ role: string; content: string }>
    const envelope = second.find((m) => m.role === 'tool')?.content ?? ''
    expect(envelope).toMatch(/too_large/)
    expect(envelope).toMatch(
      /more than the ~[\d.]+k? the model's context window leaves for this step's results/,
    )
    const path = /saved in (\/[^\s",;]+)/.exec(envelope)?.[1]
    expect(path).toBeDefined()
    const { readFile } = await import('node:fs/promises')
    expect((await readFile(path as string, 'utf8')).length).toBe(40_000)
    const state = store.getState()
    const notices = state.transcript.order
      .map((id) => state.transcript.items[id])
      .filter((i) => i?.kind === 'notice')
    expect(
      notices.some((n) =>
        /does not fit the model's context window; the model got an error instead/.test(
          String((n as { text: string }).text),
        ),
      ),
    ).toBe(true)
    for (const r of server.requests) expect(r.promptTokens ?? 0).toBeLessThanOrEqual(4096)
  })
})

describe("the server's count corrects the estimate", () => {
  it('a server that counts a third more than we estimate still gets every request within its window', async () => {
    await server.close()
    // 3 characters of JSON per token: well over our estimate of the same text.
    server = await startScriptedServer({ contextWindow: { tokens: 8000, charsPerToken: 3 } })
    const { mkdtemp } = await import('node:fs/promises')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const spillDir = await mkdtemp(join(tmpdir(), 'agent-tui-budget-'))
    const store = (await import('./harness.js')).makeStore()
    const runtime = makeRuntime({ store, baseUrl: server.baseUrl, spillDir, profile: { contextLimit: 8000 } })
    let step = 0
    const script = (req: { body: Record<string, unknown> }) => {
      const last = (req.body.messages as Array<{ content?: unknown }>).at(-1)
      if (String(last?.content ?? '').startsWith('Stop here and write a summary')) return { text: 'SUMMARY' }
      return step++ < 24 ? { toolCalls: [{ name: 'Big', arguments: { tag: `s${step}` } }] } : { text: 'done' }
    }
    server.enqueue(...Array.from({ length: 40 }, () => script))
    const result = await runtime.runTurn({ text: 'read them all' })
    expect(result.kind, result.error).toBe('completed')
    expect(server.overWindow).toBe(0)
    expect(runtime.context.scale).toBeGreaterThan(1.05)
    for (const r of server.requests) expect(r.promptTokens).toBeLessThanOrEqual(8000)
  })
})

describe('pairing and the window hold for any history (seeded)', () => {
  it('every request is well paired, keeps every message (or a summary), and fits — or fails with the error', async () => {
    let seed = 7
    const rand = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    for (let round = 0; round < 12; round++) {
      const window = [2048, 4096, 8192][round % 3] as number
      fx = await makeContext({
        baseUrl: server.baseUrl,
        profile: { contextLimit: window },
        settings: { masking: rand() < 0.5 },
      })
      const steps = 3 + Math.floor(rand() * 12)
      for (let i = 0; i < steps; i++) {
        addStep(fx.store, i, { calls: 1 + Math.floor(rand() * 3), size: 100 + Math.floor(rand() * 3000) })
        if (rand() < 0.15) fx.store.dispatch({ type: 'context/pinned', id: `call-${i}-0`, pinned: true })
      }
      const outcome = await fx.context.prepare({ step: 1, signal: signal() }).catch((e: unknown) => e)
      if (outcome instanceof ContextBudgetError) {
        expect(outcome.message).toMatch(/The largest part is /)
      } else {
        const request = outcome as ChatMessage[]
        expect(checkPairing(request), `round ${round}`).toBeNull()
        noMarker(request)
        if (!summaryOf(request)) expect(request).toHaveLength(fx.store.getState().messages.length + 1)
        expect(fx.store.getState().context.lastRequest?.estimatedTokens).toBeLessThanOrEqual(
          fx.context.budget().prompt,
        )
      }
      await fx.cleanup()
      fx = undefined
    }
  }, 60_000)
})

describe('an automatic compaction with nothing to summarise', () => {
  it('says nothing: the first step of a small window whose definitions pass compactAt', async () => {
    fx = await makeContext({
      baseUrl: server.baseUrl,
      profile: { contextLimit: 4096, compactAt: 0.5 },
      toolDefinitions: [bigDefinition(9000)],
    })
    fx.store.dispatch({ type: 'user/submitted', id: 'u', content: 'hi', text: 'hi' })
    await fx.context.prepare({ step: 1, signal: signal() })
    const state = fx.store.getState()
    const texts = state.transcript.order
      .map((id) => state.transcript.items[id])
      .map((i) => (i as { text?: string }).text ?? '')
    expect(texts.some((t) => t.startsWith('Compaction stopped'))).toBe(false)
    expect(server.requests).toHaveLength(0)
  })
})
