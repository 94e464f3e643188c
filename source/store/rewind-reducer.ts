import type { ContentPart } from './messages.js'
import type { PersistedAction } from './actions.js'
import type { State, TimelineEntry, TranscriptItem, TurnMark } from './state.js'

/**
 * Turn marks, checkpoint records and rewinds. Every change here is a persisted action, so replaying a
 * session log (resume) reaches the same turns, the same record of what the agent left in each file, and
 * the same rewound conversation as the live session had.
 */

type Of<T extends PersistedAction['type']> = Extract<PersistedAction, { type: T }>

/** Called before a turn's first message is appended: remembers where the conversation stands. */
export function markTurn(state: State, turnId: string, prompt: string): State {
  const mark: TurnMark = {
    id: turnId,
    prompt,
    messageIndex: state.messages.length,
    transcriptIndex: state.transcript.order.length,
    todos: state.todos,
    contextTokens: state.usage.contextTokens,
    seq: state.checkpoints.timeline.length,
    files: [],
    skipped: [],
  }
  return { ...state, turns: [...state.turns, mark] }
}

/** A conversation that moved on since a rewind cannot take the removed part back. */
export function dropConversationUndo(state: State): State {
  const undo = state.checkpoints.undo
  if (!undo?.conversation) return state
  return { ...state, checkpoints: { ...state.checkpoints, undo: { ...undo, conversation: null } } }
}

export function checkpointCreated(state: State, action: Of<'checkpoint/created'>): State {
  const entry: TimelineEntry = {
    tree: action.tree,
    skipped: action.skipped,
    turnId: action.turnId,
    ...(action.note ? { note: action.note } : {}),
  }
  const next = withTurn(state, action.turnId, (mark) => ({
    ...mark,
    skipped: action.skipped,
    ...(action.note ? { note: action.note } : {}),
  }))
  return withTimeline(next, entry)
}

export function checkpointChanged(state: State, action: Of<'checkpoint/changed'>): State {
  const paths = Object.keys(action.files)
  if (paths.length === 0) return state
  const next = withTurn(state, action.turnId, (mark) => {
    const seen = new Set(mark.files)
    const added = paths.filter((p) => !seen.has(p))
    return added.length ? { ...mark, files: [...mark.files, ...added] } : mark
  })
  return {
    ...next,
    checkpoints: { ...next.checkpoints, known: { ...next.checkpoints.known, ...action.files } },
  }
}

export function codeRewound(state: State, action: Of<'code/rewound'>): State {
  const mark = state.turns.find((t) => t.id === action.turnId)
  const next = withTimeline(state, { tree: action.undoTree, skipped: action.skipped })
  return {
    ...next,
    checkpoints: {
      ...next.checkpoints,
      known: { ...next.checkpoints.known, ...action.written },
      undo: {
        id: action.rewindId,
        turnId: action.turnId,
        prompt: mark?.prompt ?? '',
        code: { tree: action.undoTree, paths: Object.keys(action.written) },
        conversation: null,
      },
    },
  }
}

export function conversationRewound(state: State, action: Of<'conversation/rewound'>): State {
  const at = state.turns.findIndex((t) => t.id === action.turnId)
  const mark = state.turns[at]
  if (!mark || !conversationReachable(state, mark)) return state
  const keptOrder = state.transcript.order.slice(0, mark.transcriptIndex)
  const removedIds = state.transcript.order.slice(mark.transcriptIndex)
  const items = { ...state.transcript.items }
  const removed: TranscriptItem[] = []
  for (const id of removedIds) {
    const item = items[id]
    if (item) removed.push(item)
    delete items[id]
  }
  const expanded = { ...state.ui.expanded }
  for (const id of removedIds) delete expanded[id]
  const previous = state.checkpoints.undo
  return {
    ...state,
    messages: state.messages.slice(0, mark.messageIndex),
    transcript: { order: keptOrder, items, liveId: null },
    todos: mark.todos,
    usage: { ...state.usage, contextTokens: mark.contextTokens },
    ui: { ...state.ui, expanded },
    turns: state.turns.slice(0, at),
    checkpoints: {
      ...state.checkpoints,
      undo: {
        id: action.rewindId,
        turnId: mark.id,
        prompt: mark.prompt,
        // The code half of the same rewind was recorded just before (both halves share the id).
        code: previous?.id === action.rewindId ? previous.code : null,
        conversation: {
          messages: state.messages.slice(mark.messageIndex),
          items: removed,
          turns: state.turns.slice(at),
          todos: state.todos,
          contextTokens: state.usage.contextTokens,
        },
      },
    },
  }
}

export function rewindUndone(state: State, action: Of<'rewind/undone'>): State {
  const base = action.beforeTree
    ? withTimeline(state, { tree: action.beforeTree, skipped: action.skipped })
    : state
  const checkpoints = {
    ...base.checkpoints,
    known: { ...base.checkpoints.known, ...action.written },
    undo: null,
  }
  const stash = action.conversation ? state.checkpoints.undo?.conversation : null
  if (!stash) return { ...base, checkpoints }
  const items = { ...state.transcript.items }
  for (const item of stash.items) items[item.id] = item
  // Items added since the rewind (its notice) sit before the restored ones now: move the marks along.
  const first = stash.turns[0]
  const itemShift = first ? state.transcript.order.length - first.transcriptIndex : 0
  const messageShift = first ? state.messages.length - first.messageIndex : 0
  const turns = stash.turns.map((t) =>
    t.messageIndex < 0
      ? t
      : { ...t, messageIndex: t.messageIndex + messageShift, transcriptIndex: t.transcriptIndex + itemShift },
  )
  return {
    ...base,
    messages: [...state.messages, ...stash.messages],
    transcript: {
      order: [...state.transcript.order, ...stash.items.map((i) => i.id)],
      items,
      liveId: null,
    },
    todos: stash.todos,
    usage: { ...state.usage, contextTokens: stash.contextTokens },
    turns: [...state.turns, ...turns],
    checkpoints,
  }
}

/** After /clear: a new conversation, whose /rewind list starts empty. */
export function turnsAfterClear(state: State): State {
  const undo = state.checkpoints.undo
  return {
    ...state,
    // /rewind lists the turns of this conversation only; the last rewind stays undoable (its files).
    turns: [],
    checkpoints: { ...state.checkpoints, undo: undo ? { ...undo, conversation: null } : null },
  }
}

/**
 * Whether the history still holds this turn's message where the mark says. A history rewritten since
 * (compaction, /clear) no longer does, and the conversation cannot go back there.
 */
export function conversationReachable(state: State, mark: TurnMark): boolean {
  if (mark.messageIndex < 0) return false
  const message = state.messages[mark.messageIndex]
  if (message?.role !== 'user') return false
  return textOf(message.content) === mark.prompt
}

function textOf(content: string | readonly ContentPart[]): string {
  if (typeof content === 'string') return content
  const part = content.find((p) => p.type === 'text')
  return part?.type === 'text' ? part.text : ''
}

function withTimeline(state: State, entry: TimelineEntry): State {
  return {
    ...state,
    checkpoints: { ...state.checkpoints, timeline: [...state.checkpoints.timeline, entry] },
  }
}

function withTurn(state: State, turnId: string, update: (mark: TurnMark) => TurnMark): State {
  const at = state.turns.findIndex((t) => t.id === turnId)
  const mark = state.turns[at]
  if (!mark) return state
  const next = update(mark)
  if (next === mark) return state
  const turns = [...state.turns]
  turns[at] = next
  return { ...state, turns }
}
