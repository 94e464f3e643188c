/**
 * Claude Code's names for tools agent-tui has under another name, as they appear in an agent's `tools:`
 * and a command's `allowed-tools`: mapped, with one line saying so, instead of left out. Pure.
 */

/** Claude Code's tool → agent-tui's. `WebFetch`, `WebSearch` and the others are the same on both. */
const RENAMED: Readonly<Record<string, string>> = {
  LS: 'Glob',
  BashOutput: 'TaskOutput',
  KillShell: 'TaskStop',
  // KillShell's earlier name.
  KillBash: 'TaskStop',
  NotebookRead: 'Read',
  Task: 'Agent',
}

/**
 * agent-tui's name for a tool of an agent's `tools:` list; `tools` are the session's. `MultiEdit` stays
 * itself where the session has that tool, else it is `Edit` (which does the same, one edit per call).
 */
export function agentToolName(name: string, tools: readonly string[]): string {
  if (name === 'MultiEdit') return tools.includes('MultiEdit') ? 'MultiEdit' : 'Edit'
  return RENAMED[name] ?? name
}

/**
 * A permission rule of a command's `allowed-tools` with agent-tui's tool name: `LS(src/**)` is
 * `Glob(src/**)`, `MultiEdit` is `Edit` (whose rules cover MultiEdit too). Unchanged when nothing maps.
 */
export function ruleWithToolName(rule: string): string {
  const m = /^([A-Za-z]+)(\(.*\))?$/s.exec(rule.trim())
  if (!m?.[1]) return rule
  const tool = m[1] === 'MultiEdit' ? 'Edit' : RENAMED[m[1]]
  return tool ? `${tool}${m[2] ?? ''}` : rule
}

/** "Claude Code's LS and Task are Glob and Agent here", for the one-line notice; null when none mapped. */
export function renamedNotice(pairs: ReadonlyArray<readonly [string, string]>): string | null {
  const changed = pairs.filter(([from, to]) => from !== to)
  if (changed.length === 0) return null
  const list = (names: string[]) =>
    names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
  const verb = changed.length === 1 ? 'is' : 'are'
  return `Claude Code's ${list(changed.map(([f]) => f))} ${verb} ${list(changed.map(([, t]) => t))} here`
}
