import stripAnsi from 'strip-ansi'
import type { Action } from '../../../source/store/actions.js'
import { reducer } from '../../../source/store/reducer.js'
import { initialState, type State, type TranscriptItem } from '../../../source/store/state.js'

export const SESSION = {
  id: 'sess-1',
  cwd: '/work/project',
  model: 'test-model',
  baseUrl: 'http://127.0.0.1:1/v1',
  title: 'Fix the parser',
  startedAt: Date.UTC(2026, 10, 1, 12, 0, 0),
}

export function baseState(): State {
  return initialState(SESSION, 'safe')
}

/** Reduces real actions over a state, as the runtime would dispatch them. */
export function apply(state: State, ...actions: Action[]): State {
  return actions.reduce(reducer, state)
}

export function plain(lines: readonly string[]): string[] {
  return lines.map((line) => stripAnsi(line))
}

export function userSubmitted(id: string, text: string): Action {
  return { type: 'user/submitted', id, content: text, text }
}

export function assistantSettled(id: string, content: string, reasoning?: string): Action {
  return {
    type: 'assistant/settled',
    id,
    message: { role: 'assistant', content, ...(reasoning ? { reasoning } : {}) },
  }
}

/**
 * A state with `count` items alternating user messages and short assistant replies. Small states go
 * through the reducer action by action; large ones reduce one exchange and then copy its items under
 * new ids, because dispatching thousands of appends one by one is quadratic (each copies the item map).
 */
export function longConversation(count: number): State {
  if (count <= 200) {
    let state = baseState()
    for (let i = 0; i < count; i++) state = reducer(state, exchangeAction(i))
    return state
  }
  const template = apply(baseState(), exchangeAction(0), exchangeAction(1))
  const [user, assistant] = template.transcript.order.map((id) => template.transcript.items[id])
  if (user?.kind !== 'user' || assistant?.kind !== 'assistant') throw new Error('unexpected template')
  const order: string[] = []
  const items: Record<string, TranscriptItem> = {}
  for (let i = 0; i < count; i++) {
    const item: TranscriptItem =
      i % 2 === 0
        ? { ...user, id: `u${i}`, text: `question ${i}` }
        : { ...assistant, id: `a${i}`, text: `answer ${i}\n\nsecond paragraph of ${i}` }
    order.push(item.id)
    items[item.id] = item
  }
  return { ...template, transcript: { ...template.transcript, order, items } }
}

function exchangeAction(i: number): Action {
  return i % 2 === 0
    ? userSubmitted(`u${i}`, `question ${i}`)
    : assistantSettled(`a${i}`, `answer ${i}\n\nsecond paragraph of ${i}`)
}
