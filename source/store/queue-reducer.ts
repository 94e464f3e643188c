import type { Action } from './actions.js'
import type { State, ToolItem } from './state.js'

/** The messages waiting for the next step, as the runtime's queue reports them. */
export function reduceQueue(
  state: State,
  action: Extract<Action, { type: 'queue/added' } | { type: 'queue/removed' }>,
): State {
  if (action.type === 'queue/added') return { ...state, queued: [...state.queued, action.message] }
  const gone = new Set(action.ids)
  const queued = state.queued.filter((m) => !gone.has(m.id))
  return queued.length === state.queued.length ? state : { ...state, queued }
}

/**
 * Marks (or clears) the tool card of `callId` as waiting on the user (its permission prompt, question or
 * plan approval); anything else is left alone. Live actions only, so the transcript is copied.
 */
export function markWaiting(state: State, callId: string, waiting: ToolItem['waiting']): State {
  const item = state.transcript.items[callId]
  if (item?.kind !== 'tool' || item.waiting === waiting) return state
  const { waiting: _was, ...rest } = item
  const next: ToolItem = waiting ? { ...rest, waiting } : rest
  return {
    ...state,
    transcript: { ...state.transcript, items: { ...state.transcript.items, [callId]: next } },
  }
}
