import { describe, expect, it } from 'vitest'
import type { Action } from '../../../source/store/actions.js'
import { isPersisted } from '../../../source/store/actions.js'
import { createStore } from '../../../source/store/create-store.js'
import { reducer, replay } from '../../../source/store/reducer.js'
import { selectActiveConsent, selectRunningTaskCount } from '../../../source/store/selectors.js'
import { initialState, type State } from '../../../source/store/state.js'

const session = { id: 's1', cwd: '/w', model: 'm', baseUrl: 'http://x/v1', title: '', startedAt: 0 }
const fresh = () => initialState(session, 'safe')
const run = (actions: Action[], state: State = fresh()) => actions.reduce(reducer, state)

describe('reducer', () => {
  it('streams deltas into one live assistant item and settles it into history', () => {
    const s1 = run([
      { type: 'turn/started', turnId: 't', at: 1 },
      { type: 'user/submitted', id: 'u1', content: 'hi', text: 'hi' },
      { type: 'assistant/delta', id: 'a1', text: 'Hel' },
      { type: 'assistant/delta', id: 'a1', text: 'lo', reasoning: 'think' },
    ])
    expect(s1.transcript.liveId).toBe('a1')
    expect(s1.transcript.items.a1).toMatchObject({
      kind: 'assistant',
      text: 'Hello',
      reasoning: 'think',
      streaming: true,
    })
    expect(s1.messages).toEqual([{ role: 'user', content: 'hi' }])
    const s2 = reducer(s1, {
      type: 'assistant/settled',
      id: 'a1',
      message: { role: 'assistant', content: 'Hello' },
    })
    expect(s2.transcript.liveId).toBeNull()
    expect(s2.transcript.items.a1).toMatchObject({ text: 'Hello', streaming: false })
    expect(s2.transcript.order).toEqual(['u1', 'a1'])
    expect(s2.messages.at(-1)).toEqual({ role: 'assistant', content: 'Hello' })
  })

  it('withdraws a streaming reply whose stream broke, and the retry streams into a fresh item', () => {
    const s1 = run([
      { type: 'user/submitted', id: 'u1', content: 'hi', text: 'hi' },
      { type: 'assistant/delta', id: 'a1', text: 'partial' },
      { type: 'assistant/discarded', id: 'a1' },
    ])
    expect(s1.transcript.order).toEqual(['u1'])
    expect(s1.transcript.items.a1).toBeUndefined()
    expect(s1.transcript.liveId).toBeNull()
    expect(s1.messages).toEqual([{ role: 'user', content: 'hi' }])
    const s2 = run([{ type: 'assistant/delta', id: 'a1', text: 'whole' }], s1)
    expect(s2.transcript.items.a1).toMatchObject({ text: 'whole', streaming: true })
    // A settled reply is history: it is never withdrawn.
    const settled = run(
      [{ type: 'assistant/settled', id: 'a1', message: { role: 'assistant', content: 'whole' } }],
      s2,
    )
    expect(reducer(settled, { type: 'assistant/discarded', id: 'a1' })).toBe(settled)
    expect(reducer(settled, { type: 'assistant/discarded', id: 'nope' })).toBe(settled)
  })

  it('updates a notice in place by id, and a logged notice/added with that id settles it', () => {
    const update = (text: string): Action => ({ type: 'notice/updated', id: 'n1', level: 'warn', text })
    const s1 = run([
      { type: 'user/submitted', id: 'u1', content: 'hi', text: 'hi' },
      update('attempt 1 of 5 failed; next try in 0.7 s'),
      update('attempt 2 of 5 failed; next try in 1.4 s'),
    ])
    expect(s1.transcript.order).toEqual(['u1', 'n1'])
    expect(s1.transcript.items.n1).toMatchObject({ text: 'attempt 2 of 5 failed; next try in 1.4 s' })
    expect(reducer(s1, update('attempt 2 of 5 failed; next try in 1.4 s'))).toBe(s1)
    expect(isPersisted(update('x'))).toBe(false)
    const s2 = reducer(s1, { type: 'notice/added', id: 'n1', level: 'error', text: 'gave up' })
    expect(s2.transcript.order).toEqual(['u1', 'n1'])
    expect(s2.transcript.items.n1).toEqual({ kind: 'notice', id: 'n1', level: 'error', text: 'gave up' })
  })

  it('creates pending tool cards from tool calls and pairs results in history', () => {
    const call = {
      id: 'c1',
      type: 'function' as const,
      function: { name: 'Read', arguments: '{"file_path":"a"}' },
    }
    const s = run([
      {
        type: 'assistant/settled',
        id: 'a1',
        message: { role: 'assistant', content: null, tool_calls: [call] },
      },
    ])
    expect(s.transcript.items.c1).toMatchObject({ kind: 'tool', status: 'pending', name: 'Read' })
    expect(s.transcript.order).toEqual(['c1'])
    const s2 = run(
      [
        { type: 'tool/started', callId: 'c1', name: 'Read', summary: 'Read a', at: 5 },
        { type: 'tool/progress', callId: 'c1', preview: 'line' },
        {
          type: 'tool/finished',
          callId: 'c1',
          name: 'Read',
          summary: 'Read a',
          status: 'done',
          content: '1\tx',
          preview: '1\tx',
          display: null,
          durationMs: 3,
        },
      ],
      s,
    )
    expect(s2.transcript.items.c1).toMatchObject({
      status: 'done',
      summary: 'Read a',
      durationMs: 3,
      result: '1\tx',
    })
    expect(s2.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: '1\tx' })
  })

  it('returns the same object for actions that change nothing', () => {
    const s = fresh()
    expect(reducer(s, { type: 'mode/changed', mode: 'safe' })).toBe(s)
    expect(reducer(s, { type: 'consent/resolved', id: 'nope' })).toBe(s)
    expect(reducer(s, { type: 'tool/progress', callId: 'missing', preview: 'x' })).toBe(s)
    expect(reducer(s, { type: 'assistant/delta', id: 'a', text: '' })).toBe(s)
  })

  it('meters usage per step, turn and session', () => {
    const s = run([
      { type: 'turn/started', turnId: 't1', at: 0 },
      { type: 'usage/recorded', usage: { input: 100, output: 10, cached: 40 }, contextTokens: 100 },
      { type: 'usage/recorded', usage: { input: 150, output: 5, cached: 100 }, contextTokens: 150 },
      { type: 'turn/ended', result: { kind: 'completed', text: '', steps: 2 } },
      { type: 'turn/started', turnId: 't2', at: 0 },
      { type: 'usage/recorded', usage: { input: 200, output: 1, cached: 0 }, contextTokens: 200 },
    ])
    expect(s.usage.session).toEqual({ input: 450, output: 16, cached: 140 })
    expect(s.usage.turn).toEqual({ input: 200, output: 1, cached: 0 })
    expect(s.usage.lastStep).toEqual({ input: 200, output: 1, cached: 0 })
    expect(s.usage.requests).toBe(3)
  })

  it('queues consent requests in order and removes resolved ones', () => {
    const req = (id: string) => ({
      id,
      callId: `c-${id}`,
      tool: 'Edit',
      risk: 'edit' as const,
      summary: 'Edit a',
      reason: 'safe mode asks before edits',
      preview: { kind: 'none' as const },
      suggestedRule: 'Edit(**)',
      createdAt: 0,
    })
    const s = run([
      { type: 'consent/requested', request: req('k1') },
      { type: 'consent/requested', request: req('k2') },
    ])
    expect(selectActiveConsent(s)?.id).toBe('k1')
    const s2 = reducer(s, { type: 'consent/resolved', id: 'k1' })
    expect(selectActiveConsent(s2)?.id).toBe('k2')
    expect(s2.consent.queue).toEqual(['k2'])
  })

  it('upserts task summaries keeping start order', () => {
    const task = (id: string, status: 'running' | 'completed') => ({
      id,
      kind: 'bash' as const,
      command: 'sleep 1',
      status,
      exitCode: null,
      startedAt: 0,
      endedAt: null,
      lastLine: '',
      outputBytes: 0,
      logPath: '/tmp/x',
    })
    const s = run([
      { type: 'task/updated', task: task('b1', 'running') },
      { type: 'task/updated', task: task('b2', 'running') },
      { type: 'task/updated', task: task('b1', 'completed') },
    ])
    expect(s.tasks.order).toEqual(['b1', 'b2'])
    expect(selectRunningTaskCount(s)).toBe(1)
  })

  it('toggles UI flags without touching the conversation', () => {
    const s = run([
      { type: 'ui/todos-toggled' },
      { type: 'ui/expand-toggled', id: 'c1' },
      { type: 'ui/focus', focus: 'tasks' },
      { type: 'ui/editor-mode', mode: 'vim' },
    ])
    expect(s.ui).toEqual({
      focus: 'tasks',
      showTodos: false,
      todosExpanded: false,
      expanded: { c1: true },
      rewind: false,
      editorMode: 'vim',
    })
    expect(s.messages).toEqual([])
    expect(isPersisted({ type: 'ui/editor-mode', mode: 'vim' })).toBe(false)
    expect(reducer(s, { type: 'ui/expand-toggled', id: 'c1' }).ui.expanded).toEqual({})
  })

  it('replaying persisted actions rebuilds the same history and transcript', () => {
    const log: Action[] = []
    const store = createStore(fresh(), (action) => {
      if (isPersisted(action)) log.push(action)
    })
    const call = {
      id: 'c1',
      type: 'function' as const,
      function: { name: 'Bash', arguments: '{"command":"ls"}' },
    }
    const actions: Action[] = [
      { type: 'turn/started', turnId: 't', at: 0 },
      { type: 'user/submitted', id: 'u1', content: 'list', text: 'list' },
      { type: 'assistant/delta', id: 'a1', text: 'Listing' },
      {
        type: 'assistant/settled',
        id: 'a1',
        message: { role: 'assistant', content: 'Listing', tool_calls: [call] },
      },
      { type: 'tool/started', callId: 'c1', name: 'Bash', summary: 'Bash ls', at: 1 },
      {
        type: 'tool/finished',
        callId: 'c1',
        name: 'Bash',
        summary: 'Bash ls',
        status: 'done',
        content: 'a\nb',
        preview: 'a\nb',
        display: null,
        durationMs: 2,
      },
      { type: 'todos/replaced', todos: [{ content: 'x', status: 'pending', activeForm: 'Xing' }] },
      { type: 'turn/ended', result: { kind: 'completed', text: 'Listing', steps: 2 } },
    ]
    for (const a of actions) store.dispatch(a)
    expect(log.map((a) => a.type)).not.toContain('assistant/delta')
    const replayed = run(log)
    expect(replayed.messages).toEqual(store.getState().messages)
    expect(replay(fresh(), log)).toEqual(replayed)
    expect(replayed.transcript.order).toEqual(store.getState().transcript.order)
    expect(replayed.todos).toEqual(store.getState().todos)
  })
})

describe('createStore', () => {
  it('notifies subscribers only on change', () => {
    const store = createStore(fresh())
    let calls = 0
    const off = store.subscribe(() => calls++)
    store.dispatch({ type: 'mode/changed', mode: 'safe' })
    store.dispatch({ type: 'mode/changed', mode: 'auto' })
    off()
    store.dispatch({ type: 'mode/changed', mode: 'plan' })
    expect(calls).toBe(1)
    expect(store.getState().mode).toBe('plan')
  })
})

describe('replay', () => {
  it('matches reducing action by action, including a clear, and leaves the input state untouched', () => {
    const start = run([{ type: 'user/submitted', id: 'u0', content: 'before', text: 'before' }])
    const log: Action[] = []
    for (let i = 0; i < 300; i++) {
      log.push({ type: 'user/submitted', id: `u${i + 1}`, content: `q${i}`, text: `q${i}` })
      log.push({ type: 'assistant/settled', id: `a${i}`, message: { role: 'assistant', content: `a${i}` } })
      if (i === 100) log.push({ type: 'conversation/cleared' })
    }
    const expected = log.reduce(reducer, start)
    const snapshot = structuredClone(start)
    expect(replay(start, log)).toEqual(expected)
    expect(start).toEqual(snapshot)
    expect(expected.transcript.order).toHaveLength(398)
  })
})

describe('subagent accounting and the main agent', () => {
  it("adds a subagent's tokens to the session and the turn, not to the context or the request count", () => {
    const s = run([
      { type: 'turn/started', turnId: 't', at: 1 },
      { type: 'usage/recorded', usage: { input: 100, output: 10, cached: 50 }, contextTokens: 110 },
      { type: 'usage/subagent', usage: { input: 40, output: 4, cached: 0 }, agent: 'explore · x' },
      { type: 'usage/subagent', usage: { input: 60, output: 6, cached: 10 }, agent: 'plan · y' },
    ])
    expect(s.usage.session).toEqual({ input: 200, output: 20, cached: 60 })
    expect(s.usage.turn).toEqual({ input: 200, output: 20, cached: 60 })
    expect(s.usage.subagents).toEqual({ input: 100, output: 10, cached: 10 })
    expect(s.usage.lastStep).toEqual({ input: 100, output: 10, cached: 50 })
    expect(s.usage.contextTokens).toBe(110)
    expect(s.usage.requests).toBe(1)
    expect(isPersisted({ type: 'usage/subagent', usage: s.usage.session, agent: 'a' })).toBe(true)
  })

  it('records which agent the main session runs as, and replays it', () => {
    expect(fresh().agent).toBe('build')
    const actions: Action[] = [{ type: 'agent/changed', agent: 'explore' }]
    expect(run(actions).agent).toBe('explore')
    expect(replay(fresh(), actions).agent).toBe('explore')
    expect(isPersisted(actions[0] as Action)).toBe(true)
  })
})

describe('/clear is a clean slate', () => {
  it('forgets the title and the turns /rewind lists, so the next prompt starts a new conversation', () => {
    const s = run([
      { type: 'session/titled', title: 'fix the parser' },
      { type: 'user/submitted', id: 'u1', content: 'fix the parser', text: 'fix the parser', turnId: 't1' },
      { type: 'conversation/cleared' },
    ])
    expect(s.session.title).toBe('')
    expect(s.turns).toEqual([])
    const after = reducer(s, { type: 'user/submitted', id: 'u2', content: 'new', text: 'new', turnId: 't2' })
    expect(after.turns.map((t) => t.id)).toEqual(['t2'])
  })
})
