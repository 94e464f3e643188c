/**
 * The `env` setting (Claude Code's `env` too): variables set in agent-tui's environment at start, so the
 * commands it starts — Bash, hooks, MCP stdio servers — inherit them. agent-tui's own variables are read
 * before the settings are, so setting them there would change nothing but the children's view: they are
 * skipped and named. Pure.
 */
const OWN = /^(AGENT_TUI_|OPENAI_)/

export function settingsEnv(env: Readonly<Record<string, string>>): {
  apply: Record<string, string>
  skipped: string[]
} {
  const apply: Record<string, string> = {}
  const skipped: string[] = []
  for (const [name, value] of Object.entries(env)) {
    if (OWN.test(name) || name === '' || name.includes('=')) skipped.push(name)
    else apply[name] = value
  }
  return { apply, skipped }
}
