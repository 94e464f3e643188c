import type { ChatMessage, Usage } from '../provider/messages.js'
import { ZERO_USAGE } from '../provider/messages.js'
import type {
  ConsentRequest,
  Mode,
  QuestionRequest,
  TaskSummary,
  TrustRequest,
  Todo,
  ToolDisplay,
  TurnResult,
} from './domain.js'

export type ToolStatus = 'pending' | 'running' | 'done' | 'error' | 'denied' | 'cancelled'

export type NoticeLevel = 'info' | 'warn' | 'error'

/** One entry of the transcript. Settled items never change except for display flags. */
export type TranscriptItem =
  | { kind: 'user'; id: string; text: string; images: number }
  | { kind: 'assistant'; id: string; text: string; reasoning: string; streaming: boolean }
  | {
      kind: 'tool'
      id: string
      name: string
      summary: string
      status: ToolStatus
      startedAt: number | null
      durationMs: number | null
      /** Short live or final preview of output for the collapsed card. */
      preview: string
      display: ToolDisplay | null
      /** Model-facing result text (error envelope for failures). */
      result: string
      masked: boolean
    }
  | { kind: 'notice'; id: string; level: NoticeLevel; text: string }

export type Phase = 'idle' | 'requesting' | 'streaming' | 'tools' | 'awaiting-user'

export type Focus = 'input' | 'transcript' | 'todos' | 'tasks' | 'consent' | 'question'

export interface SessionInfo {
  id: string
  cwd: string
  model: string
  baseUrl: string
  title: string
  startedAt: number
}

export interface State {
  session: SessionInfo
  mode: Mode
  /** The mode the session was started in: the user may return to it (see `permissions/modes.ts`). */
  launchMode: Mode
  run: {
    phase: Phase
    turnId: string | null
    turnStartedAt: number | null
    step: number
    lastResult: TurnResult | null
  }
  /** The model history (system prompt excluded), always in chat-completions form. */
  messages: ChatMessage[]
  transcript: {
    order: string[]
    items: Record<string, TranscriptItem>
    /** Id of the assistant item still streaming, if any. */
    liveId: string | null
  }
  todos: Todo[]
  tasks: { order: string[]; byId: Record<string, TaskSummary> }
  consent: { queue: string[]; byId: Record<string, ConsentRequest> }
  questions: { queue: string[]; byId: Record<string, QuestionRequest> }
  /** The open trust prompt, if any (at most one). */
  trust: TrustRequest | null
  usage: { session: Usage; turn: Usage; lastStep: Usage; contextTokens: number; requests: number }
  ui: { focus: Focus; showTodos: boolean; expanded: Record<string, true> }
}

export function initialState(session: SessionInfo, mode: Mode): State {
  return {
    session,
    mode,
    launchMode: mode,
    run: { phase: 'idle', turnId: null, turnStartedAt: null, step: 0, lastResult: null },
    messages: [],
    transcript: { order: [], items: {}, liveId: null },
    todos: [],
    tasks: { order: [], byId: {} },
    consent: { queue: [], byId: {} },
    questions: { queue: [], byId: {} },
    trust: null,
    usage: { session: ZERO_USAGE, turn: ZERO_USAGE, lastStep: ZERO_USAGE, contextTokens: 0, requests: 0 },
    ui: { focus: 'input', showTodos: true, expanded: {} },
  }
}

export type ToolItem = Extract<TranscriptItem, { kind: 'tool' }>
export type AssistantItem = Extract<TranscriptItem, { kind: 'assistant' }>
