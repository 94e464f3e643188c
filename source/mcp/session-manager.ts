import type { SettingsSource } from '../config/load.js'
import { McpManager, type McpManagerOptions } from './manager.js'
import { createOAuthStore } from './oauth-store.js'
import { MCP_JSON, readMcpJson, type ServerLayer, settingsLayers } from './server-specs.js'

/** The manager for a session: servers from the settings files (trusted or not) and `.mcp.json`. */
export function createMcpManager(
  opts: Omit<McpManagerOptions, 'layers' | 'oauth'> & {
    sources(): { allowed: readonly SettingsSource[]; all: readonly SettingsSource[] }
    oauthFile: string
  },
): McpManager {
  return new McpManager({
    ...opts,
    oauth: createOAuthStore(opts.oauthFile),
    async layers() {
      const { allowed, all } = opts.sources()
      const fromSettings = settingsLayers(allowed, all)
      const mcpJson = await readMcpJson(opts.workspace)
      const json: ServerLayer[] = Object.keys(mcpJson.servers).length
        ? [{ source: MCP_JSON, projectBrought: true, servers: mcpJson.servers }]
        : []
      return { layers: [...fromSettings.low, ...json, ...fromSettings.high], warnings: mcpJson.warnings }
    },
  })
}
