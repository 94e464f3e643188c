import { isAbsolute, join, resolve } from 'node:path'

/**
 * Where Claude Code keeps a user's and a project's setup, read beside agent-tui's own places
 * (docs/coming-from-claude-code.md), and the one precedence between them: agent-tui's own places first,
 * then Claude Code's; within each, the project's before the user's. Pure: nothing is read here.
 */

export interface ClaudeCodePaths {
  /** `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
  userDir: string
  /** `~/.claude/settings.json`. */
  userSettings: string
  /** `~/.claude/CLAUDE.md`. */
  userMemory: string
  /** `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json` when that is set): `mcpServers`, `projects`. */
  userState: string
  /** `<workspace>/.claude`. */
  projectDir: string
  projectSettings: string
  projectLocalSettings: string
}

export function claudeCodePaths(
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  workspace: string,
): ClaudeCodePaths {
  const configured = env.CLAUDE_CONFIG_DIR
  const custom =
    configured !== undefined && configured !== '' && isAbsolute(configured) ? configured : undefined
  const userDir = custom ?? join(home, '.claude')
  const projectDir = join(resolve(workspace), '.claude')
  return {
    userDir,
    userSettings: join(userDir, 'settings.json'),
    userMemory: join(userDir, 'CLAUDE.md'),
    userState: custom ? join(custom, '.claude.json') : join(home, '.claude.json'),
    projectDir,
    projectSettings: join(projectDir, 'settings.json'),
    projectLocalSettings: join(projectDir, 'settings.local.json'),
  }
}

export type ExtensionKind = 'commands' | 'agents' | 'skills'

/** One folder commands, agents or skills are read from. */
export interface ExtensionLayer {
  dir: string
  /** The repository's (loaded only in a trusted folder) or the user's. */
  scope: 'user' | 'project'
  /** One of Claude Code's places (`.claude/`, `~/.claude/`). */
  claudeCode: boolean
  /** An enabled plugin's folder: its items are named `plugin:name` (the bare name when unique). */
  plugin?: string
}

/**
 * The folders of one kind, highest precedence first: `.agent-tui/<kind>`, the user's agent-tui config
 * dir, then (unless Claude Code's places are off) `.claude/<kind>` and `~/.claude/<kind>`. A name found
 * in an earlier folder hides the same name in a later one.
 */
export function extensionLayers(
  kind: ExtensionKind,
  opts: { workspace: string; configDir: string; claude: ClaudeCodePaths | null },
): ExtensionLayer[] {
  const layers: ExtensionLayer[] = [
    { dir: join(resolve(opts.workspace), '.agent-tui', kind), scope: 'project', claudeCode: false },
    { dir: join(opts.configDir, kind), scope: 'user', claudeCode: false },
  ]
  if (opts.claude) {
    layers.push(
      { dir: join(opts.claude.projectDir, kind), scope: 'project', claudeCode: true },
      { dir: join(opts.claude.userDir, kind), scope: 'user', claudeCode: true },
    )
  }
  return layers
}

/**
 * Picks, for each name, the item of the highest layer (`items` in layer order, highest first), and says
 * which Claude Code items an agent-tui item hid: a notice, since both tools' users expect their file.
 * Items of two Claude Code places (or two agent-tui places) hide each other silently, as in each tool.
 */
export function pickByName<T extends { name: string }>(
  items: ReadonlyArray<{ item: T; layer: ExtensionLayer; file: string }>,
  describe: (name: string) => string,
): { kept: T[]; hidden: Array<{ file: string; message: string }> } {
  const winners = new Map<string, { item: T; layer: ExtensionLayer; file: string }>()
  const hidden: Array<{ file: string; message: string }> = []
  for (const entry of items) {
    const key = entry.item.name.toLowerCase()
    const winner = winners.get(key)
    if (!winner) {
      winners.set(key, entry)
      continue
    }
    if (entry.layer.claudeCode && !winner.layer.claudeCode)
      hidden.push({
        file: entry.file,
        message: `${describe(entry.item.name)} is also defined by ${winner.file}, which is used (agent-tui's own files come first)`,
      })
  }
  return { kept: [...winners.values()].map((w) => w.item), hidden }
}
