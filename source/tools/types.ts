import type { z } from 'zod'
import type { QuestionAsker } from '../permissions/question-types.js'
import type { PermissionTarget } from '../permissions/target.js'
import type { ImagePart, Usage } from '../store/messages.js'
import type { ConsentPreview, ErrorCategory, Mode, Risk, TaskSummary, ToolDisplay } from '../store/domain.js'
import type { ModeChange } from '../permissions/modes.js'
import type { HostPrograms } from '../util/host-programs.js'
import type { BashSandbox } from '../sandbox/bash-sandbox.js'
import type { ProcessGroupTracker } from '../tasks/process-groups.js'
import type { TaskAdopter, TaskManagerApi } from '../tasks/types.js'

/** Remembers what the model has read so Write/Edit can refuse blind or stale writes. */
export interface FileStateTracker {
  recordRead(absPath: string, stat: { mtimeMs: number; size: number }): void
  recordWrite(absPath: string, stat: { mtimeMs: number; size: number }): void
  get(absPath: string): { mtimeMs: number; size: number } | undefined
  /** Forgets every record (the conversation that read the files is gone). */
  clear(): void
}

/** Stores oversized tool output in the session's outputs dir so Read can restore it. */
export interface OutputSpiller {
  readonly dir: string
  /** Returns the absolute path of the (content-addressed) file holding `text`. */
  spill(text: string, hint: string): Promise<string>
  /** A new file that output is streamed into as it arrives (capped; see SpillStream). Throws if it cannot be created. */
  open(hint: string): SpillStream
  isSpillPath(absPath: string): boolean
}

/**
 * Output streamed to a spill file, synchronously. Past its cap the file's middle is cut (log-cap.ts):
 * it keeps the first part and the latest output, and says how much was cut where the cut is.
 */
export interface SpillStream {
  readonly path: string
  /** Appends `text`; after a failure (disk full…) further writes are dropped and `error` says why. */
  write(text: string): void
  close(): void
  readonly capBytes: number
  readonly headBytes: number
  /** Bytes cut from the middle so far. */
  readonly droppedBytes: number
  readonly error: string | undefined
}

/** A resource as ListMcpResources shows it. */
export interface McpResourceEntry {
  uri: string
  name?: string
  mimeType?: string
  description?: string
}

/** What the MCP resource tools need from the MCP client (implemented by source/mcp's manager). */
export interface McpResourceSource {
  /** Names of the configured servers with their status, for messages. */
  servers(): Array<{ name: string; status: string }>
  /** One server's (or every connected server's) resources and resource templates. */
  listResources(
    server: string | undefined,
    signal: AbortSignal,
  ): Promise<
    Array<{ server: string; resources: McpResourceEntry[]; templates: McpResourceEntry[]; error?: string }>
  >
  /** The resource's contents as text (binary parts described), or throws ToolError. */
  readResource(server: string, uri: string, signal: AbortSignal): Promise<string>
}

/** Whitelisted runtime settings the Config tool may read or change (never permissions). */
export interface RuntimeSettingsApi {
  list(): Array<{ name: string; value: unknown; description: string }>
  get(name: string): unknown
  /** Returns a confirmation message; throws ToolError for unknown names or invalid values. */
  set(name: string, value: unknown): string
}

/**
 * Lets the runtime move a running foreground command to the TaskManager on demand (Ctrl+B). Bash
 * registers its running process while it waits for it.
 */
export interface ForegroundRegistry {
  /** Returns an unregister function. `background()` hands the process over and returns the task id. */
  register(handle: { command: string; background(): string }): () => void
}

export interface ToolContext {
  /** Workspace root (the directory agent-tui started in). */
  readonly workspace: string
  /** Current directory for Bash; a `cd` inside the workspace persists. */
  cwd(): string
  setCwd(dir: string): void
  readonly signal: AbortSignal
  readonly sessionId: string
  readonly files: FileStateTracker
  readonly spill: OutputSpiller
  /** Live output preview for the running card (throttled by the caller). */
  onProgress(text: string): void
  readonly supportsVision: boolean
  /**
   * Present once the TaskManager exists (background Bash, TaskOutput, TaskStop). With `adopt`, a
   * foreground command can move there instead of being killed at its timeout.
   */
  readonly tasks?: TaskManagerApi & Partial<TaskAdopter>
  /**
   * The app's owner of live process groups: a foreground command's group is tracked there while it runs,
   * so every exit path kills it and the next start reaps it after a crash.
   */
  readonly processes?: ProcessGroupTracker
  /** Present when the session runs Bash in the OS sandbox (`sandbox` setting, `--sandbox`). */
  readonly sandbox?: BashSandbox
  /** The programs agent-tui runs itself (bash, ripgrep), by absolute path outside the workspace. */
  readonly programs?: HostPrograms
  /** Id of the tool call being executed. */
  readonly callId: string
  /** Current permission mode. */
  mode(): Mode
  /**
   * Only ExitPlanMode uses this, and only after the user approved the plan. The runtime may refuse a mode
   * its policy forbids (`permissions/modes.ts`) and then says why; a host that returns nothing switched.
   */
  switchMode?(mode: Mode): ModeChange | undefined
  readonly questions?: QuestionAsker
  readonly settings?: RuntimeSettingsApi
  readonly foreground?: ForegroundRegistry
  /**
   * The target as the permission check judged it (real paths resolved). A write refuses to go ahead
   * when the path resolves elsewhere by the time it happens (a symlink swapped in after the check).
   */
  readonly permission?: PermissionTarget
  /** Present where this agent may start subagents (the Agent tool). */
  readonly subagents?: SubagentLauncher
  /**
   * The deny rule (described) that keeps this tool from reading an absolute path, if any: a directory
   * search leaves such files out. Absent when no deny rule restricts the tool by path.
   */
  readonly deniedRead?: (path: string) => string | undefined
}

/** One subagent to run, as the Agent tool asks for it. */
export interface SubagentRequest {
  description: string
  prompt: string
  /** An agent type (`general-purpose`, `explore`, `plan`, or a custom agent's name). */
  type: string
  model?: string
  maxTurns?: number
}

export type SubagentStatus = 'completed' | 'max-turns' | 'interrupted' | 'stopped' | 'error'

/** How a subagent ended: its final answer and a short trace. */
export interface SubagentOutcome {
  /** Task id of a background subagent; absent for a foreground one. */
  id?: string
  type: string
  model: string
  status: SubagentStatus
  /** The final answer (what it had, when it stopped early). */
  text: string
  /** Why it stopped, for `error` and `stopped`. */
  error?: string
  steps: number
  maxTurns: number
  /** Tool name → number of calls, in first-use order. */
  tools: Array<[string, number]>
  usage: Usage
  durationMs: number
  /** Background jobs it started that were stopped when it ended (they belong to it). */
  stoppedJobs: string[]
}

/**
 * The runtime's subagents, as the Agent tool sees them. `check` and `run` throw ToolError for what the
 * model can fix (an unknown type, nesting too deep, a type plan mode does not allow).
 */
export interface SubagentLauncher {
  /** Validates a request before anything runs (or anyone is asked). */
  check(request: SubagentRequest, mode: Mode): void
  /** Runs it to the end; aborting `signal` interrupts it (its history stays paired). */
  run(
    request: SubagentRequest,
    opts: { signal: AbortSignal; onProgress(text: string): void },
  ): Promise<SubagentOutcome>
  /** Starts it in the background and returns its task at once. */
  start(request: SubagentRequest): TaskSummary
}

export interface ToolSuccess {
  forModel: string
  /** Images for vision models; sent in a user message right after the tool message. */
  images?: ImagePart[]
  display?: ToolDisplay
  /** Marks the card as failed (e.g. non-zero exit) without turning the result into an error envelope. */
  failed?: boolean
}

/** Thrown by tools for expected failures; the executor turns it into a model-visible error envelope. */
export class ToolError extends Error {
  readonly category: ErrorCategory
  readonly hint: string | undefined
  readonly retryable: boolean
  constructor(category: ErrorCategory, message: string, opts: { hint?: string; retryable?: boolean } = {}) {
    super(message)
    this.name = 'ToolError'
    this.category = category
    this.hint = opts.hint
    this.retryable = opts.retryable ?? false
  }
}

/**
 * One tool. `execute` may throw ToolError (expected failures) or anything else (bugs); the executor
 * converts both into error envelopes so a tool never breaks the loop.
 */
export interface Tool<A = unknown> {
  readonly name: string
  readonly description: string
  readonly schema: z.ZodType<A>
  /**
   * JSON Schema sent as the tool's parameters instead of one generated from `schema` (MCP tools bring
   * their own; their `schema` only checks that the arguments are an object).
   */
  readonly parameters?: Record<string, unknown>
  readonly risk: Risk
  /**
   * Allowing one call allows the tool for the rest of the session (the prompt says so): SaveMemory asks
   * the first time in a session only.
   */
  readonly consentForSession?: true
  /** A tool of a class other than `edit` that writes a file of the workspace: checkpointed like an edit. */
  readonly writesWorkspace?: true
  /**
   * Whether this particular call only reads (consecutive read-only calls may run concurrently). `target`
   * is the permission target as the gate resolved it (a command carries its analysis), when there is one.
   */
  isReadOnly(args: A, target?: PermissionTarget): boolean
  /**
   * What the policy judges. May be async (WebFetch resolves the host first); a ToolError thrown here
   * becomes the call's error envelope before anyone is asked.
   */
  permissionTarget(args: A, ctx: ToolContext): PermissionTarget | Promise<PermissionTarget>
  /**
   * The tool's own cheap checks that change nothing (read-first, staleness, a missing file or cell, an
   * unknown task): run by the gate only when the call would ask, after the policy judged it and before
   * the prompt, so nobody approves a call that cannot succeed. `ctx.permission` is the judged target.
   * Throws the ToolError `execute` would; `execute` checks again (the file may change during the prompt).
   */
  precheck?(args: A, ctx: ToolContext): Promise<void>
  /** What the consent prompt shows (command, diff, URL). Computing a diff may read files. */
  preview(args: A, ctx: ToolContext): Promise<ConsentPreview>
  /** One-line label for the transcript card and the consent prompt. */
  summarize(args: A): string
  execute(args: A, ctx: ToolContext): Promise<ToolSuccess>
}

// biome-ignore lint/suspicious/noExplicitAny: the catalog holds tools of different argument types
export type AnyTool = Tool<any>

export function defineTool<A>(tool: Tool<A>): Tool<A> {
  return tool
}
