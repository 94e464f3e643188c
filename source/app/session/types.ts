import type { EnabledPlugin } from '../../plugins/session-plugins.js'
import type { RuntimeCommands } from '../../agent/runtime/commands.js'
import type { Runtime } from '../../agent/runtime/runtime.js'
import type { TrustController } from '../../agent/runtime/trust-controller.js'
import type { AppPaths } from '../../config/app-paths.js'
import type { ProjectTrustSetup } from '../../config/project-trust.js'
import type { ResolvedConfig } from '../../config/resolve-config.js'
import type { ApplyPatchOffer, ModelProfile } from '../../provider/model-profiles.js'
import type { BashSandbox } from '../../sandbox/bash-sandbox.js'
import type { SessionLog } from '../../session/session-log.js'
import type { Action } from '../../store/actions.js'
import type { Store } from '../../store/create-store.js'
import type { ThemeSetting } from '../../store/domain.js'
import type { State } from '../../store/state.js'
import type { TaskManager } from '../../tasks/task-manager.js'
import type { ProcessGroups } from '../../tasks/process-groups.js'
import type { HostPrograms } from '../../util/host-programs.js'
import type { InstructionReaders } from './instruction-readers.js'
import type { ClaudeCodePaths } from '../../config/claude-code.js'
import type { Discovery } from './discovery.js'
import type { SkillCommands } from './load-commands.js'

/** What `createSession` is given, and the session it builds. */

export interface SessionOptions {
  config: ResolvedConfig
  paths: AppPaths
  endpoint: {
    baseUrl: string
    apiKey?: string
    model: string
    contextLength?: number
    contextSource?: string
  }
  workspace: string
  interactive: boolean
  /** The process's hold on V8's young generation (`ProcessTuning`), taken while CodeSearch indexes. */
  holdYoungGeneration?: () => () => void
  resume?: { kind: 'continue' } | { kind: 'id'; id: string }
  /** Extra observers of every action (headless output, debug log). */
  observers?: Array<(action: Action, state: State) => void>
  /** Renders the transcript for /export (the UI's renderer, injected so the runtime stays UI-free). */
  exportMarkdown?: (state: State) => string
  projectTrust?: ProjectTrustSetup
  /** MCP notices also go here (headless prints them on stderr, where a script's author looks). */
  onMcpNotice?: (level: 'info' | 'warn' | 'error', text: string) => void
  /** `--agent NAME`: the main session runs as this agent profile. */
  agent?: string
  /** apply_patch whatever the model's profile says (`mcp serve --expose-tools` offers a client every editing tool). */
  applyPatch?: ApplyPatchOffer
  /** false: none (calls outside any turn have no turn to belong to; warming would copy the workspace for nothing). */
  checkpoints?: false
}

export interface Session {
  id: string
  store: Store
  runtime: Runtime
  /** What the UI calls: the runtime's turn control and the session's services (export, memory, images, sessions). */
  commands: RuntimeCommands
  tasks: TaskManager
  /** Every live process group of the session (foreground commands and background jobs). */
  processes: ProcessGroups
  log: SessionLog
  profile(): ModelProfile
  /** Git branch at start (read once). */
  branch: string | undefined
  warnings: string[]
  /** The theme the UI starts in when it is not the setting's: the one a resumed session was left in. */
  theme?: ThemeSetting
  /** The programs agent-tui runs itself, found outside the workspace (`/copy`'s clipboard program). */
  programs: HostPrograms
  /** Reads instruction files, commands, skills and agents through the read boundary. */
  instructions: InstructionReaders
  /** Claude Code's places, or null when they are not read (`--no-claude-dirs`, `"claudeDirs": false`). */
  claude: ClaudeCodePaths | null
  /** What was loaded from where, for `/status` (the command loaders record into it too). */
  discovery: Discovery
  /** The session's skills, for the command table (each runnable as `/name`). */
  skills: SkillCommands
  /** The user's enabled plugins, read at start (docs/plugins.md). */
  plugins: readonly EnabledPlugin[]
  /** The trust prompt and notices (interactive sessions with project trust). */
  trust?: TrustController
  /** The Bash sandbox, when the session asked for one; `status()` runs its one-time check. */
  sandbox?: BashSandbox
  /** Loads what the first request will need (the provider); resolves when done, never rejects. */
  preload(): Promise<void>
  /** Starts the MCP servers in the background (after the first frame in the TUI, at once headless). */
  startMcp(): void
  /** Starts the `statusLine` command, when one is set (interactive, after the first frame). */
  startStatusLine(): void
  /** Starts CodeSearch's background index update, when an embeddings model is configured. */
  startCodeSearch(): void
  close(): Promise<void>
}
