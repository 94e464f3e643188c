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
 * extensionLayers: agent-tui's before Claude Code's, the project's before the user's); an enabled plugin's
 * are `plugin:name` (mergeLayers).
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
  /** By name; a plugin's agent also by its bare name when that is unique and no own agent has it. */
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
      source: layer.plugin ? `plugin:${layer.plugin}` : layer.scope,
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
  const find = (name: string) => all.find((a) => a.name === name) ?? merged.bare.get(name)
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
    get: find,
    problems: () => merged.problems,
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    dispose: () => unsubscribe?.(),
  }
}

/**
 * One agent per name, the first folder's; the built-in ones first, then the rest by name. A plugin's
 * agents are `plugin:name` (as in Claude Code), and answer to the bare name when no other plugin has it
 * and neither the built-in nor the user's or project's own agents do: those files win a bare name.
 */
export function mergeLayers(
  layers: readonly ExtensionLayer[],
  loads: ReadonlyArray<LoadedAgents | null>,
): { agents: AgentProfile[]; problems: AgentFileProblem[]; bare: Map<string, AgentProfile> } {
  const entries = loads.flatMap((loaded, i) =>
    (loaded?.agents ?? []).map((item) => ({ item, layer: layers[i]!, file: item.file ?? item.name })),
  )
  const { kept, hidden } = pickByName(
    entries.filter((e) => !e.layer.plugin),
    (name) => `the agent ${name}`,
  )
  const problems: AgentFileProblem[] = [
    ...loads.flatMap((l) => l?.problems ?? []),
    ...hidden.map((h) => ({ ...h, skipped: false, naming: true })),
  ]
  const taken = new Set([...BUILT_IN_AGENTS, ...kept].map((a) => a.name.toLowerCase()))
  const fromPlugins: Array<{ bare: string; plugin: string; file: string; agent: AgentProfile }> = []
  for (const e of entries) {
    const plugin = e.layer.plugin
    if (!plugin) continue
    const name = `${plugin}:${e.item.name}`
    // Two agents folders of one plugin: the first one's.
    if (fromPlugins.some((p) => p.agent.name === name)) continue
    fromPlugins.push({ bare: e.item.name, plugin, file: e.file, agent: { ...e.item, name } })
  }
  const bare = new Map<string, AgentProfile>()
  const byBare = new Map<string, typeof fromPlugins>()
  for (const p of fromPlugins) {
    const key = p.bare.toLowerCase()
    byBare.set(key, [...(byBare.get(key) ?? []), p])
  }
  for (const group of byBare.values()) {
    const first = group[0]!
    if (group.length > 1) {
      // One notice per clash, on the first plugin's file.
      problems.push({
        file: first.file,
        message: `the agent ${first.bare} is in the plugins ${group.map((g) => g.plugin).join(' and ')}: reachable as ${group.map((g) => g.agent.name).join(' and ')}, not as ${first.bare}`,
        skipped: false,
        naming: true,
      })
    } else if (taken.has(first.bare.toLowerCase())) {
      const own = kept.find((a) => a.name.toLowerCase() === first.bare.toLowerCase())
      problems.push({
        file: first.file,
        message: `${first.bare} is ${own?.file ? `the agent of ${own.file}` : 'a built-in agent'}: this plugin's is ${first.agent.name}`,
        skipped: false,
        naming: true,
      })
    } else bare.set(first.bare, first.agent)
  }
  const custom = [...kept, ...fromPlugins.map((p) => p.agent)].sort((a, b) => compareNames(a.name, b.name))
  return { agents: [...BUILT_IN_AGENTS, ...custom], problems, bare }
}

/** Its instructions are read when it runs: the same file and fields are the same agent. */
function sameAgent(a: AgentProfile, b: AgentProfile): boolean {
  return (
    a.name === b.name &&
    a.source === b.source &&
    a.file === b.file &&
    a.description === b.description &&
    a.model === b.model &&
    String(a.tools) === String(b.tools) &&
    String(a.disallowedTools) === String(b.disallowedTools)
  )
}
