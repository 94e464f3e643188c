import { readFile } from 'node:fs/promises'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ChatMessage } from '../../../../source/store/messages.js'
import { checkPairing } from '../../../support/pairing-check.ts'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'
import { addStep, type Fixture, makeContext, textOf } from './harness.js'

let server: ScriptedServer
let fx: Fixture
beforeEach(async () => {
  server = await startScriptedServer()
})
afterEach(async () => {
  await fx?.cleanup()
  await server.close()
})

const signal = () => new AbortController().signal
const PLACEHOLDER = /^\[Tool result masked: (\d+) chars, first line: (.*); full output: (\/.+)\]$/

async function requests(steps: number, from = 0): Promise<ChatMessage[][]> {
  const out: ChatMessage[][] = []
  for (let i = from; i < from + steps; i++) {
    addStep(fx.store, i)
    out.push(await fx.context.prepare({ step: i + 1, signal: signal() }))
  }
  return out
}

describe('observation masking (a view at request assembly)', () => {
  it('masks in epochs: placeholders name files holding the full result, the last results stay whole', async () => {
    fx = await makeContext({ baseUrl: server.baseUrl })
    const sent = await requests(12)
    const state = fx.store.getState()
    const last = sent.at(-1) as ChatMessage[]
    const tools = last.filter((m) => m.role === 'tool')
    expect(tools).toHaveLength(12)
    // Window 4 (default profile), 12 results: the boundary is at 8.
    for (const [k, message] of tools.entries()) {
      const original = state.messages.find(
        (m) => m.role === 'tool' && m.tool_call_id === (message as { tool_call_id: string }).tool_call_id,
      )
      if (k >= 8) {
        expect(message).toBe(original) // verbatim: the very object from the store
        continue
      }
      const m = PLACEHOLDER.exec(textOf(message))
      expect(m, textOf(message)).not.toBeNull()
      expect(Number(m?.[1])).toBe(textOf(original).length)
      expect(await readFile(m?.[3] as string, 'utf8')).toBe(textOf(original))
    }
    // The store and its history keep every result whole.
    expect(
      state.messages
        .filter((m) => m.role === 'tool')
        .every((m) => !textOf(m).startsWith('[Tool result masked')),
    ).toBe(true)
    for (const request of sent) expect(checkPairing(request)).toBeNull()
  })

  it('extends the previous request byte for byte between boundary moves', async () => {
    fx = await makeContext({ baseUrl: server.baseUrl })
    const sent = await requests(16)
    const extends_ = sent.slice(1).map((req, i) => {
      const prev = JSON.stringify(sent[i])
      return JSON.stringify(req).startsWith(prev.slice(0, -1))
    })
    // Moves at 8, 12 and 16 results.
    expect(extends_.filter((x) => !x)).toHaveLength(3)
    const stats = fx.store.getState().context.lastRequest
    expect(stats?.appendOnly).toBe(false) // the 16th result moved the boundary
    expect(stats?.masked).toBe(12)
    expect(stats?.maskedBytesSaved).toBeGreaterThan(12 * 1000)
  })

  it('marks masked cards in the transcript, and never masks a pinned result', async () => {
    fx = await makeContext({ baseUrl: server.baseUrl })
    addStep(fx.store, 0)
    fx.store.dispatch({ type: 'context/pinned', id: 'call-0-0', pinned: true })
    await requests(9, 1)
    const items = fx.store.getState().transcript.items
    expect(items['call-0-0']).toMatchObject({ pinned: true, masked: false })
    expect(items['call-1-0']).toMatchObject({ masked: true })
    expect(items['call-9-0']).toMatchObject({ masked: false })
    const request = await fx.context.prepare({ step: 11, signal: signal() })
    expect(
      request.some(
        (m) => m.role === 'tool' && m.tool_call_id === 'call-0-0' && !textOf(m).startsWith('[Tool'),
      ),
    ).toBe(true)
    // Unpinned, it is masked from the next request on, and its card says so.
    fx.store.dispatch({ type: 'context/pinned', id: 'call-0-0', pinned: false })
    await fx.context.prepare({ step: 12, signal: signal() })
    expect(fx.store.getState().transcript.items['call-0-0']).toMatchObject({ pinned: false, masked: true })
  })

  it('sends everything whole with masking off, every request extending the last', async () => {
    fx = await makeContext({ baseUrl: server.baseUrl, settings: { masking: false } })
    const sent = await requests(12)
    for (let i = 1; i < sent.length; i++) {
      expect(JSON.stringify(sent[i]).startsWith(JSON.stringify(sent[i - 1]).slice(0, -1))).toBe(true)
    }
    expect(sent.at(-1)?.some((m) => textOf(m).startsWith('[Tool result masked'))).toBe(false)
    expect(fx.store.getState().context.lastRequest).toMatchObject({ masked: 0, appendOnly: true })
  })

  it('uses the Config tool window over the profile, for the next requests', async () => {
    fx = await makeContext({ baseUrl: server.baseUrl })
    await requests(6)
    fx.store.dispatch({ type: 'context/configured', observationWindow: 2 })
    const sent = await fx.context.prepare({ step: 7, signal: signal() })
    // 6 results, window 2: 4 masked (2 left whole).
    expect(sent.filter((m) => textOf(m).startsWith('[Tool result masked'))).toHaveLength(4)
    expect(fx.context.window()).toBe(2)
  })
})

describe('request telemetry', () => {
  it('records sizes, the shared prefix and an estimate until the endpoint reports usage', async () => {
    fx = await makeContext({ baseUrl: server.baseUrl })
    await requests(3)
    let state = fx.store.getState()
    const stats = state.context.lastRequest
    expect(stats).toMatchObject({ step: 3, appendOnly: true, masked: 0, promptTokens: null })
    expect(stats?.prefixBytes).toBeGreaterThan(0)
    expect(stats?.prefixBytes).toBeLessThan(stats?.messageBytes ?? 0)
    const b = stats?.breakdown
    expect(b && b.system + b.tools + b.history + b.toolOutput + b.masked).toBe(stats?.estimatedTokens)
    expect(state.usage).toMatchObject({ contextTokens: stats?.estimatedTokens, contextEstimated: true })
    fx.store.dispatch({
      type: 'usage/recorded',
      usage: { input: 1234, output: 5, cached: 1000 },
      contextTokens: 1234,
    })
    state = fx.store.getState()
    expect(state.usage).toMatchObject({ contextTokens: 1234, contextEstimated: false })
    expect(state.context.lastRequest).toMatchObject({ promptTokens: 1234, cachedTokens: 1000 })
  })
})
