import type { RuleSet } from '../../permissions/policy.js'
import {
  type InstructionFile,
  instructionReader,
  type InstructionReader,
} from '../../tools/instruction-file.js'
import type { SkillEntry } from '../../tools/skill.js'

/**
 * The readers for what agent-tui puts in front of the model without a tool call (see
 * tools/instruction-file.ts): the project's files (AGENTS.md, CLAUDE.md, memory, `.agent-tui/` and
 * `.claude/` commands, skills and agents) may come from the workspace and the added directories; the
 * user's own (their config dir's and `~/.claude/`'s) from those dirs too. The secrets checks and the
 * `Read(…)` rules apply to both.
 */
export interface InstructionReaders {
  project: InstructionReader
  user: InstructionReader
  /** A skill's SKILL.md when the model loads it, by whose skill it is. */
  skill(entry: SkillEntry): Promise<InstructionFile>
  /** The rules changed (the folder was trusted or distrusted). */
  setRules(rules: RuleSet): void
}

/** A SKILL.md is cut at 100,000 characters when loaded: at most 4 bytes each. */
const SKILL_BYTES = 400_000

export function boundaryReaders(opts: {
  /** Real path of the workspace. */
  workspace: string
  home: string
  /** Real paths of the added directories. */
  additionalDirs: readonly string[]
  /** The configured rules at start. */
  config: { rules: RuleSet }
  /**
   * Real paths of agent-tui's own dirs: the user's config dir (`$XDG_CONFIG_HOME/agent-tui`), the state
   * dir, and the data dir (installed plugins, `$XDG_DATA_HOME/agent-tui`), in that order.
   */
  appDirs: readonly string[]
  /**
   * Claude Code's user dir (`~/.claude`) as named and its real path, when Claude Code's places are read:
   * the user's own, wherever a link puts it (never a repository's `.claude`, which the project reader reads).
   */
  claudeUserDirs?: readonly string[]
}): InstructionReaders {
  let rules = opts.config.rules
  const boundary = {
    workspace: opts.workspace,
    home: opts.home,
    additionalDirs: opts.additionalDirs,
    rules: () => rules,
  }
  const project = instructionReader(boundary)
  // The user's own files: their config dir, the plugins they installed (docs/plugins.md), and Claude Code's
  // `~/.claude` (its CLAUDE.md, commands, agents, skills and what they import); secrets in them stay out
  // (its .credentials.json is one).
  const user = instructionReader(
    boundary,
    [opts.appDirs[0], opts.appDirs[2], ...(opts.claudeUserDirs ?? [])].filter((d) => d !== undefined),
  )
  return {
    project,
    user,
    skill: (entry) => (entry.scope === 'user' ? user : project).file(entry.path, { maxBytes: SKILL_BYTES }),
    setRules(next) {
      rules = next
    },
  }
}
