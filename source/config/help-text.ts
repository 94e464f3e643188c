import { OPTIONS } from './flags.js'
import { MCP_SERVE_OPTIONS } from './mcp-serve-args.js'

/** The `--help` text: usage, every option aligned, environment, exit codes. */
export function helpText(): string {
  const label = (o: (typeof OPTIONS)[number]) => {
    const names = o.short ? `-${o.short}, --${o.long}` : `    --${o.long}`
    return o.arg ? `${names} ${o.arg}` : names
  }
  const width = Math.max(...[...OPTIONS, ...MCP_SERVE_OPTIONS].map((o) => label(o).length)) + 2
  const line = (o: (typeof OPTIONS)[number]) => `  ${label(o).padEnd(width)}${o.help}`
  return [
    'agent-tui — a terminal coding agent for any OpenAI-compatible endpoint',
    '',
    'Usage:',
    '  agent-tui [options] [prompt]        full-screen session (the prompt is sent at start)',
    '  agent-tui -p [options] "prompt"     headless: print the result and exit',
    '  agent-tui doctor [--json]           check Node, the endpoint (tool calls too), the sandbox, the configuration',
    '  agent-tui plugin add|list|enable|disable|remove|marketplace …   Claude Code plugins (docs/plugins.md)',
    '  agent-tui mcp serve [options]       agent-tui as a stdio MCP server (agent-tui mcp serve --help)',
    '',
    'Options:',
    ...OPTIONS.map(line),
    '',
    'Options of mcp serve:',
    ...MCP_SERVE_OPTIONS.map(line),
    '',
    'Environment:',
    '  AGENT_TUI_MODEL, OPENAI_BASE_URL, OPENAI_API_KEY, AGENT_TUI_MODE, AGENT_TUI_CUSTOM_HEADERS,',
    '  XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_DATA_HOME',
    '',
    'Settings: $XDG_CONFIG_HOME/agent-tui/settings.json (default ~/.config/agent-tui/settings.json),',
    '  .agent-tui/settings.json, .agent-tui/settings.local.json',
    "A folder's own .agent-tui/settings.json (and .mcp.json, hooks, agents…) may only lower permissions until",
    'the folder is trusted: answer the prompt in the full-screen session (remembered), or pass --trust-project.',
    'With -p and piped stdin, stdin is appended to the prompt.',
    'Exit codes (-p): 0 done, 1 error, 2 bad usage or config, 3 step limit, 130 interrupted.',
  ].join('\n')
}
