import type { Store } from '../../store/create-store.js'
import type { AnyTool } from '../../tools/types.js'
import type { AgentListing } from './commands.js'

/** A message the runtime adds to the history at the next step (a background subagent finished…). */
export type { Announcement } from './announcements.js'

/** The main session's agent profiles (`/agents`, `--agent`) and background subagents' transcripts. */
export interface AgentsControl {
  list(current: string): AgentListing
  /** The system prompt and tools to run the main session as `name`; throws a user-facing Error. */
  setup(name: string): { systemPrompt: string; tools: AnyTool[]; model?: string }
  transcript(taskId: string): Store | null
}

/**
 * `/agents NAME`: the main session runs as another agent from the next request on. Refused while a
 * turn runs (its requests must keep one prefix). Returns the notice text it also shows.
 */
export function switchMainAgent(opts: {
  name: string
  store: Store
  agents: AgentsControl | undefined
  busy: boolean
  /** Puts the new prompt and tools in place (the tool definitions are fixed again at the next request). */
  apply(profile: { systemPrompt: string; tools: readonly AnyTool[] }): void
  setModel(model: string): void
}): string {
  const { store, name } = opts
  if (!opts.agents) throw new Error('agent profiles are not available in this session')
  if (opts.busy) throw new Error('the agent is working: press Esc to interrupt it, then /agents')
  if (store.getState().agent === name) return `The main session already runs as ${name}.`
  const setup = opts.agents.setup(name)
  opts.apply({ systemPrompt: setup.systemPrompt, tools: setup.tools })
  store.dispatch({ type: 'agent/changed', agent: name })
  if (setup.model && setup.model !== store.getState().session.model) opts.setModel(setup.model)
  const text =
    `The main session now runs as the ${name} agent (${setup.tools.length} tools${setup.model ? `, model ${setup.model}` : ''}). ` +
    "Its system prompt and tools are new, so the provider's prompt cache starts over with the next request."
  store.dispatch({ type: 'notice/added', id: `agent-switch-${Date.now().toString(36)}`, level: 'info', text })
  return text
}
