import { describe, expect, it } from 'vitest'
import {
  budgetError,
  isKept,
  type KeptSet,
  keptParts,
  latestStepStart,
  maskToFit,
  oversizedResults,
  requestBudget,
  scaleFromUsage,
} from '../../../../source/agent/context/budget.js'
import type { Entry } from '../../../../source/agent/context/compaction.js'
import type { ChatMessage } from '../../../../source/store/messages.js'
import { checkPairing } from '../../../support/pairing-check.ts'

const user = (text: string): ChatMessage => ({ role: 'user', content: text })
const call = (...ids: string[]): ChatMessage => ({
  role: 'assistant',
  content: '',
  tool_calls: ids.map((id) => ({
    id,
    type: 'function' as const,
    function: { name: 'Read', arguments: '{}' },
  })),
})
const result = (id: string, size: number): ChatMessage => ({
  role: 'tool',
  tool_call_id: id,
  content: 'r'.repeat(size),
})
const entries = (messages: ChatMessage[]): Entry[] => messages.map((message, source) => ({ message, source }))
/** One token per ten characters, so sizes in the tables read as tokens × 10. */
const tokens = (e: Entry) => Math.ceil(JSON.stringify(e.message).length / 10)
const placeholder = (e: Entry): Entry => ({
  message: { ...(e.message as { role: 'tool'; tool_call_id: string }), content: '[masked]' },
  source: e.source,
  role: 'masked',
})

/** request 0, three steps of one Read each with `size`-char results, then the latest step. */
function session(size: number, latestSize = size): ChatMessage[] {
  return [
    user('the task'),
    call('a'),
    result('a', size),
    call('b'),
    result('b', size),
    call('c'),
    result('c', size),
    call('d'),
    result('d', latestSize),
  ]
}

const keptOf = (messages: ChatMessage[], pins: number[] = []): KeptSet => ({
  request: 0,
  stepStart: latestStepStart(messages, 0),
  pinned: (i) => pins.includes(i),
})

describe('the request budget: window − margin − reply', () => {
  it.each([
    // window, measured, reply, margin, prompt
    [8192, false, 819, 410, 6963],
    [8192, true, 819, 164, 7209],
    [2048, false, 256, 103, 1689],
    [131_072, false, 8192, 6554, 116_326],
    [1000, false, 256, 50, 694],
  ])('%i tokens (server count seen: %s)', (window, measured, reply, margin, prompt) => {
    expect(requestBudget(window, measured)).toEqual({ window, reply, margin, prompt })
  })
})

describe("correcting the estimate from the server's usage.prompt_tokens", () => {
  it.each([
    // reported, estimated, scale, trusted
    [1020, 1000, 1.02, true], // the ~2 % over the window the issue saw
    [1000, 1000, 1, true],
    [800, 1000, 1, false], // the server counted less (no tools counted?): keep ours, keep the margin
    [950, 1000, 1, true],
    [9000, 1000, 4, false], // far off: capped, not trusted
    [2000, 1000, 2, true],
  ])('%i reported for %i estimated → scale %d', (reported, estimated, scale, trusted) => {
    expect(scaleFromUsage(reported, estimated)).toEqual({ scale, trusted })
  })
  it.each([
    [null, 1000],
    [undefined, 1000],
    [0, 1000],
    [1000, 0],
  ])('learns nothing from %s for %i', (reported, estimated) => {
    expect(scaleFromUsage(reported, estimated)).toBeNull()
  })
})

describe('the always-kept set', () => {
  it('is the latest request, the latest assistant step with all its results, and the pinned items', () => {
    const messages = [...session(100), call('e', 'f'), result('e', 10), result('f', 10)]
    const kept = keptOf(messages, [2])
    expect(kept.stepStart).toBe(9)
    const which = entries(messages)
      .filter((e) => isKept(e, kept))
      .map((e) => e.source)
    expect(which).toEqual([0, 2, 9, 10, 11])
  })
  it('starts at the request itself when the model has not answered it yet', () => {
    const messages = [...session(100), user('now this')]
    expect(latestStepStart(messages, 9)).toBe(9)
    expect(latestStepStart([], -1)).toBe(0)
  })
  it('always keeps a summary, never an entry without a source', () => {
    const kept = keptOf(session(10))
    expect(isKept({ message: user('summary'), source: -1, role: 'summary' }, kept)).toBe(true)
    expect(isKept({ message: user('x'), source: -1 }, kept)).toBe(false)
  })
})

describe('masking to fit (the first thing that gives way)', () => {
  it('leaves entries that fit as they are', () => {
    const e = entries(session(100))
    const out = maskToFit(e, { budget: 1e6, fixed: 100, tokens, kept: keptOf(session(100)), placeholder })
    expect(out).toMatchObject({ fits: true, maskedMore: [] })
    expect(out.entries).toEqual(e)
  })
  it('masks every older result, never the latest step or a pinned one, and keeps the pairing', () => {
    const messages = session(2000)
    const out = maskToFit(entries(messages), {
      budget: 800,
      fixed: 100,
      tokens,
      kept: keptOf(messages, [4]),
      placeholder,
    })
    expect(out.fits).toBe(true)
    expect(out.entries.map((e) => e.role ?? 'whole')).toEqual([
      'whole',
      'whole',
      'masked',
      'whole',
      'whole', // pinned
      'whole',
      'masked',
      'whole',
      'whole', // the latest step's result
    ])
    expect(out.maskedMore.map((e) => e.source)).toEqual([2, 6])
    expect(checkPairing(out.entries.map((e) => e.message))).toBeNull()
  })
  it('says when masking is not enough (then compaction comes, then the error)', () => {
    const messages = session(2000, 9000)
    const out = maskToFit(entries(messages), {
      budget: 500,
      fixed: 100,
      tokens,
      kept: keptOf(messages),
      placeholder,
    })
    expect(out.fits).toBe(false)
    expect(out.entries).toHaveLength(messages.length) // nothing is ever cut
    expect(out.total).toBeGreaterThan(900)
  })
  it('skips results that have no placeholder (could not be saved)', () => {
    const messages = session(2000)
    const out = maskToFit(entries(messages), {
      budget: 500,
      fixed: 0,
      tokens,
      kept: keptOf(messages),
      placeholder: () => null,
    })
    expect(out).toMatchObject({ fits: false, maskedMore: [] })
  })
})

describe('the error that names what is too big', () => {
  const budget = requestBudget(8192, false)
  const parts = (opts: { tools: number; result: number; pinned?: number[] }) => {
    const messages = session(100, opts.result)
    return keptParts(entries(messages), {
      kept: keptOf(messages, opts.pinned ?? []),
      tokens,
      systemTokens: 300,
      toolTokens: opts.tools,
      toolCount: 31,
      toolName: () => 'Read',
    })
  }
  it.each([
    [
      'the definitions',
      { tools: 9000, result: 100 },
      'definitions',
      /The largest part is the tool definitions \(31 tools\): .*fewer MCP servers, or --tools/,
    ],
    [
      'one tool result',
      { tools: 1000, result: 80_000 },
      'result',
      /The largest part is the Read result of the last step: ask for a smaller part \(Read with offset and limit/,
    ],
    [
      'the pinned items',
      { tools: 100, result: 100, pinned: [2, 4, 6] },
      'system',
      /The largest part is the system prompt/,
    ],
  ])('%s', (_name, opts, kind, wording) => {
    const { message, largest } = budgetError(parts(opts), { budget, source: 'settings' })
    expect(largest.kind).toBe(kind)
    expect(message).toMatch(
      /^the request does not fit the model's context window of 8,192 tokens \(settings\)/,
    )
    expect(message).toMatch(wording)
  })
  it('counts the pinned items together and names them when they are the largest', () => {
    const messages = [user('the task'), call('a'), result('a', 40_000), call('b'), result('b', 10)]
    const p = keptParts(entries(messages), {
      kept: keptOf(messages, [2]),
      tokens,
      systemTokens: 300,
      toolTokens: 100,
      toolCount: 3,
      toolName: () => 'Read',
    })
    expect(p.find((x) => x.kind === 'pinned')).toMatchObject({ count: 1 })
    const { message } = budgetError(p, {
      budget,
      source: 'settings',
      compaction: 'compacting did not help (x)',
    })
    expect(message).toContain('; compacting did not help (x).')
    expect(message).toMatch(/The largest part is the pinned items \(1\): unpin some items/)
  })
})

describe('results too big for any request', () => {
  it.each([
    // sizes, room, envelope, failed
    [[100, 200], 1000, 10, []],
    [[5000], 1000, 10, [0]],
    [[300, 5000, 400], 1000, 10, [1]],
    [[900, 900, 900], 1000, 10, [0, 1]], // the largest first (ties by order) until the rest fit
    [[2000, 3000], 100, 60, [0, 1]],
  ])('%j in %i', (sizes, room, envelope, failed) => {
    expect(oversizedResults(sizes, room, envelope)).toEqual(failed)
  })
})
