import type { Action } from './actions.js'
import type { McpSessionChanges } from './domain.js'

/**
 * The user's MCP changes of this session (`/mcp`: servers and tools off or on, servers added or
 * removed), kept as plain lists so a resumed session's replay rebuilds them. Pure.
 */
export function reduceMcpChanges(changes: McpSessionChanges, action: Action): McpSessionChanges {
  switch (action.type) {
    case 'mcp/toggled': {
      const { server, tool, enabled } = action
      if (tool === undefined) {
        const off = changes.disabledServers.includes(server)
        if (off === !enabled) return changes
        return {
          ...changes,
          disabledServers: enabled
            ? changes.disabledServers.filter((s) => s !== server)
            : [...changes.disabledServers, server],
        }
      }
      const tools = changes.disabledTools[server] ?? []
      if (tools.includes(tool) === !enabled) return changes
      const next = enabled ? tools.filter((t) => t !== tool) : [...tools, tool]
      const { [server]: _, ...others } = changes.disabledTools
      return { ...changes, disabledTools: next.length ? { ...others, [server]: next } : others }
    }
    case 'mcp/added': {
      const { [action.name]: _, ...tools } = changes.disabledTools
      return {
        ...changes,
        added: { ...changes.added, [action.name]: action.server },
        removed: changes.removed.filter((n) => n !== action.name),
        disabledServers: changes.disabledServers.filter((n) => n !== action.name),
        disabledTools: tools,
      }
    }
    case 'mcp/removed': {
      const { [action.name]: _, ...added } = changes.added
      const { [action.name]: __, ...tools } = changes.disabledTools
      return {
        added,
        removed: changes.removed.includes(action.name) ? changes.removed : [...changes.removed, action.name],
        disabledServers: changes.disabledServers.filter((n) => n !== action.name),
        disabledTools: tools,
      }
    }
    default:
      return changes
  }
}
