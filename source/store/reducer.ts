import { addUsage, ZERO_USAGE } from './messages.js'
import type { Action } from './actions.js'
import {
  checkpointChanged,
  checkpointCreated,
  codeRewound,
  conversationRewound,
  dropConversationUndo,
  markTurn,
  rewindUndone,
  turnsAfterClear,
} from './rewind-reducer.js'
import { markWaiting, reduceQueue } from './queue-reducer.js'
import { contextAfterRewind, contextAfterUndo } from './context-rewind.js'
import { type Collections, IMMUTABLE, OWNED } from './collections.js'
import { reduceContext } from './context-reducer.js'
import { reduceMcpChanges } from './mcp-reducer.js'
import { emptyContext, newToolItem, type State, type TranscriptItem } from './state.js'

/** Pure and total: returns the same object when an action changes nothing. */
export function reducer(state: State, action: Action): State {
  return reduceWith(IMMUTABLE, state, action)
}

/**
 * Rebuilds a state from a whole action log (session resume). Same transitions as `reducer`, but the
 * history and transcript collections are copied once and then appended in place, so replaying N
 * actions costs O(N) instead of O(N²) — a 5,000-item session resumes in milliseconds.
 */
export function replay(state: State, actions: Iterable<Action>): State {
  let next: State = {
    ...state,
    messages: [...state.messages],
    context: { ...state.context, messageIds: [...state.context.messageIds] },
    transcript: {
      ...state.transcript,
      order: [...state.transcript.order],
      items: { ...state.transcript.items },
    },
  }
  for (const action of actions) next = reduceWith(OWNED, next, action)
  return next
}

function reduceWith(c: Collections, state: State, action: Action): State {
  switch (action.type) {
    case 'session/started':
      return { ...state, session: action.session, mode: action.mode, launchMode: action.mode }
    case 'session/titled':
      return { ...state, session: { ...state.session, title: action.title } }
    case 'status/line':
      return state.ui.statusLine === action.text
        ? state
        : { ...state, ui: { ...state.ui, statusLine: action.text } }
    case 'session/renamed':
      return { ...state, session: { ...state.session, title: action.title, named: true } }
    case 'conversation/cleared':
      return {
        ...turnsAfterClear(state),
        // A clean slate: the next prompt titles the session (and its export) again, unless the user named it.
        session: { ...state.session, title: state.session.named ? state.session.title : '' },
        messages: [],
        transcript: { order: [], items: {}, liveId: null },
        todos: [],
        usage: { ...state.usage, contextTokens: 0, contextEstimated: false },
        context: {
          ...emptyContext(),
          overrides: state.context.overrides,
          learnedLimit: state.context.learnedLimit,
        },
        ui: { ...state.ui, expanded: {} },
      }
    case 'model/changed':
      return { ...state, session: { ...state.session, model: action.model } }
    case 'sandbox/changed':
      return { ...state, sandbox: action.sandbox }
    case 'user/submitted': {
      const base = dropConversationUndo(action.turnId ? markTurn(state, action.turnId, action.text) : state)
      return c.withMessage(
        c.addItem(base, {
          kind: 'user',
          id: action.id,
          text: action.text,
          images: countImages(action.content),
          ...(action.attachments?.length ? { attachments: action.attachments } : {}),
        }),
        { role: 'user', content: action.content },
        action.id,
      )
    }
    case 'assistant/delta':
      return applyDelta(c, state, action.id, action.text ?? '', action.reasoning ?? '')
    case 'assistant/settled':
      return settleAssistant(c, dropConversationUndo(state), action.id, action.message)
    case 'tool/started': {
      const existing = state.transcript.items[action.callId]
      const base =
        existing?.kind === 'tool' ? existing : newToolItem(action.callId, action.name, action.summary)
      // The tool that runs names the card: CallTool's call shows as the tool it called.
      return c.putItem(state, {
        ...base,
        name: action.name,
        summary: action.summary,
        status: 'running',
        startedAt: action.at,
      })
    }
    case 'tool/progress': {
      const item = state.transcript.items[action.callId]
      if (item?.kind !== 'tool' || item.preview === action.preview) return state
      return c.putItem(state, { ...item, preview: action.preview })
    }
    case 'tool/finished': {
      const existing = state.transcript.items[action.callId]
      const base =
        existing?.kind === 'tool' ? existing : newToolItem(action.callId, action.name, action.summary)
      const { waiting: _waiting, ...settled } = base
      const item: TranscriptItem = {
        ...settled,
        name: action.name,
        summary: action.summary,
        status: action.status,
        durationMs: action.durationMs,
        preview: action.preview,
        display: action.display,
        result: action.content,
      }
      const ran =
        action.arguments === undefined ? state : withCallArguments(state, action.callId, action.arguments)
      return c.withMessage(
        c.putItem(dropConversationUndo(ran), item),
        {
          role: 'tool',
          tool_call_id: action.callId,
          content: action.content,
        },
        action.callId,
      )
    }
    case 'history/appended': {
      const next = c.withMessage(dropConversationUndo(state), action.message, '')
      if (!action.note) return next
      const id = `note-${state.messages.length}`
      return c.addItem(next, { kind: 'notice', id, level: 'info', text: action.note })
    }
    case 'checkpoint/created':
      return checkpointCreated(state, action)
    case 'checkpoint/changed':
      return checkpointChanged(state, action)
    case 'code/rewound':
      return codeRewound(state, action)
    case 'conversation/rewound':
      return contextAfterRewind(state, conversationRewound(state, action))
    case 'rewind/undone':
      return contextAfterUndo(state, rewindUndone(state, action))
    case 'mode/changed':
      return state.mode === action.mode ? state : { ...state, mode: action.mode }
    case 'todos/replaced':
      return { ...state, todos: action.todos }
    case 'usage/recorded': {
      const usage = {
        ...state.usage,
        session: addUsage(state.usage.session, action.usage),
        turn: addUsage(state.usage.turn, action.usage),
        requests: state.usage.requests + 1,
      }
      // A summariser call costs tokens but says nothing about the conversation's own prompt.
      if (action.purpose === 'compaction') return { ...state, usage }
      const last = state.context.lastRequest
      return {
        ...state,
        usage: {
          ...usage,
          lastStep: action.usage,
          contextTokens: action.contextTokens,
          contextEstimated: false,
        },
        context:
          last && last.promptTokens === null
            ? {
                ...state.context,
                lastRequest: { ...last, promptTokens: action.usage.input, cachedTokens: action.usage.cached },
              }
            : state.context,
      }
    }
    case 'context/measured':
    case 'context/compacted':
    case 'context/pinned':
    case 'context/masked':
    case 'context/configured':
      return reduceContext(c, state, action)
    case 'usage/subagent':
      return {
        ...state,
        usage: {
          ...state.usage,
          session: addUsage(state.usage.session, action.usage),
          turn: addUsage(state.usage.turn, action.usage),
          subagents: addUsage(state.usage.subagents, action.usage),
        },
      }
    case 'agent/changed':
      return state.agent === action.agent ? state : { ...state, agent: action.agent }
    case 'notice/added':
      return c.addItem(state, { kind: 'notice', id: action.id, level: action.level, text: action.text })
    case 'context/warned':
      return c.addItem(state, { kind: 'notice', id: action.id, level: 'warn', text: action.text })
    case 'hook/ran':
      return c.addItem(state, {
        kind: 'hook',
        id: action.id,
        event: action.event,
        level: action.level,
        text: action.text,
        detail: action.detail,
      })
    case 'notice/updated': {
      const existing = state.transcript.items[action.id]
      if (existing?.kind === 'notice' && existing.level === action.level && existing.text === action.text)
        return state
      return c.putItem(state, { kind: 'notice', id: action.id, level: action.level, text: action.text })
    }
    case 'assistant/discarded':
      return discardAssistant(state, action.id)
    case 'turn/started':
      return {
        ...state,
        run: { ...state.run, phase: 'requesting', turnId: action.turnId, turnStartedAt: action.at, step: 0 },
        usage: { ...state.usage, turn: ZERO_USAGE },
      }
    case 'step/started':
      return { ...state, run: { ...state.run, step: action.step } }
    case 'phase/changed':
      return state.run.phase === action.phase
        ? state
        : { ...state, run: { ...state.run, phase: action.phase } }
    case 'turn/ended':
      return {
        ...state,
        run: { ...state.run, phase: 'idle', turnId: null, turnStartedAt: null, lastResult: action.result },
        transcript: { ...state.transcript, liveId: null },
      }
    case 'consent/requested':
      return {
        ...markWaiting(state, action.request.callId, 'approval'),
        consent: {
          queue: [...state.consent.queue, action.request.id],
          byId: { ...state.consent.byId, [action.request.id]: action.request },
        },
      }
    case 'consent/resolved': {
      const request = state.consent.byId[action.id]
      if (!request) return state
      const { [action.id]: _gone, ...byId } = state.consent.byId
      const consent = { queue: state.consent.queue.filter((id) => id !== action.id), byId }
      return { ...markWaiting(state, request.callId, undefined), consent }
    }
    case 'question/requested':
      return {
        ...markWaiting(state, action.request.callId, 'answer'),
        questions: {
          queue: [...state.questions.queue, action.request.id],
          byId: { ...state.questions.byId, [action.request.id]: action.request },
        },
      }
    case 'question/resolved': {
      const request = state.questions.byId[action.id]
      if (!request) return state
      const { [action.id]: _gone, ...byId } = state.questions.byId
      const questions = { queue: state.questions.queue.filter((id) => id !== action.id), byId }
      return { ...markWaiting(state, request.callId, undefined), questions }
    }
    case 'trust/requested':
      return { ...state, trust: action.request }
    case 'trust/resolved':
      return state.trust?.id === action.id ? { ...state, trust: null } : state
    case 'task/updated': {
      const known = action.task.id in state.tasks.byId
      return {
        ...state,
        tasks: {
          order: known ? state.tasks.order : [...state.tasks.order, action.task.id],
          byId: { ...state.tasks.byId, [action.task.id]: action.task },
        },
      }
    }
    case 'mcp/servers':
      return { ...state, mcp: { ...state.mcp, servers: action.servers } }
    case 'mcp/toggled':
    case 'mcp/added':
    case 'mcp/removed': {
      const changes = reduceMcpChanges(state.mcp.changes, action)
      return changes === state.mcp.changes ? state : { ...state, mcp: { ...state.mcp, changes } }
    }
    case 'queue/added':
    case 'queue/removed':
      return reduceQueue(state, action)
    case 'ui/focus':
      return state.ui.focus === action.focus ? state : { ...state, ui: { ...state.ui, focus: action.focus } }
    case 'ui/todos-toggled':
      return { ...state, ui: { ...state.ui, showTodos: !state.ui.showTodos } }
    case 'ui/todos-expanded':
      return state.ui.todosExpanded === action.expanded
        ? state
        : { ...state, ui: { ...state.ui, todosExpanded: action.expanded } }
    case 'ui/rewind':
      return state.ui.rewind === action.open ? state : { ...state, ui: { ...state.ui, rewind: action.open } }
    case 'ui/theme':
    case 'theme/chosen':
      return state.ui.theme === action.theme ? state : { ...state, ui: { ...state.ui, theme: action.theme } }
    case 'ui/background':
      return state.ui.background === action.background
        ? state
        : { ...state, ui: { ...state.ui, background: action.background } }
    case 'ui/editor-mode':
      return state.ui.editorMode === action.mode
        ? state
        : { ...state, ui: { ...state.ui, editorMode: action.mode } }
    case 'ui/expand-toggled': {
      const { [action.id]: was, ...rest } = state.ui.expanded
      const expanded = was ? rest : { ...state.ui.expanded, [action.id]: true as const }
      return { ...state, ui: { ...state.ui, expanded } }
    }
    default:
      return state
  }
}

function countImages(content: string | readonly { type: string }[]): number {
  return typeof content === 'string' ? 0 : content.filter((p) => p.type === 'image_url').length
}

function applyDelta(c: Collections, state: State, id: string, text: string, reasoning: string): State {
  if (!text && !reasoning) return state
  const existing = state.transcript.items[id]
  const base =
    existing?.kind === 'assistant'
      ? existing
      : { kind: 'assistant' as const, id, text: '', reasoning: '', streaming: true }
  const next = c.addItem(state, { ...base, text: base.text + text, reasoning: base.reasoning + reasoning })
  return next.transcript.liveId === id ? next : { ...next, transcript: { ...next.transcript, liveId: id } }
}

/** Removes a streamed, unsettled reply from the transcript (a copy: only live states see this action). */
function discardAssistant(state: State, id: string): State {
  const item = state.transcript.items[id]
  if (item?.kind !== 'assistant' || !item.streaming) return state
  const { [id]: _gone, ...items } = state.transcript.items
  return {
    ...state,
    transcript: {
      order: state.transcript.order.filter((other) => other !== id),
      items,
      liveId: state.transcript.liveId === id ? null : state.transcript.liveId,
    },
  }
}

function settleAssistant(
  c: Collections,
  state: State,
  id: string,
  message: State['messages'][number],
): State {
  if (message.role !== 'assistant') return state
  let next = state
  const text = message.content ?? ''
  const reasoning = message.reasoning ?? ''
  if (text || reasoning || next.transcript.items[id]) {
    next = c.addItem(next, { kind: 'assistant', id, text, reasoning, streaming: false })
  }
  for (const call of message.tool_calls ?? []) {
    if (!next.transcript.items[call.id])
      next = c.addItem(next, newToolItem(call.id, call.function.name, call.function.name))
  }
  next = c.withMessage(next, message, id)
  return next.transcript.liveId === id ? { ...next, transcript: { ...next.transcript, liveId: null } } : next
}

/** The history's copy of a call gets the arguments it really ran with (the latest assistant message holding it). */
function withCallArguments(state: State, callId: string, args: string): State {
  const at = state.messages.findLastIndex(
    (m) => m.role === 'assistant' && m.tool_calls?.some((call) => call.id === callId),
  )
  const message = state.messages[at]
  if (message?.role !== 'assistant' || !message.tool_calls) return state
  const tool_calls = message.tool_calls.map((call) =>
    call.id === callId ? { ...call, function: { ...call.function, arguments: args } } : call,
  )
  const messages = [...state.messages]
  messages[at] = { ...message, tool_calls }
  return { ...state, messages }
}
