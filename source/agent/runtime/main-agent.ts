import type { Store } from '../../store/create-store.js'
import type { AnyTool } from '../../tools/types.js'
import type { AgentListing } from './commands.js'

/** A message the runtime adds to the history at the next step (a background subagent finished…). */
export type { Announcement } from './announcements.js'

/** The main session's agent profiles (`/agents`, `--agent`) and background subagents' transcripts. */
export interface AgentsControl {
  list(current: string): AgentListing
  /**
   * The system prompt and tools to run the main session as `name` (a custom agent's file is read for it);
   * rejects with a user-facing Error.
   */
  setup(name: string): Promise<{ systemPrompt: string; tools: AnyTool[]; model?: string }>
  transcript(taskId: string): Store | null
}

/**
 * `/agents NAME`: the main session runs as another agent from the next request on. Refused while a
 * turn runs (its requests must keep one prefix). Returns the notice text it also shows.
 */
export async function switchMainAgent(opts: {
  name: string
  store: Store
  agents: AgentsControl | undefined
  /** Asked before and after the agent's file is read: a turn may start meanwhile. */
  busy(): boolean
  /** Puts the new prompt and tools in place (the tool definitions are fixed again at the next request). */
  apply(profile: { systemPrompt: string; tools: readonly AnyTool[] }): void
  setModel(model: string): void
}): Promise<string> {
  const { store, name } = opts
  const working = 'the agent is working: press Esc to interrupt it, then /agents'
  if (!opts.agents) throw new Error('agent profiles are not available in this session')
  if (opts.busy()) throw new Error(working)
  if (store.getState().agent === name) return `The main session already runs as ${name}.`
  const setup = await opts.agents.setup(name)
  if (opts.busy()) throw new Error(working)
  opts.apply({ systemPrompt: setup.systemPrompt, tools: setup.tools })
  store.dispatch({ type: 'agent/changed', agent: name })
  if (setup.model && setup.model !== store.getState().session.model) opts.setModel(setup.model)
  const text =
    `The main session now runs as the ${name} agent (${setup.tools.length} tools${setup.model ? `, model ${setup.model}` : ''}). ` +
    "Its system prompt and tools are new, so the provider's prompt cache starts over with the next request."
  store.dispatch({ type: 'notice/added', id: `agent-switch-${Date.now().toString(36)}`, level: 'info', text })
  return text
}
