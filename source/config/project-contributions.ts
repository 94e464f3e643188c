import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { describeServer, type IgnoredSetting } from './project-settings-filter.js'
import { readConfigText } from '../tools/instruction-file.js'
import { compareNames } from '../util/compare-names.js'

/**
 * The registry of what a repository can bring that only takes effect once its folder is trusted, and
 * how each kind is found. The trust prompt and the "ignored until trusted" notice list these; loaders
 * (MCP, hooks, agents, commands, skills) ask `ProjectTrust.mayLoad(kind)` before loading one.
 * A new kind is one row in CONTRIBUTION_KINDS (plus a `discover` when it lives in its own files).
 */

export type ContributionKind =
  | 'allow-rule'
  | 'setting'
  | 'mcp-server'
  | 'hook'
  | 'agent'
  | 'command'
  | 'skill'

export interface Contribution {
  kind: ContributionKind
  /** What the user sees: `Bash(npm test *)`, `"baseUrl": "https://…"`, `db (npx db-mcp)`, `/deploy`. */
  label: string
  /** Workspace-relative file it comes from. */
  file: string
  /** For items of a settings file: the top-level key (`permissions`, `mode`, `baseUrl`…). */
  key?: string
}

export interface ContributionKindSpec {
  kind: ContributionKind
  /** Group title in the trust prompt. */
  title: string
  /** One item in a sentence: "allow rule Bash"; several: "allow rules Bash, Edit". */
  noun: string
  plural: string
  /** Loaded (or dropped) the moment the user answers the trust prompt, through `ProjectTrust.subscribe`. */
  live?: true
  /**
   * Finds this kind in the workspace's own files (`folders`: `.agent-tui`, and `.claude` unless Claude
   * Code's places are off). Kinds that live in settings files come from the settings filter instead (they
   * have no `discover`). Must be cheap and never throw.
   */
  discover?(workspace: string, folders: readonly string[]): Promise<Contribution[]>
}

/** The workspace folders agent-tui's and Claude Code's agents, commands and skills live in. */
export const CONTRIBUTION_FOLDERS = ['.agent-tui', '.claude'] as const

/** Most entries listed per kind: a folder with 500 commands is not read whole at start-up. */
const MAX_PER_KIND = 50

export const CONTRIBUTION_KINDS: readonly ContributionKindSpec[] = [
  { kind: 'allow-rule', title: 'Allow rules', noun: 'allow rule', plural: 'allow rules' },
  { kind: 'setting', title: 'Settings', noun: 'setting', plural: 'settings' },
  {
    kind: 'mcp-server',
    title: 'MCP servers',
    noun: 'MCP server',
    plural: 'MCP servers',
    discover: discoverMcpJson,
  },
  { kind: 'hook', title: 'Hooks', noun: 'hook', plural: 'hooks' },
  {
    kind: 'agent',
    title: 'Agents',
    noun: 'agent',
    plural: 'agents',
    discover: (ws, folders) => discoverMarkdown(ws, folders, 'agents', 'agent', false),
  },
  {
    kind: 'command',
    title: 'Commands',
    noun: 'command',
    plural: 'commands',
    discover: (ws, folders) => discoverMarkdown(ws, folders, 'commands', 'command', true),
    live: true,
  },
  { kind: 'skill', title: 'Skills', noun: 'skill', plural: 'skills', discover: discoverSkills, live: true },
]

/**
 * Everything the folder brings: the settings items the filter held back, then each kind's files
 * (`claudeCode`: in `.claude/` too).
 */
export async function discoverContributions(
  workspace: string,
  fromSettings: readonly IgnoredSetting[],
  opts: { claudeCode?: boolean } = {},
): Promise<Contribution[]> {
  const folders = opts.claudeCode === false ? CONTRIBUTION_FOLDERS.slice(0, 1) : CONTRIBUTION_FOLDERS
  const found = await Promise.all(
    CONTRIBUTION_KINDS.map((spec) => spec.discover?.(workspace, folders) ?? Promise.resolve([])),
  )
  const settingsItems: Contribution[] = fromSettings.map((item) => ({
    kind: item.kind,
    label: item.label,
    file: item.file,
    key: item.key,
  }))
  const order = (c: Contribution) => CONTRIBUTION_KINDS.findIndex((spec) => spec.kind === c.kind)
  // Stable: within a kind, the files' own order.
  return [...settingsItems, ...found.flat()].sort((a, b) => order(a) - order(b))
}

/** Whether a kind takes effect (or stops) as soon as the user answers, rather than from the next start. */
export function appliesLive(kind: ContributionKind): boolean {
  return CONTRIBUTION_KINDS.some((spec) => spec.kind === kind && spec.live)
}

/** "allow rule Bash (.agent-tui/settings.json)": one contribution in a sentence or a list. */
export function describeContribution(c: Contribution): string {
  const noun = CONTRIBUTION_KINDS.find((spec) => spec.kind === c.kind)?.noun ?? c.kind
  return `${noun} ${c.label}${c.file ? ` (${c.file})` : ''}`
}

/**
 * All of them in one sentence, by kind, each file named once:
 * `allow rules Bash, Edit(src/**) (.agent-tui/settings.json); MCP server db (npx db-mcp) (.mcp.json)`.
 */
export function summarizeContributions(contributions: readonly Contribution[]): string {
  return CONTRIBUTION_KINDS.flatMap((spec) => {
    const mine = contributions.filter((c) => c.kind === spec.kind)
    if (mine.length === 0) return []
    const files = [...new Set(mine.map((c) => c.file).filter(Boolean))]
    const where = files.length === 1 ? ` (${files[0]})` : ''
    const labels = uniqueLabels(mine)
    return [`${labels.length === 1 ? spec.noun : spec.plural} ${labels.join(', ')}${where}`]
  }).join('; ')
}

/** Each name once: an agent `tester` in both `.agent-tui/agents/` and `.claude/agents/` is one name, two files. */
function uniqueLabels(contributions: readonly Contribution[]): string[] {
  return [...new Set(contributions.map((c) => c.label))]
}

/** Contributions grouped in registry order, for the prompt: [{title, items, files}] without empty groups. */
export function groupContributions(
  contributions: readonly Contribution[],
): Array<{ title: string; items: string[]; files: string[] }> {
  return CONTRIBUTION_KINDS.map((spec) => {
    const mine = contributions.filter((c) => c.kind === spec.kind)
    return {
      title: spec.title,
      items: uniqueLabels(mine),
      files: [...new Set(mine.map((c) => c.file).filter(Boolean))],
    }
  }).filter((g) => g.items.length > 0)
}

async function discoverMcpJson(workspace: string): Promise<Contribution[]> {
  const file = '.mcp.json'
  const read = await readConfigText(join(workspace, file))
  // A directory: the empty one the Bash sandbox mounts there while a command runs.
  if (read.kind === 'missing' || (read.kind === 'refused' && read.reason.startsWith('it is a directory')))
    return []
  // Listed anyway (unreadable): trusting the folder is trusting whatever the file says once it is fixed.
  if (read.kind === 'refused') return [{ kind: 'mcp-server', label: `unreadable (${read.reason})`, file }]
  const text = read.text
  try {
    const json = JSON.parse(text.replace(/^\uFEFF/, '')) as { mcpServers?: unknown }
    const servers = json && typeof json.mcpServers === 'object' && json.mcpServers ? json.mcpServers : {}
    return Object.entries(servers)
      .slice(0, MAX_PER_KIND)
      .map(([name, server]) => ({
        kind: 'mcp-server' as const,
        label: describeServer(name, server, Number.POSITIVE_INFINITY),
        file,
      }))
  } catch (err) {
    // Listed anyway: trusting the folder is trusting whatever the file says once it is fixed.
    return [{ kind: 'mcp-server', label: `unreadable (${(err as Error).message})`, file }]
  }
}

/**
 * `<folder>/<dir>/*.md` of each folder (and one level of subfolders for commands: `frontend/build.md` is
 * `/build`).
 */
async function discoverMarkdown(
  workspace: string,
  folders: readonly string[],
  dir: string,
  kind: 'agent' | 'command',
  nested: boolean,
): Promise<Contribution[]> {
  const out: Contribution[] = []
  for (const folder of folders) await discoverMarkdownIn(workspace, join(folder, dir), kind, nested, out)
  return out
}

async function discoverMarkdownIn(
  workspace: string,
  base: string,
  kind: 'agent' | 'command',
  nested: boolean,
  out: Contribution[],
): Promise<void> {
  const entries = await list(join(workspace, base))
  for (const entry of entries) {
    if (out.length >= MAX_PER_KIND) break
    if (entry.isFile() && entry.name.endsWith('.md')) {
      const name = entry.name.slice(0, -3)
      out.push({ kind, label: kind === 'command' ? `/${name}` : name, file: join(base, entry.name) })
    } else if (nested && entry.isDirectory()) {
      for (const inner of await list(join(workspace, base, entry.name))) {
        if (out.length >= MAX_PER_KIND) break
        if (!inner.isFile() || !inner.name.endsWith('.md')) continue
        // Claude Code's convention: a subfolder groups commands, the name is the file's.
        out.push({ kind, label: `/${inner.name.slice(0, -3)}`, file: join(base, entry.name, inner.name) })
      }
    }
  }
}

/** `<folder>/skills/<name>/SKILL.md` of each folder. */
async function discoverSkills(workspace: string, folders: readonly string[]): Promise<Contribution[]> {
  const out: Contribution[] = []
  for (const folder of folders) {
    const base = join(folder, 'skills')
    for (const entry of await list(join(workspace, base))) {
      if (out.length >= MAX_PER_KIND) break
      if (!entry.isDirectory()) continue
      const names = await list(join(workspace, base, entry.name))
      if (names.some((n) => n.name === 'SKILL.md'))
        out.push({ kind: 'skill', label: entry.name, file: join(base, entry.name, 'SKILL.md') })
    }
  }
  return out
}

async function list(dir: string) {
  try {
    return (await readdir(dir, { withFileTypes: true })).sort((a, b) => compareNames(a.name, b.name))
  } catch {
    return []
  }
}
