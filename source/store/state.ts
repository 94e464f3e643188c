import type { ChatMessage, Usage } from './messages.js'
import { ZERO_USAGE } from './messages.js'
import type {
  AttachmentNote,
  Background,
  CompactionRecord,
  ConsentRequest,
  McpServerView,
  McpSessionChanges,
  Mode,
  QuestionRequest,
  RequestStats,
  SkippedFile,
  TaskSummary,
  ThemeSetting,
  TrustRequest,
  Todo,
  ToolDisplay,
  TurnResult,
} from './domain.js'
import { NO_MCP_CHANGES } from './domain.js'

export type ToolStatus = 'pending' | 'running' | 'done' | 'error' | 'denied' | 'cancelled'

export type NoticeLevel = 'info' | 'warn' | 'error'

/** One entry of the transcript. Settled items never change except for display flags. */
export type TranscriptItem =
  | {
      kind: 'user'
      id: string
      text: string
      images: number
      pinned?: boolean
      /** `@path` mentions: what was attached to the message for the model. */
      attachments?: AttachmentNote[]
    }
  | { kind: 'assistant'; id: string; text: string; reasoning: string; streaming: boolean; pinned?: boolean }
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
      /** The model sees a placeholder instead of this result (observation masking). */
      masked: boolean
      /** Kept verbatim by masking and compaction. */
      pinned?: boolean
      /** The call waits on the user: its permission prompt, or its question / plan dialog. */
      waiting?: 'approval' | 'answer'
    }
  | { kind: 'notice'; id: string; level: NoticeLevel; text: string }
  /** A hook's run worth showing: one line, and the command and its output under Ctrl+O. */
  | { kind: 'hook'; id: string; event: string; level: NoticeLevel; text: string; detail: string }

/**
 * The Bash sandbox as the status bar and the consent prompt show it: off, being checked (once, at
 * start), on, or asked for but unavailable (then commands ask, unsandboxed).
 */
export interface SandboxState {
  status: 'off' | 'checking' | 'on' | 'unavailable'
  network: boolean
}

/** A message sent while a turn ran, waiting for the next step (shown above the prompt until it is sent). */
export interface QueuedMessage {
  id: string
  text: string
  images: number
}

export type Phase = 'idle' | 'requesting' | 'streaming' | 'tools' | 'awaiting-user'

export type Focus = 'input' | 'transcript' | 'todos' | 'tasks' | 'consent' | 'question'

/** How the prompt edits: as a line editor (`normal`, the default) or with vim's modes (`/vim`). */
export type EditorMode = 'normal' | 'vim'

export interface SessionInfo {
  id: string
  cwd: string
  model: string
  baseUrl: string
  title: string
  /** The title is the user's (`/rename`): no prompt or `/clear` replaces it. */
  named?: boolean
  startedAt: number
}

/**
 * A user turn, marked when its first message is appended: where the conversation stood just before it
 * (for a conversation rewind) and the checkpoint taken before its first change (for a code rewind).
 */
export interface TurnMark {
  id: string
  prompt: string
  /** `messages.length` before the turn's message; -1 once the history before it is gone (/clear). */
  messageIndex: number
  transcriptIndex: number
  todos: Todo[]
  contextTokens: number
  /**
   * `checkpoints.timeline.length` when the turn began: the entry at this index (if any) is the workspace
   * just before the first change made after the turn began — what a code rewind to this turn restores.
   */
  seq: number
  /** Workspace-relative paths the agent changed in this turn, first change first. */
  files: string[]
  /** Files this turn's checkpoint left out for their size. */
  skipped: SkippedFile[]
  /** Why this turn's changes have no checkpoint (git missing, workspace too large…). */
  note?: string
}

/**
 * A snapshot of the workspace taken just before something changed it: a turn's first change, or a rewind
 * (or its undo). `tree` is null when it could not be taken.
 */
export interface TimelineEntry {
  tree: string | null
  skipped: SkippedFile[]
  turnId?: string
  note?: string
}

/** What the conversation part of a rewind removed, kept so the rewind can be undone. */
export interface ConversationStash {
  messages: ChatMessage[]
  items: TranscriptItem[]
  turns: TurnMark[]
  todos: Todo[]
  contextTokens: number
  /** The transcript ids of `messages`, and a compaction the rewind undid (context economy). */
  messageIds?: string[]
  compaction?: CompactionRecord | null
}

/** The last rewind, until it is undone or another one replaces it. */
export interface RewindUndo {
  id: string
  turnId: string
  prompt: string
  /** Snapshot taken just before the rewind, and the paths it wrote (its undo touches only those). */
  code: { tree: string; paths: string[] } | null
  /** Dropped once the conversation moves on (a new message makes the stash meaningless). */
  conversation: ConversationStash | null
}

/** Context economy (docs/context.md): what shapes the requests beyond the plain history. */
export interface ContextState {
  /** Parallel to `messages`: the transcript item each message came from ('' for runtime-added ones). */
  messageIds: string[]
  /** Transcript item ids the user pinned. */
  pins: Record<string, true>
  compaction: CompactionRecord | null
  compactions: number
  /** Changed in this session with the Config tool; they beat settings and the model profile. */
  overrides: { observationWindow?: number; compactAt?: number }
  /** The context window the endpoint named in an overflow error; it beats the profile. */
  learnedLimit: number | null
  lastRequest: RequestStats | null
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
  /** MCP servers and their status (for `/mcp` and MCP prompts as slash commands). */
  mcp: { servers: McpServerView[]; changes: McpSessionChanges }
  /** Messages waiting for the next step, oldest first (the runtime's queue; live only, never logged). */
  queued: QueuedMessage[]
  /**
   * `session` and `turn` include what subagents used; `subagents` is their share of the session. Only
   * the main conversation sets `lastStep`, `contextTokens` and `requests`.
   */
  usage: {
    session: Usage
    turn: Usage
    lastStep: Usage
    contextTokens: number
    /** `contextTokens` is our estimate (the endpoint reported no usage for the request yet). */
    contextEstimated?: boolean
    requests: number
    subagents: Usage
  }
  context: ContextState
  /** The main session's agent profile (`build` unless `--agent` or `/agents` chose another). */
  agent: string
  /**
   * `rewind`: the /rewind dialog is open. `todosExpanded`: on narrow terminals, where the todo pane is one
   * line under the transcript, it shows the whole list (Ctrl+T cycles one line → list → hidden).
   */
  ui: {
    /** The status line command's first line (SGR colours kept, all else cleaned); absent: none. */
    statusLine?: string
    focus: Focus
    showTodos: boolean
    todosExpanded: boolean
    expanded: Record<string, true>
    rewind: boolean
    /** The theme chosen (settings `theme`, `/theme`); absent: `auto`. */
    theme?: ThemeSetting
    /** The terminal's background, once it said; `auto` follows it. */
    background?: Background
    /** The `editorMode` setting, changed by `/vim`. */
    editorMode: EditorMode
  }
  turns: TurnMark[]
  sandbox: SandboxState
  checkpoints: {
    /** path → the blob the agent (or a rewind) last left there, null when it deleted it. */
    known: Record<string, string | null>
    /** Never shortened by a conversation rewind: code rewinds of older turns still need later entries. */
    timeline: TimelineEntry[]
    undo: RewindUndo | null
  }
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
    mcp: { servers: [], changes: NO_MCP_CHANGES },
    queued: [],
    usage: {
      session: ZERO_USAGE,
      turn: ZERO_USAGE,
      lastStep: ZERO_USAGE,
      contextTokens: 0,
      requests: 0,
      subagents: ZERO_USAGE,
    },
    context: emptyContext(),
    agent: 'build',
    ui: {
      focus: 'input',
      showTodos: true,
      todosExpanded: false,
      expanded: {},
      rewind: false,
      editorMode: 'normal',
    },
    turns: [],
    sandbox: { status: 'off', network: false },
    checkpoints: { known: {}, timeline: [], undo: null },
  }
}

export type ToolItem = Extract<TranscriptItem, { kind: 'tool' }>
export type AssistantItem = Extract<TranscriptItem, { kind: 'assistant' }>
export type HookItem = Extract<TranscriptItem, { kind: 'hook' }>

export function emptyContext(): ContextState {
  return {
    messageIds: [],
    pins: {},
    compaction: null,
    compactions: 0,
    overrides: {},
    learnedLimit: null,
    lastRequest: null,
  }
}

/** A tool call's card before anything is known of it but its name. */
export function newToolItem(id: string, name: string, summary: string): ToolItem {
  return {
    kind: 'tool',
    id,
    name,
    summary,
    status: 'pending',
    startedAt: null,
    durationMs: null,
    preview: '',
    display: null,
    result: '',
    masked: false,
  }
}
