import type { InstructionReader } from '../../tools/instruction-file.js'
import type { AgentFileProblem } from './agent-files.js'
import { loadAgentDir } from './agent-files.js'
import { type AgentProfile, BUILT_IN_AGENTS } from './agent-profiles.js'

/**
 * The session's agents: the built-in ones, the user's (`$XDG_CONFIG_HOME/agent-tui/agents/*.md`, always)
 * and the project's (`.agent-tui/agents/*.md`, only while the folder is trusted; they appear or go when
 * the user answers the trust prompt). A project agent of the same name as a user agent wins.
 */

export interface AgentChange {
  added: AgentProfile[]
  removed: AgentProfile[]
}

export interface AgentRegistry {
  /** Every agent now, built-in first, then custom ones by name. */
  list(): AgentProfile[]
  get(name: string): AgentProfile | undefined
  /** Files that could not be used (or only partly), for `/agents` and the start-up notice. */
  problems(): AgentFileProblem[]
  /** Called after trust changes what is loaded. Returns an unsubscribe function. */
  onChange(listener: (change: AgentChange) => void): () => void
  /** Stops following trust. */
  dispose(): void
}

export interface AgentRegistryOptions {
  userDir: string
  projectDir: string
  /** The enabled plugins' agents folders: the user's too, below their own agents of the same name. */
  pluginDirs?: readonly string[]
  /** How a file is shown: `.agent-tui/agents/x.md`, `~/.config/agent-tui/agents/x.md`. */
  label(path: string): string
  /** The session's tool names (a custom agent's `tools` are checked against them). */
  tools: readonly string[]
  /** Reads the user's and the project's agent files through the read boundary. */
  read: Record<'user' | 'project', InstructionReader>
  /** Project trust; without it the project's agents never load. */
  trust?: { mayLoad(kind: 'agent'): boolean; subscribe(listener: () => void): () => void }
}

/** Loads the agent files once (the project's only if trusted) and follows trust answers. */
export async function openAgentRegistry(opts: AgentRegistryOptions): Promise<AgentRegistry> {
  const load = (dir: string, source: 'user' | 'project') =>
    loadAgentDir({ dir, source, label: opts.label, tools: opts.tools, read: opts.read[source] })
  const trusted = () => opts.trust?.mayLoad('agent') === true
  const [own, firstProject, ...fromPlugins] = await Promise.all([
    load(opts.userDir, 'user'),
    trusted() ? load(opts.projectDir, 'project') : Promise.resolve(null),
    ...(opts.pluginDirs ?? []).map((dir) => load(dir, 'user')),
  ])
  const user = {
    agents: [...fromPlugins.flatMap((p) => p?.agents ?? []), ...own.agents],
    problems: [...fromPlugins.flatMap((p) => p?.problems ?? []), ...own.problems],
  }
  let project = firstProject
  let all = merge(user.agents, project?.agents ?? [])
  const listeners = new Set<(change: AgentChange) => void>()
  /** Bumped on every trust answer: a slow load for an older answer is dropped. */
  let generation = 0

  const apply = (next: typeof project) => {
    project = next
    const before = all
    all = merge(user.agents, project?.agents ?? [])
    const added = all.filter((a) => !before.some((b) => sameAgent(a, b)))
    const removed = before.filter((b) => !all.some((a) => sameAgent(a, b)))
    if (added.length === 0 && removed.length === 0) return
    for (const listener of listeners) listener({ added, removed })
  }
  const unsubscribe = opts.trust?.subscribe(() => {
    const mine = ++generation
    if (!trusted()) {
      apply(null)
      return
    }
    void load(opts.projectDir, 'project').then((loaded) => {
      if (mine === generation) apply(loaded)
    })
  })

  return {
    list: () => all,
    get: (name) => all.find((a) => a.name === name),
    problems: () => [...user.problems, ...(project?.problems ?? [])],
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    dispose: () => unsubscribe?.(),
  }
}

function merge(user: AgentProfile[], project: AgentProfile[]): AgentProfile[] {
  const custom = new Map<string, AgentProfile>()
  for (const agent of [...user, ...project]) custom.set(agent.name, agent)
  return [...BUILT_IN_AGENTS, ...[...custom.values()].sort((a, b) => a.name.localeCompare(b.name))]
}

function sameAgent(a: AgentProfile, b: AgentProfile): boolean {
  return a.name === b.name && a.source === b.source && a.prompt === b.prompt && a.file === b.file
}
