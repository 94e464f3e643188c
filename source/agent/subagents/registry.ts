import type { InstructionReader } from '../../tools/instruction-file.js'
import { type ExtensionLayer, pickByName } from '../../config/claude-code.js'
import type { AgentFileProblem, LoadedAgents } from './agent-files.js'
import { loadAgentDir } from './agent-files.js'
import { type AgentProfile, BUILT_IN_AGENTS } from './agent-profiles.js'
import { compareNames } from '../../util/compare-names.js'

/**
 * The session's agents: the built-in ones, the user's (`$XDG_CONFIG_HOME/agent-tui/agents/*.md` and
 * Claude Code's `~/.claude/agents/`, always) and the project's (`.agent-tui/agents/*.md` and
 * `.claude/agents/`, only while the folder is trusted; they appear or go when the user answers the trust
 * prompt). Of agents with one name, the one of the first folder wins (config/claude-code.ts
 * extensionLayers: agent-tui's before Claude Code's, the project's before the user's).
 */

export interface AgentChange {
  added: AgentProfile[]
  removed: AgentProfile[]
}

export interface AgentRegistry {
  /** Every agent now, built-in first, then custom ones by name. */
  list(): AgentProfile[]
  /** Each folder and how many agents it gave (null: a project folder not read, the workspace untrusted). */
  folders(): Array<{ layer: ExtensionLayer; count: number | null }>
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
  /** The folders, highest precedence first; default: `projectDir`, then `userDir`. */
  layers?: readonly ExtensionLayer[]
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
  const layers: readonly ExtensionLayer[] = opts.layers ?? [
    { dir: opts.projectDir, scope: 'project', claudeCode: false },
    { dir: opts.userDir, scope: 'user', claudeCode: false },
  ]
  const load = (layer: ExtensionLayer) =>
    loadAgentDir({
      dir: layer.dir,
      source: layer.scope,
      label: opts.label,
      tools: opts.tools,
      read: opts.read[layer.scope],
    })
  const trusted = () => opts.trust?.mayLoad('agent') === true
  /** What each folder gave; null for the project's while the folder is not trusted. */
  const loadAll = (withProject: boolean) =>
    Promise.all(
      layers.map((layer) => (layer.scope === 'user' || withProject ? load(layer) : Promise.resolve(null))),
    )
  let loads: Array<LoadedAgents | null> = await loadAll(trusted())
  // The user's folders are read once; a trust answer reloads only the project's.
  const userLoads = loads.map((l, i) => (layers[i]?.scope === 'user' ? l : null))
  let merged = mergeLayers(layers, loads)
  let all = merged.agents
  const listeners = new Set<(change: AgentChange) => void>()
  /** Bumped on every trust answer: a slow load for an older answer is dropped. */
  let generation = 0

  const apply = (next: Array<LoadedAgents | null>) => {
    loads = next
    const before = all
    merged = mergeLayers(layers, loads)
    all = merged.agents
    const added = all.filter((a) => !before.some((b) => sameAgent(a, b)))
    const removed = before.filter((b) => !all.some((a) => sameAgent(a, b)))
    if (added.length === 0 && removed.length === 0) return
    for (const listener of listeners) listener({ added, removed })
  }
  const unsubscribe = opts.trust?.subscribe(() => {
    const mine = ++generation
    if (!trusted()) {
      apply(userLoads)
      return
    }
    void Promise.all(
      layers.map((layer, i) =>
        layer.scope === 'user' ? Promise.resolve(userLoads[i] ?? null) : load(layer),
      ),
    ).then((next) => {
      if (mine === generation) apply(next)
    })
  })

  return {
    list: () => all,
    folders: () => layers.map((layer, i) => ({ layer, count: loads[i]?.agents.length ?? null })),
    get: (name) => all.find((a) => a.name === name),
    problems: () => merged.problems,
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    dispose: () => unsubscribe?.(),
  }
}

/** One agent per name, the first folder's; the built-in ones first, then the rest by name. */
function mergeLayers(
  layers: readonly ExtensionLayer[],
  loads: ReadonlyArray<LoadedAgents | null>,
): { agents: AgentProfile[]; problems: AgentFileProblem[] } {
  const entries = loads.flatMap((loaded, i) =>
    (loaded?.agents ?? []).map((item) => ({ item, layer: layers[i]!, file: item.file ?? item.name })),
  )
  const { kept, hidden } = pickByName(entries, (name) => `the agent ${name}`)
  const problems: AgentFileProblem[] = [
    ...loads.flatMap((l) => l?.problems ?? []),
    ...hidden.map((h) => ({ ...h, skipped: false })),
  ]
  const custom = kept.sort((a, b) => compareNames(a.name, b.name))
  return { agents: [...BUILT_IN_AGENTS, ...custom], problems }
}

/** Its instructions are read when it runs: the same file and fields are the same agent. */
function sameAgent(a: AgentProfile, b: AgentProfile): boolean {
  return (
    a.name === b.name &&
    a.source === b.source &&
    a.file === b.file &&
    a.description === b.description &&
    a.model === b.model &&
    String(a.tools) === String(b.tools)
  )
}
