/**
 * Plain-data domain types shared by the runtime, the tools and the UI. No behaviour lives here.
 */

export type Mode = 'safe' | 'auto' | 'plan' | 'dangerous' | 'ci'
export const MODES: readonly Mode[] = ['safe', 'auto', 'plan', 'dangerous', 'ci']

/** What the `theme` setting and `/theme` accept (docs/tui.md#themes): a palette, or `auto`. */
export const THEME_SETTINGS = ['auto', 'dark', 'light', 'high-contrast'] as const
export type ThemeSetting = (typeof THEME_SETTINGS)[number]
/** What the terminal's background is, when it said (OSC 11, COLORFGBG). */
export type Background = 'dark' | 'light'

/** Risk classes (docs/tools.md#the-tools): they drive the default permission policy and read-only concurrency. */
export type Risk = 'read' | 'edit' | 'exec' | 'network' | 'spawn' | 'config'

export type ErrorCategory =
  | 'validation'
  | 'not_found'
  | 'permission'
  | 'filesystem'
  | 'network'
  | 'timeout'
  | 'execution'
  | 'aborted'
  /** A result too big for the model's context window (docs/context.md#the-budget). */
  | 'too_large'
  | 'unknown'

/** Typed data a tool hands the UI next to its model-facing text; the UI never switches on tool names. */
/** One file of a change to several (apply_patch): what happens to it and its unified diff. */
export interface FileChange {
  path: string
  change: 'created' | 'updated' | 'deleted'
  /** The file's old path, when the change moved it here. */
  movedFrom?: string
  diff: string
  added: number
  removed: number
}

export type ToolDisplay =
  | { kind: 'diff'; path: string; diff: string; added: number; removed: number; created: boolean }
  /** A change to several files (apply_patch), one diff each. */
  | { kind: 'diffs'; files: FileChange[] }
  | {
      kind: 'command'
      command: string
      exitCode: number | null
      output: string
      truncated: boolean
      taskId?: string
      timedOut?: boolean
      /** It ran inside the Bash sandbox (a failed write may be the sandbox's doing). */
      sandboxed?: boolean
    }
  | { kind: 'file'; path: string; lines: number; note?: string }
  | { kind: 'list'; count: number; truncated: boolean; items: string[] }
  | { kind: 'todos'; todos: Todo[] }
  | {
      kind: 'task'
      taskId: string
      status: TaskStatus
      output?: string
      /** TaskOutput: the ports it listens on (`127.0.0.1:5173 → http://localhost:5173/`). */
      listening?: string[]
    }
  | { kind: 'text'; text: string }
  /** A plan put to the user (ExitPlanMode): what they decided, and the plan itself, kept in the transcript. */
  | { kind: 'plan'; verdict: string; plan: string }

export type TodoStatus = 'pending' | 'in_progress' | 'completed'

export interface Todo {
  content: string
  status: TodoStatus
  activeForm: string
}

export type TaskStatus = 'running' | 'completed' | 'failed' | 'stopped'

/** What the tasks pane shows of a background subagent while it works. */
export interface AgentTaskInfo {
  /** The agent type (`explore`, `general-purpose`, a custom agent's name). */
  type: string
  /** The tool it is running now (its one-line summary), or null between tools. */
  tool: string | null
  steps: number
  /** Tokens it has used so far (prompt + completion). */
  tokens: number
}

/** What the store knows about a background job: summaries only, never the full output. */
export interface TaskSummary {
  id: string
  /** `index`: CodeSearch building its index (source/codesearch/index-job.ts). */
  kind: 'bash' | 'agent' | 'index'
  command: string
  description?: string
  /** The background subagent that started this job (its task id); stopping it stops this job too. */
  owner?: string
  /** Set for background subagents (`kind: 'agent'`). */
  agent?: AgentTaskInfo
  pid?: number
  status: TaskStatus
  exitCode: number | null
  startedAt: number
  endedAt: number | null
  lastLine: string
  outputBytes: number
  logPath: string
  /** TCP ports the job listens on, found while it runs (tasks/port-watch.ts); absent when none. */
  ports?: ListeningPort[]
}

/** A TCP port a background job listens on. */
export interface ListeningPort {
  /** The address bound, as the kernel shows it: `127.0.0.1`, `0.0.0.0`, `::`, `::1`. */
  address: string
  port: number
  /** False inside a network namespace of its own (a sandbox without network): the host cannot reach it. */
  reachable: boolean
  /** What a browser on this host opens; absent when it cannot reach the port. */
  url?: string
  /** `socket`: among the job's own sockets; `output`: only printed, where sockets cannot be listed. */
  seen: 'socket' | 'output'
}

export type ConsentPreview =
  | {
      kind: 'command'
      command: string
      cwd: string
      /** Started as a background task (`run_in_background`): it keeps running after the call returns. */
      background?: boolean
      /** Set when the session asked for the OS sandbox: whether this command runs in it. */
      sandbox?: { status: 'on' | 'unavailable'; network: boolean }
    }
  | { kind: 'diff'; path: string; diff: string }
  /** Each file a call would change, with its diff (apply_patch). */
  | { kind: 'diffs'; files: FileChange[] }
  /** `address`: where a local or private host leads, e.g. "intranet.test resolves to 10.0.0.5, a private network address". */
  | { kind: 'url'; url: string; address?: string }
  | { kind: 'json'; text: string }
  | { kind: 'none' }

export interface ConsentRequest {
  id: string
  callId: string
  tool: string
  risk: Risk
  summary: string
  /** Why the prompt appears: which mode or rule asked. */
  reason: string
  preview: ConsentPreview
  /**
   * The exact rule "allow always" would save, e.g. `Bash(npm test *)` — the narrowest that covers the call;
   * for a command running several programs, several rules separated by ", " (all saved).
   */
  suggestedRule: string
  /** A write to a protected path: no rule opens it, so only "allow once" and deny are offered. */
  protectedWrite?: boolean
  /** What "allow all edits this session" grants (edits inside the workspace), when it is offered. */
  sessionEditsRule?: string
  /** Set when a subagent asks: who, e.g. `explore a1 · Find the tests`. */
  agent?: string
  /** For an edit: its folder's rule (`Edit(source/**)`), offered beside the file's (`scope: 'directory'`). */
  directoryRule?: string
  /** Why no rule can allow this call (e.g. it writes a path only known when it runs): only "allow once". */
  noRule?: string
  /** Allowing it once allows the tool for the rest of the session (SaveMemory asks only the first time). */
  sessionGrant?: true
  /** Why the rules offered name only the exact command ("rm deletes any file"), shown as a warning. */
  ruleCaution?: string
  createdAt: number
}

export type ConsentDecision =
  | { kind: 'once'; note?: string }
  /** `scope: 'edits'`: the request's `sessionEditsRule` instead of its suggested rule. */
  | { kind: 'session'; note?: string; scope?: 'edits' }
  /** `scope: 'directory'`: the request's `directoryRule` instead of its suggested rule. */
  | { kind: 'always'; note?: string; scope?: 'directory' }
  /** `automatic`: nobody answered (the prompt's timeout, shutdown, a headless run), not the user's choice. */
  | { kind: 'deny'; note?: string; automatic?: true }

export interface QuestionOption {
  label: string
  description: string
}

export interface Question {
  question: string
  header: string
  options: QuestionOption[]
  multiSelect: boolean
}

/** A pending AskUserQuestion (kind 'questions') or ExitPlanMode approval (kind 'plan'). */
export type QuestionRequest =
  | { id: string; kind: 'questions'; callId: string; questions: Question[]; createdAt: number }
  | { id: string; kind: 'plan'; callId: string; plan: string; createdAt: number }

export type QuestionAnswer =
  | { kind: 'questions'; answers: Record<string, string> }
  | { kind: 'plan'; decision: 'approve-auto' | 'approve-safe' | 'keep-planning'; feedback?: string }
  | { kind: 'cancelled' }

/** The user's answer to the trust prompt. `later` leaves the folder untrusted and asks at the next start. */
export type TrustChoice = 'trust-folder' | 'trust-parent' | 'distrust' | 'later'

/** The trust prompt: what the folder brings that only applies once it is trusted (docs/permissions.md#project-trust). */
export interface TrustRequest {
  id: string
  /** The folder trust is asked for, as shown (`~/code/app`). */
  folder: string
  /** The folder "trust the parent" would trust; null when that is not offered (`/`, the home folder). */
  parent: string | null
  /** The folder is `/` or the home folder: trusting it covers only itself, not its subfolders. */
  broad: boolean
  /** The answer in force when the prompt opened. */
  current: 'trusted' | 'distrusted' | 'undecided'
  /** What the folder brings, grouped by kind: {title: "Allow rules", items: ["Bash"], files: [".agent-tui/settings.json"]}. */
  groups: Array<{ title: string; items: string[]; files: string[] }>
  createdAt: number
}

/** A file or folder an `@path` in the user's message attached (or why it was not), as the transcript shows it. */
export interface AttachmentNote {
  /** The path as mentioned, without the "@". */
  mention: string
  attached: boolean
  /** "12 lines", "directory, 8 entries", "not attached: …". */
  detail: string
}

export type TurnResultKind = 'completed' | 'max-steps' | 'interrupted' | 'error' | 'stopped'

export interface TurnResult {
  kind: TurnResultKind
  text: string
  error?: string
  steps: number
}

/** A file a checkpoint left out because it was over the size cap. */
export interface SkippedFile {
  path: string
  bytes: number
}

/**
 * A compaction in effect (docs/context.md#compaction): the request shows `summary` in place of the history before `cut`
 * (an index into the model history), except pinned messages and the latest user request, which stay
 * verbatim. The history itself is never edited, so resume and export keep everything.
 */
export interface CompactionRecord {
  id: string
  summary: string
  /** Messages before this index of the history are summarised. */
  cut: number
  /**
   * History index of the user request that was the latest when compacting, kept verbatim if older than
   * the cut (-1: none). Fixed in the record, so later turns do not change what the request shows.
   */
  request: number
  trigger: 'auto' | 'manual' | 'overflow'
  focus?: string
  /** Messages the summary replaced (the kept ones not counted). */
  summarised: number
  /** Estimated prompt tokens before and after. */
  tokensBefore: number
  tokensAfter: number
  at: number
}

/** Estimated tokens of one request by part, for `/context`. */
export interface ContextBreakdown {
  system: number
  tools: number
  /** User and assistant messages (the summary included). */
  history: number
  /** Tool results sent in full. */
  toolOutput: number
  /** Placeholders standing in for masked tool results. */
  masked: number
  /** Pinned messages and results (also counted in history / tool output). */
  pinned: number
  /** The compaction summary (also counted in history). */
  summary: number
}

/**
 * What the context budget warns of at start (docs/context.md#the-budget), as headless output shows it:
 * the tool definitions take more than a third of the window.
 */
export type ContextWarning = DefinitionsWarning | ServedWindowWarning

/** Settings give the model a larger window than the endpoint says it serves. */
export interface ServedWindowWarning {
  kind: 'served_window'
  /** The window settings give. */
  window: number
  /** What the endpoint serves, and where it said so. */
  served: number
  served_source?: string
}

export interface DefinitionsWarning {
  kind: 'definitions'
  definitions_tokens: number
  definitions_bytes: number
  tools: number
  window: number
  /** Where the window's size came from: profile, endpoint, settings, endpoint error. */
  window_source: string
  /** The definitions' share of the window (0–1). */
  share: number
  /** Tokens a request has left for the conversation. */
  room: number
}

/** What one request to the model carried and saved (docs/context.md#seeing-what-the-model-sees). */
export interface RequestStats {
  step: number
  /** Messages sent, system prompt included. */
  messages: number
  /** UTF-8 bytes of the system prompt and the messages as sent. */
  messageBytes: number
  /** `messageBytes` plus the tool definitions. */
  promptBytes: number
  estimatedTokens: number
  /** From the endpoint's usage report; null when it sent none (then the estimate stands). */
  promptTokens: number | null
  cachedTokens: number | null
  /** Tool results sent as placeholders, and what that saved against sending them whole. */
  masked: number
  maskedBytesSaved: number
  maskedTokensSaved: number
  /** What spilling big outputs to files saved (the omitted middles). */
  spilledBytesSaved: number
  spilledTokensSaved: number
  /** Bytes at the start of the prompt (system, tools, messages) identical to the previous request. */
  prefixBytes: number
  /** The previous request's messages are all still here, unchanged, at the start of this one. */
  appendOnly: boolean
  /** Always 0 now (nothing is cut to fit: docs/context.md#the-budget); kept for the event's shape. */
  truncated: number
  breakdown: ContextBreakdown
  /** The model's window the request was built for, and where its size came from. */
  window?: number
  windowSource?: string
}

// MCP servers as the store holds them: their own file, re-exported for the store's one import.
export * from './mcp-domain.js'
