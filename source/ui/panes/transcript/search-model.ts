import { stepMatch } from './search-match.js'

/**
 * The transcript search as a pure state machine: closed, or open with the keys in its field (typing edits
 * the query) or on the transcript (n/N move, `/` goes back to the field). `current` indexes the matches of
 * the frame; the controller (`transcript-search.ts`) picks it when the query changes.
 */
export type SearchPhase = 'closed' | 'field' | 'transcript'

export interface SearchState {
  phase: SearchPhase
  query: string
  /** The current match, -1 for none. */
  current: number
}

export const SEARCH_CLOSED: SearchState = Object.freeze({ phase: 'closed', query: '', current: -1 })

export type SearchEvent =
  /** Ctrl+F, or `/` on the transcript: the field takes the keys (a fresh query when it was closed). */
  | { type: 'open' }
  /** Tab: the keys go to the transcript (n/N), or back to the field. */
  | { type: 'toggle-focus' }
  /** Typed or pasted text; line breaks and control characters are dropped. */
  | { type: 'input'; text: string }
  | { type: 'backspace' }
  /** Ctrl+U. */
  | { type: 'clear' }
  /** The current match after the query changed: the first one at or below the view. */
  | { type: 'pick'; current: number }
  /** Next (1) or previous (-1) match of `count`, wrapping around at the ends. */
  | { type: 'step'; direction: 1 | -1; count: number }
  | { type: 'close' }

export function reduceSearch(state: SearchState, event: SearchEvent): SearchState {
  if (event.type === 'open') {
    if (state.phase === 'field') return state
    return state.phase === 'closed'
      ? { phase: 'field', query: '', current: -1 }
      : { ...state, phase: 'field' }
  }
  if (state.phase === 'closed') return state
  switch (event.type) {
    case 'toggle-focus':
      return { ...state, phase: state.phase === 'field' ? 'transcript' : 'field' }
    case 'input': {
      // One line of text: a pasted block searches its first line.
      const text = event.text.split(/\r?\n|\r/)[0]?.replace(/[\x00-\x1f\x7f]/g, '') ?? ''
      return text === '' ? state : { ...state, query: state.query + text, current: -1 }
    }
    case 'backspace':
      return state.query === ''
        ? state
        : { ...state, query: [...state.query].slice(0, -1).join(''), current: -1 }
    case 'clear':
      return state.query === '' ? state : { ...state, query: '', current: -1 }
    case 'pick':
      return state.current === event.current ? state : { ...state, current: event.current }
    case 'step':
      return { ...state, current: stepMatch(state.current, event.count, event.direction) }
    case 'close':
      return SEARCH_CLOSED
  }
}
