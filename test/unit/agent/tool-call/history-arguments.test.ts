/**
 * What goes back to the endpoint is well-formed: through the real loop, provider client and HTTP, every
 * request the scripted server receives is checked (`checkWellFormed`: each call's `arguments` is exactly
 * the JSON of one object, no lone surrogate anywhere; `checkPairing`: results paired). A recording tool
 * says what really ran, and the history must say the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { Action } from '../../../../source/store/actions.js'
import { replay } from '../../../../source/store/reducer.js'
import { initialState } from '../../../../source/store/state.js'
import { defineTool } from '../../../../source/tools/types.js'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'
import type { ScriptedCompletion, ScriptedToolCall } from '../../../support/scripted-types.ts'
import { makeHarness } from '../turn/loop-harness.js'

let server: ScriptedServer
beforeAll(async () => {
  server = await startScriptedServer()
})
afterAll(async () => {
  await server.close()
})

/** A tool that takes any object and records what it ran with, by call id. */
function recordingTool(ran: Map<string, unknown>) {
  return defineTool({
    name: 'Record',
    description: 'Records its arguments',
    schema: z.record(z.string(), z.unknown()),
    risk: 'read',
    isReadOnly: () => true,
    permissionTarget: () => ({ kind: 'none' }),
    preview: async () => ({ kind: 'none' }),
    summarize: () => 'Record',
    async execute(args, ctx) {
      ran.set(ctx.callId, structuredClone(args))
      return { forModel: 'recorded' }
    },
  })
}

type WireCall = { id: string; function: { name: string; arguments: string } }
type WireMessage = { role: string; content?: unknown; tool_calls?: WireCall[]; tool_call_id?: string }

/** Runs one session of `replies` (a final text reply is added) and checks every request it sent. */
async function session(replies: ScriptedCompletion[]) {
  const first = server.requests.length
  const violations = server.pairingViolations.length
  server.enqueue(...replies, { text: 'done' })
  const ran = new Map<string, unknown>()
  const actions: Action[] = []
  const h = makeHarness({
    baseUrl: server.baseUrl,
    tools: [recordingTool(ran)],
    maxSteps: replies.length + 2,
    breaker: { warnAt: 1000, pauseAt: 1000, hardStopAt: 1000 },
    observe: (action) => actions.push(action),
  })
  const result = await h.run('go')
  const requests = server.requests.slice(first)
  expect(server.pairingViolations.slice(violations)).toEqual([])
  expect(server.unexpectedRequests).toBe(0)
  // Every call in the last request's history: its arguments are what ran, or `{}` and an error result.
  const last = (requests.at(-1)?.body.messages ?? []) as WireMessage[]
  const results = new Map(
    last.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, String(m.content)]),
  )
  const calls = last.flatMap((m) => m.tool_calls ?? [])
  for (const call of calls) {
    const value: unknown = JSON.parse(call.function.arguments)
    if (ran.has(call.id)) expect(value, call.id).toEqual(ran.get(call.id))
    else {
      // Not run: refused for its arguments (`{}`), or a tool that does not exist (its JSON, for the model).
      if (call.function.name === 'Record') expect(call.function.arguments, call.id).toBe('{}')
      expect(results.get(call.id), call.id).toMatch(/"error"/)
    }
  }
  // Resuming the session rebuilds the same history from its log.
  const logged = actions.filter((a) => a.type !== 'assistant/delta')
  const resumed = replay(initialState(h.store.getState().session, 'dangerous'), logged)
  expect(resumed.messages).toEqual(h.store.getState().messages)
  return { result, ran, calls, requests }
}

const raw = (args: string, extra: Partial<ScriptedToolCall> = {}): ScriptedCompletion => ({
  toolCalls: [{ name: 'Record', arguments: args, ...extra }],
})

describe('tool-call arguments in the history', () => {
  it.each([
    ['a byte-order mark before the JSON', '\ufeff{"path":"a.txt"}', { path: 'a.txt' }],
    ['spaces and newlines around it', '\n  {"path" : "a.txt"}  \n', { path: 'a.txt' }],
    ['a code fence', '```json\n{"path":"a.txt"}\n```', { path: 'a.txt' }],
    ['duplicate keys', '{"path":"x","path":"a.txt"}', { path: 'a.txt' }],
    ['an escaped lone surrogate', '{"path":"a\\ud800.txt"}', { path: 'a\ufffd.txt' }],
    ['a raw lone surrogate', '{"path":"a\ud800.txt"}', { path: 'a\ufffd.txt' }],
    ['trailing garbage', '{"path":"a.txt"} and more', null],
    ['two objects', '{"path":"a"}{"path":"b"}', null],
    ['NaN', '{"n":NaN}', null],
    ['an array', '["a.txt"]', null],
    ['deep nesting', `{"a":${'['.repeat(50_000)}${']'.repeat(50_000)}}`, null],
    ['cut short', '{"path":"a.t', null],
  ])('%s', async (_what, args, runs) => {
    const { ran, calls } = await session([raw(args)])
    expect(calls).toHaveLength(1)
    expect([...ran.values()]).toEqual(runs === null ? [] : [runs])
  })

  it('a huge string runs and goes back whole', async () => {
    const content = 'é'.repeat(300_000)
    const { ran } = await session([raw(JSON.stringify({ content }), { id: 'huge' })])
    expect(ran.get('huge')).toEqual({ content })
  })

  it('assistant text with a lone surrogate goes back as U+FFFD; NUL is valid JSON and stays', async () => {
    const { requests } = await session([{ text: 'bad \ud800 text and a NUL \u0000 here', ...raw('{}') }])
    const assistant = ((requests[1]?.body.messages ?? []) as WireMessage[]).find(
      (m) => m.role === 'assistant',
    )
    expect(assistant?.content).toBe('bad \ufffd text and a NUL \u0000 here')
  })
})

/** mulberry32: a small seeded generator, so every run fuzzes the same 300 sessions. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** One model's mangling of a valid argument object: what fuzzing model replies turned up, and worse. */
const MANGLE: Array<(json: string, r: () => number) => string> = [
  (j) => j,
  (j) => `\ufeff${j}`,
  (j) => `  ${j}\n`,
  (j) => `\`\`\`json\n${j}\n\`\`\``,
  (j) => j.replace(/}$/, ',}'),
  (j) => `${j} trailing`,
  (j) => `${j}${j}`,
  (j) => j.replace(/^{/, '{"dup":1,"dup":2,'),
  (j) => j.replace(/^{/, '{"n":NaN,'),
  (j) => j.replace(/^{/, '{"s":"\\ud800",'),
  (j) => j.replace(/^{/, '{"\\udfff":"k",'),
  (j) => j.replace(/^{/, '{"raw":"\ud83d",'),
  (j) => j.replace(/^{/, '{"ctl":"\\u0000\\u001b]52;c;aGk=\\u0007",'),
  (j) => `[${j}]`,
  (j) => j.slice(0, Math.max(1, j.length - 3)),
  (j, r) => {
    const depth = r() < 0.5 ? 20 : 6000
    return j.replace(/^{/, `{"deep":${'['.repeat(depth)}${']'.repeat(depth)},`)
  },
  () => '',
  () => 'null',
]

function fuzzedReply(r: () => number, n: number): ScriptedCompletion {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)] as T
  const calls: ScriptedToolCall[] = Array.from({ length: 1 + Math.floor(r() * 3) }, (_, k) => {
    const base = JSON.stringify({
      path: `f${n}-${k}.txt`,
      count: Math.floor(r() * 100),
      text: 'x'.repeat(r() * 40),
    })
    return { name: r() < 0.1 ? 'Nope' : 'Record', arguments: pick(MANGLE)(base, r) }
  })
  const text = r() < 0.3 ? pick(['plain', 'lone \udc00 surrogate', 'nul \u0000 byte', '']) : undefined
  return {
    toolCalls: calls,
    fragments: pick(['fine', 'whole', 'late-ids', 'repeated-ids'] as const),
    chunkSize: 1 + Math.floor(r() * 64),
    ...(text !== undefined ? { text } : {}),
    ...(r() < 0.1 ? { finishReason: 'length' } : {}),
  }
}

describe('fuzzed model replies (seeded, 300 sessions)', () => {
  it('every request body holds a well-formed, paired history whose arguments are what ran', async () => {
    const r = random(0x5eed)
    let ranCount = 0
    let refusedCount = 0
    for (let n = 0; n < 300; n++) {
      const steps = Array.from({ length: 1 + Math.floor(r() * 2) }, () => fuzzedReply(r, n))
      const { ran, calls } = await session(steps)
      ranCount += ran.size
      refusedCount += calls.length - ran.size
    }
    // Both kinds of outcome were exercised.
    expect(ranCount).toBeGreaterThan(100)
    expect(refusedCount).toBeGreaterThan(100)
  }, 120_000)
})
