import type { RewindOptions, RewindReport, RewindScope, RewindTurn } from '../../checkpoints/types.js'
import type { PermissionRulesView } from '../../permissions/gate.js'
import type { ModeChange } from '../../permissions/modes.js'
import type { CommandInvocation } from '../../extensions/types.js'
import type { HooksView } from '../../user-hooks/types.js'
import type { ContentPart } from '../../store/messages.js'
import type { SessionSummary } from '../../session/session-store.js'
import type { TaskLogRange, TaskLogSlice } from '../../tasks/log-slice.js'
import type { Store } from '../../store/create-store.js'
import type { EditorMode } from '../../store/state.js'
import type {
  ConsentDecision,
  McpAddedServer,
  Mode,
  QuestionAnswer,
  TrustChoice,
} from '../../store/domain.js'
import type { CompactionPreview, ContextReport } from '../context/types.js'

export interface ImageAttachment {
  /** Absolute path the image was read from (for display). */
  path: string
  /** data: URL with the image bytes. */
  url: string
}

/** One permission rule as `/permissions` shows it. */
export type { PermissionRulesView, RuleView } from '../../permissions/gate.js'

/** A project instruction file the system prompt reads at session start. */
export interface MemoryFile {
  /** Relative to the workspace, e.g. `.agent-tui/memory.md`. */
  path: string
  /** Lines in the file now; null when it does not exist or is left out. */
  lines: number | null
  /** Why the read boundary leaves it out of the prompt (a link to a file outside, a FIFO…). */
  leftOut?: string
}

/** One thing `/status` lists: a file or folder read, or left out and why. */
export interface StatusEntry {
  /** `CLAUDE.md`, `.claude/commands/`, `~/.claude.json: db`. */
  what: string
  /** `3 commands`, `imported by CLAUDE.md`, `ignored: statusLine (…)`. */
  note?: string
  /** Not in use now: left out, ignored, or waiting for trust. */
  skipped?: boolean
}

export interface StatusSection {
  title: string
  entries: StatusEntry[]
}

/** `/status` (and headless `init`): what the session loaded from where, and what it left out. */
export interface StatusReport {
  sections: StatusSection[]
}

/** One agent profile as `/agents` lists it. */
export interface AgentView {
  name: string
  description: string
  /** `built-in`, `user` (the config dir), `project` (`.agent-tui/agents/`) or `plugin:NAME`. */
  source: string
  file?: string
  /** `all but Agent`, `read-only: Bash (read-only commands), Read…`, or the listed tools. */
  tools: string
  model?: string
  maxTurns?: number
  /** Only the main session can run as it (`build`). */
  mainOnly: boolean
}

export interface AgentListing {
  /** The main session's agent now. */
  current: string
  agents: AgentView[]
  /** Agent files that could not be used (or only partly): file, field, what is wrong. */
  problems: Array<{ file: string; field?: string; message: string; skipped: boolean }>
}

/** One skill as `/skills` lists it. */
export interface SkillView {
  name: string
  /** Whole, however long (the Skill tool's listing shortens it). */
  description: string
  /** `user` (the config dir), `project` or `plugin:NAME`. */
  source: string
  file: string
}

export interface SkillListing {
  skills: SkillView[]
  /** `file: field: message` for each skill file that could not be used (or only partly). */
  problems: string[]
}

/** The endpoint's models for `/model`; `error` says why they could not be listed. */
export interface ModelList {
  models: string[]
  error?: string
}

export interface SubmitInput {
  /** What the user typed (and the transcript shows): the message, or `/review src` for a user command. */
  text: string
  images?: ImageAttachment[]
  /**
   * A user command: its turn first runs the command's shell commands and file reads under the permission
   * rules (its `allowed-tools` granted for this turn), then sends the expanded prompt instead of `text`.
   */
  command?: CommandInvocation
}

/**
 * What a session offers besides its turns: images, the transcript's export, memory files, the other
 * sessions, the endpoint's models, answers to prompts, the folder's trust, background jobs, the rules and
 * hooks in force, and rewinding. Assembled in `app/session/services.ts`, beside the runtime rather than
 * inside it; the UI reaches them through the same `RuntimeCommands`.
 */
export interface SessionServices {
  /** Loads an image file for `/image` or a pasted path; rejects with a user-facing message. */
  loadImage(path: string): Promise<ImageAttachment>
  /** Whether the current model takes images (its profile); without vision `submit` leaves images out. */
  supportsVision(): boolean
  /**
   * Writes the transcript as Markdown (atomically); resolves with the file path. Without a path it goes to
   * the state directory (`$XDG_STATE_HOME/agent-tui/exports/`), never into the project.
   */
  exportTranscript(path?: string): Promise<string>
  /** The instruction and memory files read into the system prompt at session start. */
  memoryFiles(): Promise<MemoryFile[]>
  /** `/status`: what was loaded from where (agent-tui's and Claude Code's places), and what was not. */
  status(): StatusReport
  /** The other sessions of this directory, newest first (for `/resume`). */
  listSessions(): Promise<SessionSummary[]>
  /** `/rename`: titles the session (logged, and beside the log for the list); resolves with the title kept. */
  renameSession(title: string): Promise<string>
  /**
   * `/fork [turn]`: a new session with this one's conversation (through `turn`, 1-based; default all of
   * it), this one left as it was; resolves with the new session's id and title.
   */
  forkSession(turn?: number): Promise<{ id: string; title: string }>
  /** Appends a line to the project memory file (atomically); resolves with its workspace-relative path. */
  addMemory(text: string): Promise<string>
  /** A consent prompt's or a question's answer, handed to the one waiting for it. */
  resolveConsent(id: string, decision: ConsentDecision): void
  answerQuestion(id: string, answer: QuestionAnswer): void
  /** The trust prompt's answer: the folder's rules and settings apply (or stop applying) at once. */
  resolveTrust(id: string, choice: TrustChoice): void
  /** `/trust`: opens the trust prompt to change this folder's answer. */
  reviewTrust(): void
  /** Stops a background job; resolves when its process group is gone. */
  stopTask(id: string): Promise<void>
  /**
   * `o` in the tasks pane: opens the URL of a port the job listens on in the user's browser; a notice says
   * what was opened, or why nothing was (no port, only one the host cannot reach, no browser here).
   */
  openTaskUrl(id: string): void
  /**
   * A piece of a background job's log for the viewer: its end (default), the bytes before `range.before`,
   * or from `range.from` on; at most `maxBytes` (and never more than 1 MiB), cut at line boundaries.
   */
  readTaskLog(id: string, maxBytes: number, range?: TaskLogRange): Promise<TaskLogSlice>
  /** The models the endpoint lists (its `/models`), for the `/model` picker; never rejects. */
  listModels(): Promise<ModelList>
  /** The extra request headers sent to the endpoint, values redacted (`x-portkey-provider: op…ai …`). */
  endpointHeaders(): string[]
  /** `/plugin`: the plugins this session loaded and what each brought, and the installed ones it did not. */
  pluginLines(): Promise<string[]>
  /**
   * `/vim`: saves the prompt's editing mode as `editorMode` in the user's settings file (atomically);
   * resolves with the file's path, rejects with a message that names it and why.
   */
  saveEditorMode(mode: EditorMode): Promise<string>
  /** `/plugin enable|disable NAME`: changes what sessions started from now on load; what to show. */
  setPluginEnabled(name: string, enabled: boolean): Promise<string[]>
  /** The permission rules in force: configured, from flags, and granted in this session. */
  permissionRules(): PermissionRulesView
  /** `/hooks`: the hooks in force and where each is configured, and those that are not (and why). */
  hooks(): HooksView
  /** The turns of the current conversation for /rewind, oldest first, with the files each changed. */
  rewindTurns(): RewindTurn[]
  /**
   * Code, conversation or both back to the start of a turn (a 1-based number or a turn id). With `dryRun`
   * nothing changes and the report says what would. Rejects with a user-facing message.
   */
  rewind(turn: string, scope: RewindScope, opts?: RewindOptions): Promise<RewindReport>
  /** Puts back what the last rewind changed (see `state.checkpoints.undo`). */
  undoRewind(opts?: RewindOptions): Promise<RewindReport>
  /** `/mcp`: restarts an MCP server. */
  reconnectMcpServer(name: string): void
  /** `/mcp`: starts the OAuth sign-in of a remote MCP server (the URL is shown as a notice). */
  authenticateMcpServer(name: string): void
  /**
   * `/mcp`: turns a server (stopping its process group, or starting it again) or one of its tools (by
   * the name the model calls it, or the server's own) off or on for this session. Resolves to what to
   * tell the user; rejects with a user-facing message.
   */
  setMcpEnabled(server: string, enabled: boolean, tool?: string): Promise<string>
  /** `/mcp add`: a server for this session (the user's own: no trust needed); `save` also writes it to the user's settings. */
  addMcpServer(name: string, server: McpAddedServer, save: boolean): Promise<string>
  /** `/mcp remove`: the server is stopped and gone from this session (a configured one stays in its file). */
  removeMcpServer(name: string): Promise<string>
  /** The agents of this session (built-in, the user's, the project's when trusted) and file problems. */
  listAgents(): AgentListing
  /** The skills of this session (the user's, the project's when trusted) and file problems. */
  listSkills(): SkillListing
  /** The live store of a background subagent (for its read-only transcript view); null when unknown. */
  agentTranscript(taskId: string): Store | null
}

/**
 * Everything the UI may ask of the runtime. The UI never calls tools or the provider directly; it calls
 * these and reads the store. All commands are safe to call at any time (e.g. interrupt when idle is a no-op).
 */
export interface RuntimeCommands extends SessionServices {
  /**
   * Starts a turn, or queues the message for the next step when a turn is running (`state.queued` shows
   * it until it is sent). Messages still queued after an interrupt are sent first, then this one.
   */
  submit(input: SubmitInput): void
  /** Takes the newest queued message back out of the queue (to edit or drop it); null when none is queued. */
  unqueue(): SubmitInput | null
  /** Aborts the foreground step (stream and running tools); background jobs keep running. */
  interrupt(): void
  /**
   * Switches the permission mode, unless the mode policy forbids it (`permissions/modes.ts`: dangerous and
   * ci only when the session was launched in them); a refusal says why and changes nothing.
   */
  setMode(mode: Mode): ModeChange
  /** Moves the running foreground Bash command to the TaskManager; false when there is none. */
  backgroundForeground(): boolean
  /** `!cmd`: runs a shell command directly and adds its output to the conversation. */
  runShell(command: string): Promise<void>
  /** Starts a fresh conversation (same session settings). */
  clear(): void
  setModel(model: string): void
  /** What `/compact [focus]` would summarise and keep, with token figures (nothing runs). */
  compactionPreview(focus?: string): Promise<CompactionPreview>
  /** Summarises the older history now (refused while a turn runs); resolves true when it did. */
  compact(focus?: string): Promise<boolean>
  /** Pins or unpins a message or tool result (kept verbatim by masking and compaction); why not, or null. */
  setPinned(id: string, pinned: boolean): string | null
  /** Where the context window goes: the next request's parts and the last request's figures. */
  contextReport(): ContextReport
  /**
   * `/mcp__server__prompt args`: gets the MCP prompt and sends it as the user's message (shown as the
   * command typed); rejects with a message for the user (unknown prompt, missing argument, server down).
   */
  runMcpPrompt(command: string, args: string): Promise<void>
  /**
   * Runs the main session as another agent from the next request on (a new system prompt and tool set);
   * resolves to what changed; rejects with a user-facing message (unknown agent, a turn running, its file
   * gone).
   */
  switchAgent(name: string): Promise<string>
  /** Stops jobs, flushes the session; the UI exits after it resolves. */
  shutdown(): Promise<void>
}

/** What the runtime itself implements: turn control, everything but the session services. */
export type TurnCommands = Omit<RuntimeCommands, keyof SessionServices>

export type {
  CommandInvocation,
  CompactionPreview,
  ContentPart,
  ContextReport,
  HooksView,
  ModeChange,
  RewindOptions,
  RewindReport,
  RewindScope,
  RewindTurn,
  SessionSummary,
}
export type { TaskLogRange, TaskLogSlice }
export type { ToolsReport } from '../toolset/toolset.js'
