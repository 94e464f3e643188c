import type { ChatMessage } from './messages.js'
import type { State, TranscriptItem } from './state.js'

/** How the history and transcript collections grow: copied (normal) or in place (replay). */
export interface Collections {
  /** `id`: the transcript item the message belongs to ('' for messages the runtime adds). */
  withMessage(state: State, message: ChatMessage, id: string): State
  addItem(state: State, item: TranscriptItem): State
  putItem(state: State, item: TranscriptItem): State
}

export const IMMUTABLE: Collections = { withMessage, addItem, putItem }

/** Only for states whose collections replay() owns; never for a state the store has published. */
export const OWNED: Collections = {
  withMessage(state, message, id) {
    state.messages.push(message)
    state.context.messageIds.push(id)
    return state
  },
  addItem: putOwned,
  putItem: putOwned,
}

function putOwned(state: State, item: TranscriptItem): State {
  if (!state.transcript.items[item.id]) state.transcript.order.push(item.id)
  state.transcript.items[item.id] = item
  return state
}

function withMessage(state: State, message: ChatMessage, id: string): State {
  return {
    ...state,
    messages: [...state.messages, message],
    context: { ...state.context, messageIds: [...state.context.messageIds, id] },
  }
}

function addItem(state: State, item: TranscriptItem): State {
  if (state.transcript.items[item.id]) return putItem(state, item)
  return {
    ...state,
    transcript: {
      ...state.transcript,
      order: [...state.transcript.order, item.id],
      items: { ...state.transcript.items, [item.id]: item },
    },
  }
}

function putItem(state: State, item: TranscriptItem): State {
  if (!state.transcript.items[item.id]) return addItem(state, item)
  return {
    ...state,
    transcript: { ...state.transcript, items: { ...state.transcript.items, [item.id]: item } },
  }
}
