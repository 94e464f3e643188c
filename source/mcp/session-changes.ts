import { type McpServerSettings, mcpServerSchema } from '../config/schema.js'
import type { McpSessionChanges } from '../store/domain.js'
import type { ServerLayer } from './server-specs.js'

/**
 * The user's `/mcp` changes of this session laid over the configured servers: servers added with
 * `/mcp add` as the user's own layer (above every file: no trust needed, they are the user's), those
 * removed left out, those turned off kept listed but not started. Pure.
 */

/** Where a server added with `/mcp add` is configured, as `/mcp` shows it. */
export const SESSION_SOURCE = 'this session'

export interface ChangedServers {
  layers: ServerLayer[]
  /** Servers the user turned off. */
  off: ReadonlySet<string>
  /** Servers the user removed from this session. */
  removed: ReadonlySet<string>
  warnings: string[]
}

export function applyChanges(layers: readonly ServerLayer[], changes: McpSessionChanges): ChangedServers {
  const warnings: string[] = []
  const added: Record<string, McpServerSettings> = {}
  for (const [name, server] of Object.entries(changes.added)) {
    // A session log is data: what it says is checked like a settings entry before anything starts.
    const parsed = mcpServerSchema.safeParse(server)
    if (parsed.success) added[name] = parsed.data
    else
      warnings.push(
        `MCP server "${name}" added in this session is not valid: ${parsed.error.issues[0]?.message}`,
      )
  }
  const own: ServerLayer[] = Object.keys(added).length
    ? [{ source: SESSION_SOURCE, projectBrought: false, servers: added }]
    : []
  return {
    layers: [...layers, ...own],
    off: new Set(changes.disabledServers),
    removed: new Set(changes.removed.filter((name) => !(name in added))),
    warnings,
  }
}

/** Why a tool may not be called now (`tool` is the server's own name for it), or undefined. */
export function disabledReason(changes: McpSessionChanges, server: string, tool: string): string | undefined {
  if (changes.disabledServers.includes(server))
    return `its MCP server "${server}" was disabled by the user in this session`
  if (changes.disabledTools[server]?.includes(tool)) return 'disabled by the user in this session'
  return undefined
}
