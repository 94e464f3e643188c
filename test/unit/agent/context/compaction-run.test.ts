import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { recentCount } from '../../../../source/agent/context/compaction.js'
import type { ChatMessage } from '../../../../source/store/messages.js'
import { resolveProfile } from '../../../../source/provider/model-profiles.js'
import type { Store } from '../../../../source/store/create-store.js'
import { checkPairing } from '../../../support/pairing-check.ts'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'
import { addStep, type Fixture, filler, makeContext, makeStore, textOf, type WireMessage } from './harness.js'

let server: ScriptedServer
let fx: Fixture | undefined
beforeEach(async () => {
  server = await startScriptedServer()
})
afterEach(async () => {
  expect(server.pairingViolations).toEqual([])
  await fx?.cleanup()
  fx = undefined
  await server.close()
})

const signal = () => new AbortController().signal
const SUMMARY = 'FILES MODIFIED: none\nCURRENT STATE: reading files'
const summariserInput = (i: number) => server.requests[i]?.body.messages as WireMessage[]

/** A conversation of `pairs` exchanges whose first message is `first` (the bulk that tips the window). */
function conversation(store: Store, pairs: number, first: string): void {
  store.dispatch({ type: 'user/submitted', id: 'user-first', content: first, text: first })
  store.dispatch({
    type: 'assistant/settled',
    id: 'assistant-first',
    message: { role: 'assistant', content: 'ok' },
  })
  for (let i = 0; i < pairs; i++) {
    store.dispatch({
      type: 'user/submitted',
      id: `user-${i}`,
      content: `question ${i}`,
      text: `question ${i}`,
    })
    store.dispatch({
      type: 'assistant/settled',
      id: `assistant-${i}`,
      message: { role: 'assistant', content: `answer ${i}` },
    })
  }
}

describe('automatic compaction: the trigger point per profile', () => {
  it.each([
    ['m', 'default'],
    ['qwen2.5-coder-32b', 'qwen2.5'],
    ['gemma-3-27b', 'gemma-3'],
    ['deepseek-chat', 'deepseek-v3'],
    ['MiniMax-M2', 'minimax'],
    ['gpt-4o', 'gpt-4o'],
  ])(
    '%s (%s profile): compacts at compactAt × contextLimit estimated tokens, not one token earlier',
    async (model, family) => {
      const profile = resolveProfile(model)
      expect(profile.family).toBe(family)
      const trigger = Math.ceil(profile.compactAt * profile.contextLimit)
      const pairs = Math.ceil(recentCount(profile.contextLimit) / 2) + 3
      // The size of the first message that brings the prompt estimate exactly to `tokens`.
      const sizeFor = async (tokens: number): Promise<number> => {
        const probe = await makeContext({ baseUrl: server.baseUrl, model })
        await probe.context.estimator.ready()
        conversation(probe.store, pairs, '')
        const base = probe.context.tokens(
          probe.context.assemble(probe.store.getState(), { fit: false }).entries,
        )
        const cost = (n: number) =>
          probe.context.estimator.message({ role: 'user', content: filler(n) }) -
          probe.context.estimator.message({ role: 'user', content: '' })
        // Start from the characters-per-token of a sample, then search a narrow range (tokenizing is slow).
        const guess = Math.floor(((tokens - base) * 20_000) / cost(20_000))
        let lo = Math.max(0, guess - 4000)
        let hi = guess + 4000
        while (lo > 0 && base + cost(lo) >= tokens) lo = Math.max(0, lo - 4000)
        while (base + cost(hi) < tokens) hi += 4000
        while (lo < hi) {
          const mid = Math.floor((lo + hi) / 2)
          if (base + cost(mid) >= tokens) hi = mid
          else lo = mid + 1
        }
        await probe.cleanup()
        return lo
      }
      const run = async (size: number) => {
        const f = await makeContext({ baseUrl: server.baseUrl, model })
        await f.context.estimator.ready()
        conversation(f.store, pairs, filler(size))
        const before = server.requests.length
        server.enqueue({ text: SUMMARY })
        await f.context.prepare({ step: 1, signal: signal() })
        const estimate =
          f.store.getState().context.compaction?.tokensBefore ??
          f.context.tokens(f.context.assemble(f.store.getState(), { fit: false }).entries)
        const compacted = f.store.getState().context.compaction !== null
        await f.cleanup()
        return { compacted, summariserCalls: server.requests.length - before, estimate }
      }
      const at = await sizeFor(trigger)
      const below = await run(at - 1)
      expect(below.estimate).toBeLessThan(trigger)
      expect(below).toMatchObject({ compacted: false, summariserCalls: 0 })
      const reached = await run(at)
      expect(reached.estimate).toBeGreaterThanOrEqual(trigger)
      expect(reached).toMatchObject({ compacted: true, summariserCalls: 1 })
    },
    60_000,
  )
})

describe('compaction', () => {
  async function compactedFixture(opts: { latestEarly?: boolean } = {}) {
    fx = await makeContext({ baseUrl: server.baseUrl, profile: { contextLimit: 60_000 } })
    const store = fx.store
    addStep(store, 0, { text: 'first task' })
    store.dispatch({ type: 'context/pinned', id: 'call-0-0', pinned: true })
    store.dispatch({
      type: 'user/submitted',
      id: 'user-rule',
      content: 'always use tabs',
      text: 'always use tabs',
    })
    store.dispatch({ type: 'context/pinned', id: 'user-rule', pinned: true })
    store.dispatch({
      type: 'assistant/settled',
      id: 'a-rule',
      message: { role: 'assistant', content: 'noted' },
    })
    for (let i = 1; i <= 6; i++) addStep(store, i)
    if (opts.latestEarly) {
      store.dispatch({
        type: 'user/submitted',
        id: 'user-latest',
        content: 'now fix every file',
        text: 'now fix every file',
      })
      for (let i = 7; i <= 16; i++) {
        // Steps of one turn: calls and results only, no new user message.
        store.dispatch({
          type: 'assistant/settled',
          id: `assistant-${i}`,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: `call-${i}`, type: 'function', function: { name: 'Big', arguments: '{}' } }],
          },
        })
        store.dispatch({
          type: 'tool/finished',
          callId: `call-${i}`,
          name: 'Big',
          summary: 'Big',
          status: 'done',
          content: filler(300, `r${i}`),
          preview: '',
          display: null,
          durationMs: 1,
        })
      }
    }
    return fx
  }

  it('keeps the system prompt, the summary, pinned items, the latest request and the recent messages, paired', async () => {
    const f = await compactedFixture({ latestEarly: true })
    const latest = f.store.getState().messages.find((m) => textOf(m) === 'now fix every file')
    server.enqueue({ text: SUMMARY })
    const outcome = await f.context.compact({ trigger: 'manual', signal: signal() })
    expect(outcome.ok).toBe(true)
    const request = await f.context.prepare({ step: 1, signal: signal() })
    expect(request[0]).toEqual({ role: 'system', content: 'You are a test.' })
    expect(textOf(request[1])).toContain(SUMMARY)
    // Pinned: the tool result with its call, and the user's rule — verbatim.
    const state = f.store.getState()
    const pinnedResult = state.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call-0-0')
    expect(request).toContain(pinnedResult)
    expect(request.some((m) => textOf(m) === 'always use tabs')).toBe(true)
    // The latest request, older than the recent messages, verbatim (the same object).
    expect(request).toContain(latest)
    // Summarised ones are gone from the request but not from the history.
    expect(request.some((m) => textOf(m) === 'request 3')).toBe(false)
    expect(state.messages.some((m) => textOf(m) === 'request 3')).toBe(true)
    expect(checkPairing(request)).toBeNull()
    // The transcript shows the compaction as a card holding the summary.
    const card = state.transcript.items[(state.context.compaction as { id: string }).id]
    expect(card).toMatchObject({ kind: 'tool', name: 'Compact', display: { kind: 'text', text: SUMMARY } })
  })

  it('asks the summariser with the shared prefix, the five sections and the focus', async () => {
    const f = await compactedFixture()
    const first = await f.context.prepare({ step: 1, signal: signal() })
    server.enqueue({ text: SUMMARY })
    await f.context.compact({ trigger: 'manual', focus: 'the tabs rule', signal: signal() })
    const input = summariserInput(0)
    const instructions = textOf(input.at(-1))
    expect(instructions).toContain('FILES MODIFIED')
    expect(instructions).toContain('KEY CODE PATTERNS')
    expect(instructions).toContain('FOCUS: the user asked the summary to concentrate on: the tabs rule')
    // Its messages before the instructions are the start of the last request: a provider cache hit.
    const sent = JSON.stringify(input.slice(0, -1))
    expect(JSON.stringify(first).startsWith(sent.slice(0, -1))).toBe(true)
    expect(server.requests[0]?.body.tool_choice).toBe('none')
    expect(f.store.getState().context.compaction?.focus).toBe('the tabs rule')
  })

  it('keeps the history and says so when the summariser fails; the request still goes, paired', async () => {
    const f = await compactedFixture()
    const before = f.store.getState().messages
    server.enqueue({
      status: 400,
      body: { error: { message: 'model is overloaded with nonsense', type: 'invalid_request_error' } },
    })
    const outcome = await f.context.compact({ trigger: 'manual', signal: signal() })
    expect(outcome.ok).toBe(false)
    const state = f.store.getState()
    expect(state.context.compaction).toBeNull()
    expect(state.messages).toBe(before)
    const notices = state.transcript.order
      .map((id) => state.transcript.items[id])
      .filter((i) => i?.kind === 'notice')
    expect(notices.at(-1)).toMatchObject({ level: 'error' })
    expect((notices.at(-1) as { text: string }).text).toMatch(
      /Compaction failed: .*overloaded.*The history is kept as it was/,
    )
    server.enqueue({ text: '' })
    expect((await f.context.compact({ trigger: 'manual', signal: signal() })).ok).toBe(false)
    expect(checkPairing(await f.context.prepare({ step: 2, signal: signal() }))).toBeNull()
  })

  it('when the summariser fails, older results go as placeholders: nothing is cut, no marker, within the window', async () => {
    fx = await makeContext({
      baseUrl: server.baseUrl,
      profile: { contextLimit: 8000, compactAt: 0.6 },
      settings: { masking: false },
    })
    const store = fx.store
    store.dispatch({ type: 'user/submitted', id: 'user-task', content: 'the task', text: 'the task' })
    for (let i = 0; i < 12; i++) addStep(store, i + 1, { size: 2400 })
    // The summariser fails: the history is kept, and the request is fitted by masking older results.
    server.enqueue({ status: 400, body: { error: { message: 'no summaries today' } } })
    const request = await fx.context.prepare({ step: 1, signal: signal() })
    expect(request.some((m) => textOf(m).includes('[earlier messages truncated'))).toBe(false)
    // Every message is still there, in order: the older results as placeholders, the latest step whole.
    expect(request).toHaveLength(store.getState().messages.length + 1)
    for (let i = 1; i <= 12; i++) expect(request.some((m) => textOf(m) === `request ${i}`)).toBe(true)
    expect(request.filter((m) => textOf(m).startsWith('[Tool result masked:')).length).toBeGreaterThan(0)
    expect(textOf(request.at(-1))).toBe(filler(2400, 'call-12-0'))
    expect(checkPairing(request)).toBeNull()
    const stats = store.getState().context.lastRequest
    expect(stats?.truncated).toBe(0)
    expect(stats?.estimatedTokens).toBeLessThanOrEqual(fx.context.budget().prompt)
    // No automatic retry in the same turn after a failure.
    const calls = server.requests.length
    await fx.context.prepare({ step: 2, signal: signal() })
    expect(server.requests.length).toBe(calls)
  })

  it('previews what it would summarise and keep, with token figures, and changes nothing', async () => {
    const f = await compactedFixture({ latestEarly: true })
    const before = f.store.getState()
    const preview = await f.context.preview('the tabs rule')
    expect(preview.ok).toBe(true)
    expect(preview.focus).toBe('the tabs rule')
    expect(preview.summarise.messages).toBeGreaterThan(0)
    expect(preview.summarise.tool).toBeGreaterThan(0)
    expect(preview.keep.pinned).toEqual(['Big call-0-0', '› always use tabs'])
    expect(preview.keep.latestRequest).toBe('› now fix every file')
    expect(preview.keep.summaryBudget).toBe(2000)
    expect(preview.tokensAfter).toBeLessThan(preview.tokensNow)
    expect(server.requests).toHaveLength(0)
    expect(f.store.getState()).toBe(before)
  })

  it('says there is nothing to compact in a short conversation', async () => {
    fx = await makeContext({ baseUrl: server.baseUrl, store: makeStore() })
    addStep(fx.store, 0)
    const preview = await fx.context.preview()
    expect(preview.ok).toBe(false)
    expect(preview.reason).toMatch(/nothing to summarise yet: only 3 messages so far/)
    const outcome = await fx.context.compact({ trigger: 'manual', signal: signal() })
    expect(outcome.ok).toBe(false)
    expect(server.requests).toHaveLength(0)
  })

  it('folds an earlier summary into the next one and never moves the cut back', async () => {
    const f = await compactedFixture()
    server.enqueue({ text: 'FIRST SUMMARY' })
    await f.context.compact({ trigger: 'manual', signal: signal() })
    const firstCut = f.store.getState().context.compaction?.cut ?? 0
    for (let i = 20; i < 30; i++) addStep(f.store, i)
    server.enqueue({ text: 'SECOND SUMMARY' })
    await f.context.compact({ trigger: 'manual', signal: signal() })
    const input = summariserInput(1)
    expect(textOf(input[1])).toContain('FIRST SUMMARY')
    expect(textOf(input.at(-1))).toContain('earlier summary')
    const record = f.store.getState().context.compaction
    expect(record?.summary).toBe('SECOND SUMMARY')
    expect(record?.cut).toBeGreaterThan(firstCut)
    expect(f.store.getState().context.compactions).toBe(2)
    const request = await f.context.prepare({ step: 1, signal: signal() })
    expect(request.filter((m: ChatMessage) => textOf(m).includes('SUMMARY'))).toHaveLength(1)
  })
})
