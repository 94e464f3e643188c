import type { Mode, Risk } from '../store/domain.js'
import type { Rule } from './rule.js'
import type { SandboxView } from './sandbox-fence.js'
import type { StartUpPath } from './start-up-files.js'
import type { PermissionTarget } from './target.js'

/** What the policy judges and what it answers (policy.ts). */

export type Decision = 'allow' | 'ask' | 'deny'

export interface RuleSet {
  allow: readonly Rule[]
  ask: readonly Rule[]
  deny: readonly Rule[]
}

export interface PolicyInput {
  mode: Mode
  tool: string
  risk: Risk
  target: PermissionTarget
  /** The tool's own judgement that this call only reads (for commands the policy also classifies). */
  readOnly: boolean
  rules: RuleSet
  /** Real path of the workspace. */
  workspace: string
  home: string
  /** The home directory's real path, when it differs from `home` (a home under a symlink). */
  realHome?: string
  /** Directories readable and writable like the workspace (`--add-dir`, `additionalDirectories`). */
  additionalDirs?: readonly string[]
  /** Directories whose files may always be read (the session's outputs/spill dir). */
  trustedReadDirs?: readonly string[]
  /** agent-tui's own settings and state dirs: writes there ask (they matter when the workspace holds them). */
  appDirs?: readonly string[]
  /**
   * The files and folders that run code at a later start (start-up-files.ts) at every place the session
   * knows of: its home, config home and ZDOTDIR, and where each really leads. Default: the home's.
   */
  startUp?: readonly StartUpPath[]
  /**
   * Set when a Bash command will run inside the OS sandbox (the gate copies it from the command target).
   * Writes the sandbox refuses by itself no longer ask (they fail inside it, and the model sees the
   * error), and auto mode runs the command without asking. Deny rules, ask rules, secrets files, the
   * read boundary, unparseable commands and the other modes are unchanged.
   */
  sandbox?: SandboxView
  /**
   * A user command's own `` !`…` `` call, run to build its prompt: in ci a read-only command (as the
   * classifier judges it) runs without an allow rule, as Claude Code runs a command's context in `-p`.
   */
  commandContext?: boolean
}

export interface PolicyResult {
  decision: Decision
  /** Human text for the consent prompt or the model's permission error. */
  reason: string
  /** Text of the rule that decided, when one did. */
  rule?: string
  /** The rule "allow always" should save when the usual suggestion would not help (a read outside). */
  suggestedRule?: string
  /** Asks because of a protected write, which no allow rule opens: only a person at the prompt can allow it. */
  protectedWrite?: boolean
}
