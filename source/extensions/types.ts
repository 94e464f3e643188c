/**
 * What users and repositories add to a session as Markdown files: slash commands
 * (`.agent-tui/commands/**\/*.md`, Claude Code's format) and skills (`.agent-tui/skills/<name>/SKILL.md`).
 */

/** Whose the file is: the user's config dir, or the repository (loaded only in a trusted folder). */
export type ExtensionScope = 'user' | 'project'

/** A file that could not be used as written: shown as a notice naming the file and the field. */
export interface ExtensionProblem {
  /** The file as shown to the user (`.agent-tui/commands/review.md`, `~/.config/agent-tui/…`). */
  file: string
  /** The frontmatter field at fault, when one is. */
  field?: string
  message: string
  /** True when the command or skill was left out; false for a warning about one that still loaded. */
  skipped: boolean
}

/** One command file, read and checked. */
export interface CommandDefinition {
  /** Typed as `/name`: the file's name without `.md`. */
  name: string
  scope: ExtensionScope
  /** Subfolders below the commands folder (`frontend` for `frontend/component.md`), shown as `(project:frontend)`. */
  namespace: string[]
  /** One line for completion and `/help` (the frontmatter's, or the body's first line). */
  description: string
  argumentHint?: string
  /** Permission rules the command's turn runs with (`allowed-tools`), already checked. */
  allowedTools: string[]
  /** The model of the command's turn. */
  model?: string
  /**
   * The prompt template (the file after its frontmatter), read from the file when the command runs: a
   * collection's bodies are not held in memory. Rejects with a message naming the file when it is gone,
   * left out, no longer the file read at start, or its frontmatter changed (see `command-files.ts`).
   */
  readBody(): Promise<string>
  /** The file as shown to the user. */
  file: string
}

/** A piece of an expanded command: text as is, a shell command whose output goes in its place, a file to include. */
export type PromptPart =
  | { kind: 'text'; text: string }
  | { kind: 'shell'; command: string }
  | { kind: 'file'; path: string }

/**
 * A user command with its arguments put in: what the runtime runs as one turn. Its shell commands and
 * file reads run first, under the permission rules (with `allowedTools` granted for this turn only).
 */
export interface CommandInvocation {
  /** The command's name, without the slash. */
  name: string
  /** The file it comes from, for messages. */
  file: string
  parts: PromptPart[]
  allowedTools: readonly string[]
  model?: string
  /** A skill run as `/name`: its file's `allowed-tools` grant nothing, so a refusal does not point there. */
  skill?: true
}

/** One skill: a folder with a SKILL.md whose frontmatter names and describes it. */
export interface SkillDefinition {
  name: string
  description: string
  /** Shown after `/name` in completion and `/help` (a skill runs as a command too). */
  argumentHint?: string
  scope: ExtensionScope
  /** The enabled plugin it came from (its name is then `plugin:name`). */
  plugin?: string
  /** The skill's folder (absolute, symlinks resolved): the model may read what is in it. */
  dir: string
  /** The absolute path of its SKILL.md. */
  path: string
  /** SKILL.md as shown to the user. */
  file: string
}
