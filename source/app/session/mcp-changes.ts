import type { SessionServices } from '../../agent/runtime/commands.js'
import type { AppPaths } from '../../config/app-paths.js'
import type { LazyMcp } from '../../mcp/lazy.js'
import type { Store } from '../../store/create-store.js'
import type { McpServerView } from '../../store/domain.js'

/**
 * `/mcp`'s changes for this session: each is a persisted store action (so `--continue` brings it
 * back), then the MCP client applies it — a server turned off is stopped with its process group, one
 * added starts at once. Nothing here needs a restart.
 */

type McpChangeCommands = Pick<SessionServices, 'setMcpEnabled' | 'addMcpServer' | 'removeMcpServer'>

/** Letters, digits, `.`, `_` and `-`: a name that reads the same in `/mcp`, a tool name and settings. */
const SERVER_NAME = /^[A-Za-z0-9][\w.-]{0,63}$/

export function mcpChangeCommands(deps: {
  store: Store
  mcp: LazyMcp
  paths: Pick<AppPaths, 'configDir' | 'userSettingsFile'>
}): McpChangeCommands {
  const { store, mcp } = deps
  const view = (name: string): McpServerView => {
    const found = store.getState().mcp.servers.find((s) => s.name === name)
    if (!found) throw new Error(`no MCP server "${name}" in this session — /mcp lists them`)
    return found
  }
  /** The server's own name of a tool given as the model calls it (`mcp__t__echo`) or as the server does. */
  const ownTool = (server: McpServerView, tool: string): string => {
    for (const exposed of server.tools) {
      const route = mcp.toolOf(exposed)
      if (exposed === tool || route?.tool === tool) return route?.tool ?? tool
    }
    const why = server.status === 'disabled' ? '; turn the server on first' : ''
    throw new Error(`MCP server "${server.name}" has no tool "${tool}" now${why}`)
  }
  return {
    async setMcpEnabled(name, enabled, tool) {
      const server = view(name)
      const own = tool === undefined ? undefined : ownTool(server, tool)
      store.dispatch({ type: 'mcp/toggled', server: name, ...(own ? { tool: own } : {}), enabled })
      await mcp.refresh()
      if (own) return `MCP tool ${own} of "${name}" turned ${enabled ? 'on' : 'off'} for this session`
      return enabled
        ? `MCP server "${name}" turned on for this session: starting it`
        : `MCP server "${name}" turned off for this session: stopped`
    },
    async addMcpServer(name, server, save) {
      if (!SERVER_NAME.test(name))
        throw new Error(`"${name}" is not a server name: use letters, digits, ".", "_" and "-"`)
      if (store.getState().mcp.servers.some((s) => s.name === name))
        throw new Error(
          `there is an MCP server "${name}" already: /mcp remove ${name} first, or pick another name`,
        )
      let savedTo: string | undefined
      if (save) {
        const { saveMcpServer } = await import('../../config/save-mcp-server.js')
        savedTo = await saveMcpServer(deps.paths, name, server)
      }
      store.dispatch({ type: 'mcp/added', name, server, ...(savedTo ? { saved: true } : {}) })
      await mcp.refresh()
      return savedTo
        ? `MCP server "${name}" added and saved to ${savedTo}: starting it`
        : `MCP server "${name}" added for this session (/mcp add --save keeps it): starting it`
    },
    async removeMcpServer(name) {
      const server = view(name)
      store.dispatch({ type: 'mcp/removed', name })
      await mcp.refresh()
      return server.added
        ? `MCP server "${name}" removed`
        : `MCP server "${name}" removed from this session (it stays in ${server.source} for new sessions)`
    },
  }
}
