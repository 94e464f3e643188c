import type { Checkpoints } from '../../checkpoints/lazy.js'
import type { HookService } from '../../user-hooks/hook-service.js'
import type { QuestionBroker } from '../../permissions/question-broker.js'
import type { ModelProfile } from '../../provider/model-profiles.js'
import type { ChatProvider } from '../../provider/types.js'
import type { BashSandbox } from '../../sandbox/bash-sandbox.js'
import type { HostPrograms } from '../../util/host-programs.js'
import type { UnaskedCall } from '../tool-call/pipeline.js'
import type { Store } from '../../store/create-store.js'
import type { ConsentDecision } from '../../store/domain.js'
import type { ProcessGroupTracker } from '../../tasks/process-groups.js'
import type { TaskAdopter, TaskManagerApi } from '../../tasks/types.js'
import type { AnyTool, FileStateTracker, OutputSpiller, SubagentLauncher } from '../../tools/types.js'
import type { Announcement } from './announcements.js'
import type { AgentsControl } from './main-agent.js'
import type { DefinitionBuilder } from '../prompt/tool-definitions.js'
import type { CircuitBreakerConfig } from '../turn/circuit-breaker.js'
import type { ContextSettings } from '../context/options.js'
import type { PermissionRulesView } from './commands.js'
import type { PermissionGate } from '../../permissions/gate.js'
import type { McpRuntime } from './session-tools.js'
import type { DeferMode } from '../toolset/deferral.js'
import type { ToolList } from '../toolset/mask.js'

/** What the runtime is built from (app/session/create-session.ts assembles them). */

export interface ModelCapabilities {
  supportsVision: boolean
  supportsAllowedTools: boolean
  /** Read tool calls the model writes as text (the profile's textToolCalls; bare JSON for Llama-like formats). */
  textToolCalls?: { bareJson: boolean }
}

export interface RuntimeOptions {
  store: Store
  provider: ChatProvider
  tools: AnyTool[]
  gate: PermissionGate & {
    resolve(id: string, decision: ConsentDecision): void
    cancelAll(note: string): void
    /** The rules the gate applies, for `/permissions`. */
    describeRules(): PermissionRulesView
  }
  workspace: string
  sessionId: string
  files: FileStateTracker
  spill: OutputSpiller
  systemPrompt: string
  capabilities(model: string): ModelCapabilities
  /** The model profile (window, masking window, compaction point); the built-in table when absent. */
  profile?: (model: string) => ModelProfile
  /** Masking and compaction settings (`contextManagement`, `summarizerModel`); masking on when absent. */
  context?: ContextSettings
  maxSteps: number
  breaker: CircuitBreakerConfig
  interactive: boolean
  tasks?: TaskManagerApi & Partial<TaskAdopter>
  /** Where tools register the process groups of foreground commands. */
  processes?: ProcessGroupTracker
  /** The OS sandbox Bash runs in, when the session asked for one. */
  sandbox?: BashSandbox
  /** bash and ripgrep as agent-tui runs them itself: by absolute path, outside the workspace. */
  programs?: HostPrograms
  /**
   * Told just before a call runs that nobody was asked about (a sandboxed command, an auto-mode edit):
   * from then on files may change that the user did not answer for (see source/provenance/windows.ts).
   */
  unasked?: (call: UnaskedCall) => void
  /** Present when a user can answer (interactive sessions). */
  questions?: QuestionBroker
  /** Snapshots before workspace changes, for /rewind (absent: only the conversation can be rewound). */
  checkpoints?: Checkpoints
  /** The session's hooks (absent: none run). */
  hooks?: HookService
  /** The MCP client, and ListMcpResources/ReadMcpResource (offered when a server is configured). */
  mcp?: { runtime: McpRuntime; tools: AnyTool[]; startupWaitMs: number }
  /**
   * `tools`: only PreToolUse and PostToolUse (a subagent: its end is SubagentStop, fired by its runner;
   * prompts, Stop, PreCompact and the session events belong to the main session). Default `session`.
   */
  hookScope?: 'session' | 'tools'
  /** The turn a change belongs to, for checkpoints (a subagent's changes belong to its caller's turn). */
  checkpointTurn?: () => string | null
  /** The Agent tool's subagents (absent: no Agent calls can run here). */
  subagents?: SubagentLauncher
  /** Messages to add at the next step (drained each step and before a new turn's message). */
  takeAnnouncements?: () => Announcement[]
  /** Resolves once messages still being read for the next step (nested CLAUDE.md files) are ready. */
  announcementsReady?: () => Promise<void>
  /** Agent profiles for `/agents` and switching the main session's agent. */
  agents?: AgentsControl
  /** Converts tool schemas to definitions (a session's cache, shared with its subagents). */
  definitions?: DefinitionBuilder
  /** `--tools` or the `tools` setting: exactly the tools offered to the model (docs/tools.md#tool-masks). */
  toolList?: ToolList
  /** `deferTools`: whether definitions that do not fit the window wait behind ToolSearch (default auto). */
  deferTools?: DeferMode
  /** False for subagents: ExitPlanMode cannot change the session's mode from inside one. */
  canSwitchMode?: boolean
  now?: () => number
}
