import { access, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { AgentListing, AgentView } from '../../agent/runtime/commands.js'
import type { AgentsControl } from '../../agent/runtime/main-agent.js'
import type { AgentFileProblem } from '../../agent/subagents/agent-files.js'
import type { SubagentHost } from '../../agent/subagents/child-run.js'
import { SubagentManager } from '../../agent/subagents/subagent-manager.js'
import {
  type AgentProfile,
  MAIN_AGENT,
  READ_ONLY_TOOLS,
  toolNamesFor,
} from '../../agent/subagents/agent-profiles.js'
import { type AgentRegistry, openAgentRegistry } from '../../agent/subagents/registry.js'
import type { TaskDirectory } from '../../agent/subagents/task-directory.js'
import { mainPrompt, type PromptParts } from '../../agent/prompt/system-prompt.js'
import { type ClaudeCodePaths, extensionLayers } from '../../config/claude-code.js'
import { layerLabel } from './extension-layers.js'
import type { StatusEntry } from '../../agent/runtime/commands.js'
import { createAgentTool } from '../../tools/agent.js'
import type { AnyTool } from '../../tools/types.js'
import type { InstructionReaders } from './instruction-readers.js'
import { SessionError } from '../session-error.js'
import type { EnabledPlugin } from '../../plugins/session-plugins.js'

/** Subagents are on by default; `agents.maxParallel` in settings changes how many run at once. */
export const DEFAULT_MAX_PARALLEL = 4

export interface AgentSetup {
  registry: AgentRegistry
  /** The whole catalog: the core tools and Agent (last, as in docs/tools.md#the-tools). */
  catalog: AnyTool[]
  /** Human lines for start-up warnings (agent files that could not be used). */
  warnings: string[]
  /** The main session's profile at start and what it runs with. */
  main: { profile: AgentProfile; systemPrompt: string; tools: AnyTool[] }
  control(manager: SubagentManager): AgentsControl
  manager(host: SubagentHost, tasks: TaskDirectory, maxParallel: number): SubagentManager
}

/**
 * Loads the agent files (the project's only in a trusted folder), builds the Agent tool with the agent
 * list as it is now (once per session), and resolves the main session's agent (`--agent`, or the one a
 * resumed session ran as). An unknown `--agent` is a SessionError naming the agents there are.
 */
export async function setUpAgents(opts: {
  tools: AnyTool[]
  prompts: PromptParts
  configDir: string
  workspace: string
  home: string
  /** The read boundary for the user's and the project's agent files. */
  read: InstructionReaders
  /** The enabled plugins: their agents come as `plugin:name` (and `name` when no other agent has it). */
  plugins?: readonly EnabledPlugin[]
  trust?: { mayLoad(kind: 'agent'): boolean; subscribe(listener: () => void): () => void }
  /** `--agent NAME`. */
  requested?: string
  /** The agent a resumed session ran as. */
  resumed?: string
  /** Claude Code's places (`.claude/agents`, `~/.claude/agents`), or null when they are not read. */
  claude?: ClaudeCodePaths | null
  /** Where each folder stands, for `/status` (again after a trust answer). */
  record?(entries: StatusEntry[]): void
}): Promise<AgentSetup> {
  const projectDir = join(opts.workspace, '.agent-tui', 'agents')
  const label = (path: string) => layerLabel(path, opts.workspace, opts.home)
  const own = extensionLayers('agents', {
    workspace: opts.workspace,
    configDir: opts.configDir,
    claude: opts.claude ?? null,
  })
  // The enabled plugins' agents are read as the user's files are, named `plugin:name` (registry.ts).
  const pluginLayers = (opts.plugins ?? []).flatMap((p) =>
    p.manifest.agents.map((dir) => ({ dir, scope: 'user' as const, claudeCode: false, plugin: p.name })),
  )
  const layers = [...own, ...pluginLayers]
  const registry = await openAgentRegistry({
    userDir: join(opts.configDir, 'agents'),
    projectDir,
    layers,
    label,
    tools: opts.tools.map((t) => t.name),
    read: opts.read,
    ...(opts.trust ? { trust: opts.trust } : {}),
  })
  const agentTool = createAgentTool(
    registry
      .list()
      .filter((a) => !a.mainOnly)
      .map((a) => ({ name: a.name, description: a.description, tools: toolsText(a) })),
  )
  const catalog = [...opts.tools, agentTool]
  const warnings = startUpLines(registry.problems())
  const record = () => void agentEntries(registry, opts.workspace, opts.home).then((e) => opts.record?.(e))
  if (opts.record) {
    record()
    registry.onChange(record)
  }

  const setupFor = async (profile: AgentProfile) => {
    // A custom agent's instructions are read from its file now.
    const instructions = profile.mainOnly
      ? undefined
      : { name: profile.name, prompt: await profile.instructions() }
    const names = new Set(
      toolNamesFor(
        profile,
        catalog.map((t) => t.name),
        { subagent: false, nesting: true },
      ),
    )
    return {
      profile,
      systemPrompt: mainPrompt(opts.prompts, instructions),
      tools: catalog.filter((t) => names.has(t.name)),
    }
  }
  const find = async (name: string): Promise<AgentProfile> => {
    const found = registry.get(name)
    if (found) return found
    const list = registry
      .list()
      .map((a) => a.name)
      .join(', ')
    let waiting: string | undefined
    for (const layer of layers.filter((l) => l.scope === 'project')) {
      const file = join(layer.dir, `${name}.md`)
      if (
        await access(file).then(
          () => true,
          () => false,
        )
      ) {
        waiting = label(file)
        break
      }
    }
    throw new SessionError(
      waiting
        ? `agent "${name}" comes from ${waiting}, which is only loaded in a trusted folder (--trust-project, or answer the trust prompt); agents now: ${list}`
        : `no agent "${name}"; agents: ${list}`,
    )
  }
  let start = registry.get(MAIN_AGENT) as AgentProfile
  if (opts.requested) start = await find(opts.requested)
  else if (opts.resumed && opts.resumed !== MAIN_AGENT) {
    const again = registry.get(opts.resumed)
    if (again) start = again
    else
      warnings.push(
        `this session ran as the ${opts.resumed} agent, which is gone; it continues as ${MAIN_AGENT}`,
      )
  }

  return {
    registry,
    catalog,
    warnings,
    main: await setupFor(start),
    control: (manager) => ({
      list: (current): AgentListing => ({
        current,
        agents: registry.list().map(view),
        problems: registry.problems(),
      }),
      async setup(name) {
        const profile = registry.get(name)
        if (!profile) {
          const names = registry
            .list()
            .map((a) => a.name)
            .join(', ')
          throw new Error(`no agent "${name}"; agents: ${names}`)
        }
        const { systemPrompt, tools } = await setupFor(profile)
        return { systemPrompt, tools, ...(profile.model ? { model: profile.model } : {}) }
      },
      transcript: (id) => manager.transcript(id),
    }),
    manager(host, tasks, maxParallel) {
      const manager = new SubagentManager({
        host,
        agents: registry,
        catalog: () => catalog,
        prompts: opts.prompts,
        tasks,
        maxParallel,
      })
      registry.onChange((change) => manager.agentsChanged(change))
      return manager
    },
  }
}

function toolsText(profile: AgentProfile): string {
  const text = allowedText(profile)
  const denied = profile.disallowedTools ?? []
  return denied.length ? `${text}, except ${denied.join(', ')}` : text
}

function allowedText(profile: AgentProfile): string {
  if (profile.readOnly)
    return `read-only: ${READ_ONLY_TOOLS.map((t) => (t === 'Bash' ? 'Bash (read-only commands)' : t)).join(', ')}`
  if (profile.tools === null) return profile.mainOnly ? 'every tool' : 'every tool but Agent'
  return profile.tools.length ? profile.tools.join(', ') : 'none'
}

function view(profile: AgentProfile): AgentView {
  return {
    name: profile.name,
    description: profile.description,
    source: profile.source,
    ...(profile.file ? { file: profile.file } : {}),
    tools: toolsText(profile),
    ...(profile.model ? { model: profile.model } : {}),
    ...(profile.maxTurns !== undefined ? { maxTurns: profile.maxTurns } : {}),
    mainOnly: profile.mainOnly === true,
  }
}

/** Each agents folder that exists: how many it gave, or how many files wait for trust. */
async function agentEntries(
  registry: AgentRegistry,
  workspace: string,
  home: string,
): Promise<StatusEntry[]> {
  const entries: StatusEntry[] = []
  for (const { layer, count } of registry.folders()) {
    const files = await readdir(layer.dir).then(
      (names) => names.filter((n) => n.endsWith('.md') && !n.startsWith('.')).length,
      () => null,
    )
    if (files === null) continue
    const what = `${layerLabel(layer.dir, workspace, home)}/`
    if (count === null)
      entries.push({
        what,
        note: `${files} agent files wait for trust (/trust, or --trust-project)`,
        skipped: true,
      })
    else entries.push({ what, note: `${count} agent${count === 1 ? '' : 's'}` })
  }
  return entries
}

/** `.agent-tui/agents/x.md: "max_turns": expected a whole number … (agent not loaded)` */
/** More notes than this about agents that loaded are one start-up line (`/agents` lists each). */
const MAX_NOTE_LINES = 5

/**
 * The start-up warnings: each agent file left out and each name clash, and the notes about the ones
 * that loaded — one line when there are many (a Claude Code collection names a model tier in most of its files).
 */
export function startUpLines(problems: readonly AgentFileProblem[]): string[] {
  const notes = problems.filter((p) => !p.skipped && !p.naming)
  if (notes.length <= MAX_NOTE_LINES) return problems.map(problemLine)
  const files = new Set(notes.map((p) => p.file)).size
  const first = notes[0] as AgentFileProblem
  return [
    ...problems.filter((p) => p.skipped || p.naming).map(problemLine),
    `${files} agent files loaded with ${notes.length} notes, such as ${problemLine(first)}; /agents lists them all`,
  ]
}

export function problemLine(p: AgentFileProblem): string {
  return `${p.file}: ${p.field ? `"${p.field}": ` : ''}${p.message}${p.skipped ? ' (agent not loaded)' : ''}`
}
