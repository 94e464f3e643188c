/** What the store holds of MCP servers: their views for `/mcp` and the user's changes in a session. */

/** An MCP server's state for `/mcp` and the slash-command list (docs/mcp.md). */
export type McpServerStatus =
  | 'connecting'
  | 'connected'
  | 'failed'
  | 'needs_auth'
  | 'disabled-untrusted'
  /** Turned off by the user for this session (`/mcp`): not running, its calls refused. */
  | 'disabled'

export interface McpPromptView {
  /** The slash command, without `/`: `mcp__docs__summarize`. */
  command: string
  name: string
  description?: string
  /** `/mcp__docs__summarize <topic> [length]`. */
  usage: string
}

export interface McpServerView {
  name: string
  /** Where it is configured: a settings file or `.mcp.json`. */
  source: string
  transport: 'stdio' | 'http' | 'sse'
  /** The command line or the URL. */
  target: string
  status: McpServerStatus
  error?: string
  /** Where to sign in, while the status is needs_auth. */
  authUrl?: string
  /** While connecting: the package npm is installing (the first start of an `npx -y` server). */
  installing?: string
  /** The names the model calls its tools by (`mcp__docs__search`). */
  tools: string[]
  /** Those of `tools` the user turned off for this session. */
  disabledTools?: string[]
  /** Added with `/mcp add` in this session (not from a settings file). */
  added?: boolean
  resources: boolean
  prompts: McpPromptView[]
}

/**
 * A server added with `/mcp add` for this session: a command and its arguments (stdio), or a URL (HTTP).
 * Plain data, checked like a settings entry when the MCP client takes it.
 */
export type McpAddedServer = { command: string; args: string[] } | { type: 'http'; url: string }

/**
 * What the user changed about MCP in this session (`/mcp`), replayed on `--continue`: servers and
 * tools turned off (a tool by its server and its own name), servers added, configured servers removed.
 */
export interface McpSessionChanges {
  disabledServers: string[]
  /** `server` → the server's own tool names. */
  disabledTools: Record<string, string[]>
  added: Record<string, McpAddedServer>
  removed: string[]
}

export const NO_MCP_CHANGES: McpSessionChanges = {
  disabledServers: [],
  disabledTools: {},
  added: {},
  removed: [],
}
