import { readConfigText } from '../tools/instruction-file.js'
import { join } from 'node:path'
import type { SettingsSource } from '../config/load.js'
import { type McpServerSettings, mcpServerSchema } from '../config/schema.js'

/**
 * Which MCP servers a session has, from settings files (`mcpServers`) and the repository's `.mcp.json`
 * (Claude Code's format), and which of them may start: the user's own always, the repository's only in a
 * trusted folder (docs/mcp.md#trust). Pure apart from reading `.mcp.json`.
 */

export interface McpServerSpec {
  name: string
  /** Where it is configured, for `/mcp` and messages: `~/.config/agent-tui/settings.json`, `.mcp.json`. */
  source: string
  /** Brought by the repository: starts only once the folder is trusted. */
  projectBrought: boolean
  settings: McpServerSettings
}

export interface ServerLayer {
  source: string
  projectBrought: boolean
  servers: Readonly<Record<string, McpServerSettings>>
}

export interface ResolvedServer {
  spec: McpServerSpec
  /** False for a repository's server in an untrusted folder (listed, not started). */
  enabled: boolean
}

export const MCP_JSON = '.mcp.json'

/**
 * One entry per server name, layers lowest precedence first (a later layer's server of the same name
 * replaces an earlier one). A repository's server that may not start does not displace the user's own
 * server of that name: the user's runs until the folder is trusted.
 */
export function resolveServers(layers: readonly ServerLayer[], trusted: boolean): ResolvedServer[] {
  const byName = new Map<string, ResolvedServer>()
  for (const layer of layers) {
    for (const [name, settings] of Object.entries(layer.servers)) {
      const spec: McpServerSpec = {
        name,
        source: layer.source,
        projectBrought: layer.projectBrought,
        settings,
      }
      const enabled = !layer.projectBrought || trusted
      const current = byName.get(name)
      if (enabled || !current?.enabled) byName.set(name, { spec, enabled })
    }
  }
  return [...byName.values()]
}

/**
 * The settings files' servers as layers. `allowed` are the sources as they apply untrusted (the filter
 * took the repository's `mcpServers` out), `all` as they apply trusted: a server only in `all` is the
 * repository's.
 */
export function settingsLayers(
  allowed: readonly SettingsSource[],
  all: readonly SettingsSource[],
): { low: ServerLayer[]; high: ServerLayer[] } {
  const low: ServerLayer[] = []
  const high: ServerLayer[] = []
  for (const source of all) {
    const servers = source.settings.mcpServers
    if (!servers || Object.keys(servers).length === 0) continue
    const own = allowed.find((s) => s.path === source.path)?.settings.mcpServers ?? {}
    const mine: Record<string, McpServerSettings> = {}
    const brought: Record<string, McpServerSettings> = {}
    for (const [name, server] of Object.entries(servers)) {
      if (own[name] === server) mine[name] = server
      else brought[name] = server
    }
    // The user's file sits below .mcp.json; the project's files above it (Claude Code: local > project > user).
    const target = source.scope === 'user' ? low : high
    if (Object.keys(mine).length) target.push({ source: source.label, projectBrought: false, servers: mine })
    if (Object.keys(brought).length)
      target.push({ source: source.label, projectBrought: true, servers: brought })
  }
  return { low, high }
}

const KNOWN_KEYS = new Set([
  'type',
  'command',
  'args',
  'env',
  'url',
  'headers',
  'startupTimeoutSeconds',
  'toolTimeoutSeconds',
])

/**
 * Reads the workspace's `.mcp.json`. It is another tool's file too, so it is read leniently: keys this
 * client does not know are ignored and an invalid entry is skipped, each with a warning; a missing file
 * is no servers.
 */
export async function readMcpJson(
  workspace: string,
): Promise<{ servers: Record<string, McpServerSettings>; warnings: string[] }> {
  const read = await readConfigText(join(workspace, MCP_JSON))
  if (read.kind === 'missing') return { servers: {}, warnings: [] }
  if (read.kind === 'refused') {
    // A directory: the empty one the Bash sandbox mounts there while a command runs (see sandbox/fence.ts).
    if (read.reason.startsWith('it is a directory')) return { servers: {}, warnings: [] }
    return { servers: {}, warnings: [`${MCP_JSON}: cannot read it: ${read.reason}`] }
  }
  return parseMcpJson(read.text)
}

export function parseMcpJson(text: string): {
  servers: Record<string, McpServerSettings>
  warnings: string[]
} {
  const warnings: string[] = []
  let json: unknown
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (err) {
    return {
      servers: {},
      warnings: [`${MCP_JSON}: invalid JSON (${(err as Error).message}); no servers started from it`],
    }
  }
  const entries = isObject(json) && isObject(json.mcpServers) ? json.mcpServers : undefined
  if (!entries) {
    if (!isObject(json) || json.mcpServers !== undefined)
      warnings.push(`${MCP_JSON}: expected {"mcpServers": {"name": {…}}}; no servers started from it`)
    return { servers: {}, warnings }
  }
  const servers: Record<string, McpServerSettings> = {}
  for (const [name, raw] of Object.entries(entries)) {
    let value = raw
    if (isObject(raw)) {
      const unknown = Object.keys(raw).filter((k) => !KNOWN_KEYS.has(k))
      if (unknown.length) {
        warnings.push(`${MCP_JSON}: server "${name}": ignored ${unknown.map((k) => `"${k}"`).join(', ')}`)
        value = Object.fromEntries(Object.entries(raw).filter(([k]) => KNOWN_KEYS.has(k)))
      }
    }
    const parsed = mcpServerSchema.safeParse(value)
    if (parsed.success) servers[name] = parsed.data
    else {
      const issue = parsed.error.issues[0]
      const where = issue?.path.length ? `.${issue.path.join('.')}` : ''
      warnings.push(`${MCP_JSON}: server "${name}"${where}: ${issue?.message ?? 'invalid'}; not started`)
    }
  }
  return { servers, warnings }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
