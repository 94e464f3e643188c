import { describe, expect, it } from 'vitest'
import type { Action } from '../../../source/store/actions.js'
import { isPersisted } from '../../../source/store/actions.js'
import type { CompactionRecord, RequestStats } from '../../../source/store/domain.js'
import { reducer, replay } from '../../../source/store/reducer.js'
import { initialState, type State } from '../../../source/store/state.js'

const session = { id: 's1', cwd: '/w', model: 'm', baseUrl: 'http://x/v1', title: '', startedAt: 0 }
const fresh = () => initialState(session, 'safe')
const run = (actions: Action[], state: State = fresh()) => actions.reduce(reducer, state)

const conversation: Action[] = [
  { type: 'user/submitted', id: 'u1', content: 'read it', text: 'read it' },
  {
    type: 'assistant/settled',
    id: 'a1',
    message: {
      role: 'assistant',
      content: 'reading',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Read', arguments: '{}' } }],
    },
  },
  {
    type: 'tool/finished',
    callId: 'c1',
    name: 'Read',
    summary: 'Read a.ts',
    status: 'done',
    content: 'x'.repeat(500),
    preview: '',
    display: null,
    durationMs: 3,
  },
  { type: 'history/appended', message: { role: 'user', content: 'reminder' } },
]

const record: CompactionRecord = {
  id: 'compaction-1',
  summary: 'FILES MODIFIED: none',
  cut: 2,
  request: 0,
  trigger: 'manual',
  focus: 'tests',
  summarised: 2,
  tokensBefore: 900,
  tokensAfter: 300,
  at: 5,
}

describe('context state', () => {
  it('keeps the transcript item of each history message beside it (runtime-added ones have none)', () => {
    const state = run(conversation)
    expect(state.context.messageIds).toEqual(['u1', 'a1', 'c1', ''])
    expect(state.context.messageIds).toHaveLength(state.messages.length)
    expect(replay(fresh(), conversation).context.messageIds).toEqual(state.context.messageIds)
  })

  it('pins and unpins items, marked on the item itself', () => {
    let state = run([...conversation, { type: 'context/pinned', id: 'c1', pinned: true }])
    expect(state.context.pins).toEqual({ c1: true })
    expect(state.transcript.items.c1).toMatchObject({ pinned: true })
    state = reducer(state, { type: 'context/pinned', id: 'u1', pinned: true })
    state = reducer(state, { type: 'context/pinned', id: 'c1', pinned: false })
    expect(state.context.pins).toEqual({ u1: true })
    expect(state.transcript.items.c1).toMatchObject({ pinned: false })
    expect(state.transcript.items.u1).toMatchObject({ pinned: true })
  })

  it('shows a masked result as whole again the moment it is pinned', () => {
    const state = run([
      ...conversation,
      { type: 'context/masked', masked: ['c1'], unmasked: [] },
      { type: 'context/pinned', id: 'c1', pinned: true },
    ])
    expect(state.transcript.items.c1).toMatchObject({ pinned: true, masked: false })
  })

  it('marks and unmarks masked tool cards', () => {
    let state = run([...conversation, { type: 'context/masked', masked: ['c1'], unmasked: [] }])
    expect(state.transcript.items.c1).toMatchObject({ masked: true })
    state = reducer(state, { type: 'context/masked', masked: [], unmasked: ['c1'] })
    expect(state.transcript.items.c1).toMatchObject({ masked: false })
  })

  it('records a compaction and shows it as a card holding the summary; the history stays whole', () => {
    const state = run([...conversation, { type: 'context/compacted', compaction: record }])
    expect(state.context.compaction).toEqual(record)
    expect(state.context.compactions).toBe(1)
    expect(state.messages).toHaveLength(4)
    expect(state.transcript.items['compaction-1']).toMatchObject({
      kind: 'tool',
      name: 'Compact',
      status: 'done',
      summary: '2 messages summarised (focus: tests)',
      display: { kind: 'text', text: 'FILES MODIFIED: none' },
    })
  })

  it('folds the endpoint usage into the last request, and flags estimates until it comes', () => {
    const stats = { estimatedTokens: 1200, promptTokens: null, cachedTokens: null } as RequestStats
    let state = run([{ type: 'context/measured', stats }])
    expect(state.usage).toMatchObject({ contextTokens: 1200, contextEstimated: true })
    state = reducer(state, {
      type: 'usage/recorded',
      usage: { input: 1500, output: 10, cached: 700 },
      contextTokens: 1500,
    })
    expect(state.usage).toMatchObject({ contextTokens: 1500, contextEstimated: false })
    expect(state.context.lastRequest).toMatchObject({ promptTokens: 1500, cachedTokens: 700 })
    // A summariser call adds to the session's tokens but not to the context meter.
    state = reducer(state, {
      type: 'usage/recorded',
      usage: { input: 9000, output: 400, cached: 0 },
      contextTokens: 1500,
      purpose: 'compaction',
    })
    expect(state.usage).toMatchObject({ contextTokens: 1500, requests: 2 })
    expect(state.usage.session.input).toBe(10_500)
    expect(state.context.lastRequest?.promptTokens).toBe(1500)
  })

  it('keeps session overrides and a learned window through /clear; pins and compaction go', () => {
    const state = run([
      ...conversation,
      { type: 'context/pinned', id: 'c1', pinned: true },
      { type: 'context/compacted', compaction: record },
      { type: 'context/configured', observationWindow: 2, compactAt: 0.5 },
      { type: 'context/configured', learnedLimit: 4096 },
      { type: 'conversation/cleared' },
    ])
    expect(state.context).toMatchObject({
      messageIds: [],
      pins: {},
      compaction: null,
      overrides: { observationWindow: 2, compactAt: 0.5 },
      learnedLimit: 4096,
    })
  })

  it('a conversation rewind takes the ids and a compaction of what it removes along, and its undo brings them back', () => {
    const turns: Action[] = [
      { type: 'user/submitted', id: 'u1', content: 'first', text: 'first', turnId: 't1' },
      { type: 'assistant/settled', id: 'a1', message: { role: 'assistant', content: 'one' } },
      { type: 'user/submitted', id: 'u2', content: 'second', text: 'second', turnId: 't2' },
      { type: 'assistant/settled', id: 'a2', message: { role: 'assistant', content: 'two' } },
      { type: 'user/submitted', id: 'u3', content: 'third', text: 'third', turnId: 't3' },
      { type: 'assistant/settled', id: 'a3', message: { role: 'assistant', content: 'three' } },
    ]
    const compacted = run([
      ...turns,
      { type: 'context/compacted', compaction: { ...record, cut: 3, request: 2 } },
    ])
    // Back to the third turn: the compaction (cut 3) summarised only what stays.
    const kept = reducer(compacted, { type: 'conversation/rewound', rewindId: 'r1', turnId: 't3' })
    expect(kept.context.messageIds).toEqual(['u1', 'a1', 'u2', 'a2'])
    expect(kept.context.compaction?.id).toBe('compaction-1')
    // Back to the second: the summary spoke of a removed message, so it goes too.
    const rewound = reducer(compacted, { type: 'conversation/rewound', rewindId: 'r2', turnId: 't2' })
    expect(rewound.messages).toHaveLength(2)
    expect(rewound.context.messageIds).toEqual(['u1', 'a1'])
    expect(rewound.context.compaction).toBeNull()
    const undone = reducer(rewound, {
      type: 'rewind/undone',
      beforeTree: null,
      skipped: [],
      written: {},
      conversation: true,
    })
    expect(undone.messages).toHaveLength(6)
    expect(undone.context.messageIds).toEqual(compacted.context.messageIds)
    expect(undone.context.compaction).toEqual(compacted.context.compaction)
  })

  it('persists what resume needs and nothing that is telemetry', () => {
    const persisted = (type: Action['type']) => isPersisted({ type } as Action)
    const kinds: Action['type'][] = [
      'context/compacted',
      'context/pinned',
      'context/masked',
      'context/configured',
    ]
    expect(kinds.every(persisted)).toBe(true)
    expect(persisted('context/measured')).toBe(false)
    const log: Action[] = [
      ...conversation,
      { type: 'context/pinned', id: 'u1', pinned: true },
      { type: 'context/masked', masked: ['c1'], unmasked: [] },
      { type: 'context/compacted', compaction: record },
    ]
    expect(replay(fresh(), log)).toEqual(run(log))
  })
})
