/**
 * Agent profiles: who an agent is (its instructions), which tools it gets and how long it may run. The
 * built-in ones are here; custom ones come from Markdown files (agent-files.ts). The main session runs
 * as one profile (`build` unless `--agent`/`/agents` picks another); subagents run as any but `build`.
 */

/** `plugin:NAME`: an enabled plugin's agent (read as the user's files are). */
export type AgentSource = 'built-in' | 'user' | 'project' | `plugin:${string}`

export interface AgentProfile {
  name: string
  /** One line for the Agent tool's list and `/agents`: when to use it. */
  description: string
  source: AgentSource
  /** The file a custom agent came from, as shown to the user. */
  file?: string
  /**
   * The agent's own instructions. A custom agent's are its file's body, read from the file when the agent
   * first runs (a collection's bodies are not held in memory); rejects with a message naming the file.
   */
  instructions(): Promise<string>
  /** Tool names it gets, in any order; null: every tool but Agent. */
  tools: readonly string[] | null
  /**
   * Tool names withheld from what `tools` gives (Claude Code's `disallowedTools`): it only narrows. An
   * `mcp__…` entry withholds the session's MCP servers altogether (their tools are not known up front).
   */
  disallowedTools?: readonly string[]
  /** A model id of the same endpoint; undefined: the caller's model. */
  model?: string
  maxTurns?: number
  /** Edits, settings and commands that are not read-only are refused in the executor, whatever the mode. */
  readOnly: boolean
  /** The main session's own profile: never a subagent type. */
  mainOnly?: boolean
}

export const MAIN_AGENT = 'build'
export const DEFAULT_SUBAGENT = 'general-purpose'

/** What explore and plan may use: looking, never changing (Bash is held to read-only commands). */
export const READ_ONLY_TOOLS: readonly string[] = [
  'Bash',
  'Read',
  'Glob',
  'Grep',
  'WebFetch',
  'WebSearch',
  'CodeSearch',
]

/** Tools a subagent never gets: it has no todo pane of its own, and plan approval is the user's session's. */
const NEVER_IN_SUBAGENTS = new Set(['ExitPlanMode'])

const FINAL_ANSWER = `Your final message is your answer: it goes back to the agent that gave you the task, which sees nothing else of your work — not your tool calls, not their output. Make it complete and self-contained: what you found or did, with file paths (and line numbers where they help), and anything left open. The user does not read your messages directly.`

const GENERAL_PURPOSE = `You are a general-purpose agent: another agent has handed you one self-contained task. Work on it with the tools you have, the way a careful engineer would: look before you change anything, keep changes focused, check your work when that is cheap.

${FINAL_ANSWER}`

const EXPLORE = `You are an explore agent: a fast, read-only searcher. Another agent asked you a question about this codebase (or the web); find the answer and report it. Search broadly first (Glob, Grep), then read what matters. Run several searches in one step when they do not depend on each other.

You cannot change anything: there is no Write or Edit, and Bash runs only read-only commands (ls, git log, git diff, cat…); anything else is refused.

${FINAL_ANSWER} Prefer facts and locations over prose; quote code only where the caller needs it.`

const PLAN = `You are a planning agent: read-only. Another agent asked you for a plan. Study the code that matters (Glob, Grep, Read; Bash for read-only commands such as git log), then write an implementation plan: the goal, the files to change and what changes in each, the order of the steps, how to test it, and the risks or open questions.

You cannot change anything: there is no Write or Edit, and Bash runs only read-only commands; anything else is refused.

${FINAL_ANSWER} The plan is your answer.`

const fixed = (text: string) => () => Promise.resolve(text)

export const BUILT_IN_AGENTS: readonly AgentProfile[] = [
  {
    name: MAIN_AGENT,
    description: 'The default agent of the main session: every tool, subagents included.',
    source: 'built-in',
    instructions: fixed(''),
    tools: null,
    readOnly: false,
    mainOnly: true,
  },
  {
    name: DEFAULT_SUBAGENT,
    description:
      'A capable agent for a self-contained multi-step task: research, edits, commands (every tool but Agent).',
    source: 'built-in',
    instructions: fixed(GENERAL_PURPOSE),
    tools: null,
    readOnly: false,
  },
  {
    name: 'explore',
    description:
      'A fast read-only searcher: finds files, code and facts across the codebase and answers a question about them.',
    source: 'built-in',
    instructions: fixed(EXPLORE),
    tools: READ_ONLY_TOOLS,
    readOnly: true,
  },
  {
    name: 'plan',
    description:
      'A read-only planner: studies the code and returns a step-by-step implementation plan. The only type plan mode allows.',
    source: 'built-in',
    instructions: fixed(PLAN),
    tools: READ_ONLY_TOOLS,
    readOnly: true,
  },
]

/** Names of the tools a profile gets, in the catalog's order. `nesting`: whether Agent may stay. */
export function toolNamesFor(
  profile: Pick<AgentProfile, 'tools' | 'mainOnly' | 'disallowedTools'>,
  catalog: readonly string[],
  opts: { subagent: boolean; nesting: boolean },
): string[] {
  const wanted = profile.tools === null ? null : new Set(profile.tools)
  const denied = new Set(profile.disallowedTools ?? [])
  return catalog.filter((name) => {
    if (opts.subagent && NEVER_IN_SUBAGENTS.has(name)) return false
    if (denied.has(name) || (name.startsWith('mcp__') && withholdsMcp(profile))) return false
    if (name === 'Agent') {
      // `build` (the main session) always delegates; other profiles only when they list Agent.
      if (profile.mainOnly && wanted === null) return true
      return opts.nesting && wanted?.has('Agent') === true
    }
    return wanted === null || wanted.has(name)
  })
}

/** Whether a profile lists Agent: its subagents may start one level of their own. */
export function allowsNesting(profile: Pick<AgentProfile, 'tools' | 'disallowedTools'>): boolean {
  return profile.tools?.includes('Agent') === true && !profile.disallowedTools?.includes('Agent')
}

/** Whether `disallowedTools` names an MCP tool or server: the agent then gets no MCP server. */
export function withholdsMcp(profile: Pick<AgentProfile, 'disallowedTools'>): boolean {
  return profile.disallowedTools?.some((name) => name.startsWith('mcp__')) === true
}
