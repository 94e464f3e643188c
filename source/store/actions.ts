import type { AssistantMessage, ChatMessage, ContentPart, Usage } from './messages.js'
import type {
  AttachmentNote,
  Background,
  CompactionRecord,
  ConsentRequest,
  ContextWarning,
  McpAddedServer,
  McpServerView,
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
import type {
  EditorMode,
  Focus,
  NoticeLevel,
  Phase,
  QueuedMessage,
  SandboxState,
  SessionInfo,
  ToolStatus,
} from './state.js'

/**
 * Actions that change the conversation. They are appended to the session log as they happen, and
 * replaying them through the reducer rebuilds both the transcript and the model history.
 */
export type PersistedAction =
  | { type: 'session/started'; session: SessionInfo; mode: Mode }
  /** `turnId` marks the first message of a user turn (what /rewind lists). */
  | {
      type: 'user/submitted'
      id: string
      /** What the model receives: the text, and any `@path` attachments and images. */
      content: string | ContentPart[]
      /** What the user typed, as the transcript shows it. */
      text: string
      turnId?: string
      attachments?: AttachmentNote[]
    }
  | { type: 'assistant/settled'; id: string; message: AssistantMessage }
  | {
      type: 'tool/finished'
      callId: string
      name: string
      summary: string
      status: Exclude<ToolStatus, 'pending' | 'running'>
      /** Exactly what the model receives as the tool message. */
      content: string
      preview: string
      display: ToolDisplay | null
      durationMs: number
      /** The call ran with other arguments than its assistant message says (a hook rewrote them): their JSON. */
      arguments?: string
    }
  /** A message the runtime adds to the history (reminders, mode instructions, image follow-ups). */
  | { type: 'history/appended'; message: ChatMessage; note?: string }
  | { type: 'mode/changed'; mode: Mode }
  /**
   * The user picked a theme with `/theme` (saved or not): logged, so the session comes back in it when
   * resumed (`app/session/resumed-theme.ts`). The setting at start is `ui/theme`, not logged.
   */
  | { type: 'theme/chosen'; theme: ThemeSetting }
  | { type: 'todos/replaced'; todos: Todo[] }
  /** `purpose: 'compaction'`: a summariser call (counts toward the session's tokens, not its context). */
  | { type: 'usage/recorded'; usage: Usage; contextTokens: number; purpose?: 'compaction' }
  /** Tokens a subagent used (one of its requests): counted in the session's totals, not its context. */
  | { type: 'usage/subagent'; usage: Usage; agent: string }
  /** The main session now runs as another agent profile (`--agent`, `/agents`): a new system prompt. */
  | { type: 'agent/changed'; agent: string }
  | { type: 'notice/added'; id: string; level: NoticeLevel; text: string }
  /** A hook ran and has something to show (see source/user-hooks/verdict.ts). */
  | { type: 'hook/ran'; id: string; event: string; level: NoticeLevel; text: string; detail: string }
  | { type: 'turn/ended'; result: TurnResult }
  | { type: 'session/titled'; title: string }
  /** `/rename`: the user's own title, kept through `/clear` (the list, the export heading and `/resume` show it). */
  | { type: 'session/renamed'; title: string }
  /** The status line command's first line ('' for none); not logged: it is run again on resume. */
  | { type: 'status/line'; text: string }
  /** `/clear`: the model history, transcript and todos start over; the session and its usage remain. */
  | { type: 'conversation/cleared' }
  /** The requests show a summary in place of the older history from now on (the history stays). */
  | { type: 'context/compacted'; compaction: CompactionRecord }
  /** The user pinned (or unpinned) a transcript item: masking and compaction keep it verbatim. */
  | { type: 'context/pinned'; id: string; pinned: boolean }
  /** Tool results the requests now show as placeholders (and ones shown whole again). */
  | { type: 'context/masked'; masked: string[]; unmasked: string[] }
  /** Session changes to the context settings: the Config tool's, or a window the endpoint named. */
  | {
      type: 'context/configured'
      observationWindow?: number
      compactAt?: number
      learnedLimit?: number
    }
  /** `/mcp`: a server (or one tool of it, by the server's own name) turned off or on for this session. */
  | { type: 'mcp/toggled'; server: string; tool?: string; enabled: boolean }
  /** `/mcp add`: a server for this session (also saved to the user's settings when `saved`). */
  | { type: 'mcp/added'; name: string; server: McpAddedServer; saved?: boolean }
  /** `/mcp remove`: the server is gone from this session (a configured one stays in its file). */
  | { type: 'mcp/removed'; name: string }
  /** The snapshot taken before a turn's first change (`tree` null: none could be taken, `note` says why). */
  | { type: 'checkpoint/created'; turnId: string; tree: string | null; skipped: SkippedFile[]; note?: string }
  /** Files the agent changed in a turn and the blob each now has (null: deleted). */
  | { type: 'checkpoint/changed'; turnId: string; files: Record<string, string | null> }
  /** Code rewind: files written back from the turn's checkpoint; `undoTree` is the workspace just before. */
  | {
      type: 'code/rewound'
      rewindId: string
      turnId: string
      undoTree: string
      /** Files the snapshot at `undoTree` left out for their size. */
      skipped: SkippedFile[]
      written: Record<string, string | null>
    }
  /** Conversation rewind: history, transcript and todos go back to just before the turn's message. */
  | { type: 'conversation/rewound'; rewindId: string; turnId: string }
  /** The last rewind undone: files written back as they were before it, and its conversation restored. */
  | {
      type: 'rewind/undone'
      /** The workspace just before the undo (null when the rewind had no code part). */
      beforeTree: string | null
      skipped: SkippedFile[]
      written: Record<string, string | null>
      conversation: boolean
    }

/** Live-only actions: streaming, running tools, prompts, UI. Not persisted. */
export type EphemeralAction =
  | { type: 'turn/started'; turnId: string; at: number }
  | { type: 'step/started'; step: number }
  | { type: 'phase/changed'; phase: Phase }
  | { type: 'assistant/delta'; id: string; text?: string; reasoning?: string }
  /** The streamed reply so far was withdrawn (its stream broke and the step is retried). */
  | { type: 'assistant/discarded'; id: string }
  /**
   * Sets a notice's level and text in place, adding it if it is new: for a status that changes while it
   * lasts (a retry countdown). Not logged; a `notice/added` with the same id settles it for good.
   */
  | { type: 'notice/updated'; id: string; level: NoticeLevel; text: string }
  | { type: 'tool/started'; callId: string; name: string; summary: string; at: number }
  | { type: 'tool/progress'; callId: string; preview: string }
  | { type: 'consent/requested'; request: ConsentRequest }
  | { type: 'consent/resolved'; id: string }
  | { type: 'question/requested'; request: QuestionRequest }
  | { type: 'question/resolved'; id: string }
  | { type: 'trust/requested'; request: TrustRequest }
  | { type: 'trust/resolved'; id: string }
  | { type: 'task/updated'; task: TaskSummary }
  /** The MCP servers' status changed (connected, failed, needs sign-in…); the whole list. */
  | { type: 'mcp/servers'; servers: McpServerView[] }
  /** A message queued while a turn runs; `queue/removed` when it is sent, taken back or dropped. */
  | { type: 'queue/added'; message: QueuedMessage }
  | { type: 'queue/removed'; ids: string[] }
  | { type: 'ui/focus'; focus: Focus }
  | { type: 'ui/todos-toggled' }
  /** The narrow layout's todo pane: the whole list (true) or one line. */
  | { type: 'ui/todos-expanded'; expanded: boolean }
  | { type: 'ui/expand-toggled'; id: string }
  /** Opens or closes the /rewind dialog. */
  | { type: 'ui/rewind'; open: boolean }
  /** The theme at start (the setting, or the one a resumed session was left in). */
  | { type: 'ui/theme'; theme: ThemeSetting }
  /** The terminal answered what its background is. */
  | { type: 'ui/background'; background: Background }
  /** `/vim` (or the `editorMode` setting at start): the prompt's editing mode. */
  | { type: 'ui/editor-mode'; mode: EditorMode }
  | { type: 'model/changed'; model: string }
  /** What the request about to be sent carries (context telemetry). */
  | { type: 'context/measured'; stats: RequestStats }
  /**
   * The context budget's start-up warning (the tool definitions take over a third of the window): a
   * notice in the transcript, and the figures for headless output. Said again by every new session.
   */
  | { type: 'context/warned'; id: string; text: string; warning: ContextWarning }
  | { type: 'sandbox/changed'; sandbox: SandboxState }
  /** The provider is about to retry a failed request (also shown as a notice). */
  | {
      type: 'provider/retried'
      attempt: number
      maxAttempts: number
      delayMs: number
      reason: string
      /** The wait is the server's Retry-After. */
      serverAsked: boolean
      /** What the failed attempt streamed was withdrawn (`assistant/discarded`). */
      discarded: boolean
    }

export type Action = PersistedAction | EphemeralAction

const PERSISTED: ReadonlySet<Action['type']> = new Set<PersistedAction['type']>([
  'session/started',
  'user/submitted',
  'assistant/settled',
  'tool/finished',
  'history/appended',
  'mode/changed',
  'theme/chosen',
  'todos/replaced',
  'usage/recorded',
  'usage/subagent',
  'agent/changed',
  'notice/added',
  'hook/ran',
  'turn/ended',
  'session/titled',
  'session/renamed',
  'conversation/cleared',
  'checkpoint/created',
  'checkpoint/changed',
  'code/rewound',
  'conversation/rewound',
  'rewind/undone',
  'context/compacted',
  'context/pinned',
  'context/masked',
  'context/configured',
  'mcp/toggled',
  'mcp/added',
  'mcp/removed',
])

export function isPersisted(action: Action): action is PersistedAction {
  return PERSISTED.has(action.type)
}
