import type { Action } from './actions.js'
import { reducer } from './reducer.js'
import type { State } from './state.js'

export type Listener = () => void
export type Dispatch = (action: Action) => void

export interface Store {
  getState(): State
  dispatch: Dispatch
  subscribe(listener: Listener): () => void
}

/**
 * A tiny external store (no React). `onAction` sees every action after it was applied — the runtime
 * uses it to append persisted actions to the session log.
 */
export function createStore(initial: State, onAction?: (action: Action, state: State) => void): Store {
  let state = initial
  const listeners = new Set<Listener>()
  return {
    getState: () => state,
    dispatch(action) {
      const next = reducer(state, action)
      onAction?.(action, next)
      if (next === state) return
      state = next
      for (const listener of [...listeners]) listener()
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
