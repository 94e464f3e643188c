import { access } from 'node:fs/promises'
import { join } from 'node:path'
import type { SettingsSource } from '../config/load.js'
import type { McpServerView } from '../store/domain.js'
import type { AnyTool, McpResourceSource } from '../tools/types.js'
import type { AnnounceOptions } from './announce.js'
import type { McpManager, McpManagerOptions } from './manager.js'
import { MCP_JSON } from './server-specs.js'

/**
 * The session's handle on its MCP servers. The client (this module's siblings and the SDK) is loaded
 * only when `start()` is called — after the first frame in the TUI — so nothing about MCP is on the
 * way to it, and only when a server is configured: no settings file names one and there is no
 * `.mcp.json` (loading the client for none cost ~0.5-1 MB of idle RSS). Until then the session has no
 * MCP tools and no servers.
 */

export interface LazyMcpOptions extends Omit<McpManagerOptions, 'layers' | 'oauth'> {
  /** The settings files as they apply untrusted (`allowed`) and trusted (`all`). */
  sources(): { allowed: readonly SettingsSource[]; all: readonly SettingsSource[] }
  /** What `sources()` waits for before MCP is first asked about (a user file read then: `~/.claude.json`). */
  ready?: () => Promise<void>
  /** Where OAuth tokens are kept (mode 0600). */
  oauthFile: string
}

export interface LazyMcp extends McpResourceSource {
  start(): Promise<void>
  settle(timeoutMs: number, signal?: AbortSignal): Promise<void>
  connecting(): string[]
  refreshed(): Promise<void>
  hasServers(): boolean
  tools(): AnyTool[]
  tool(name: string): AnyTool | undefined
  offeredNow(): Map<string, string>
  announce(offered: ReadonlyMap<string, string>, opts?: AnnounceOptions): ReturnType<McpManager['announce']>
  serverNames(): string[]
  readMention(server: string, uri: string, signal: AbortSignal): Promise<string>
  expandPrompt: McpManager['expandPrompt']
  reconnect(name: string): void
  authenticate(name: string): void
  /** Why the model may not call this MCP tool (turned off in `/mcp`), if so. */
  disabled(name: string): string | undefined
  /** The server of an exposed tool name and the server's own name for it. */
  toolOf(name: string): { server: string; tool: string } | undefined
  /** Applies the session's `/mcp` changes (loading the client for a server added to a session without any). */
  refresh(): Promise<void>
  views(): McpServerView[]
  close(): Promise<void>
  killAllSync(): void
}

export function createLazyMcp(opts: LazyMcpOptions): LazyMcp {
  let manager: McpManager | undefined
  let loading: Promise<McpManager> | undefined
  let closed = false
  let configured: Promise<boolean> | undefined
  let stopWatchingTrust: (() => void) | undefined
  const load = () => {
    loading ??= import('./session-manager.js').then(({ createMcpManager }) => {
      manager = createMcpManager(opts)
      return manager
    })
    return loading
  }
  /** Loaded already, or a server to load it for (read once, and again when the folder's trust changes). */
  const wanted = async () => {
    if (loading) return true
    configured ??= (opts.ready?.() ?? Promise.resolve()).then(() => anyServerConfigured(opts))
    return configured
  }
  const start = async (): Promise<void> => {
    if (closed) return
    if (await wanted()) {
      stopWatchingTrust?.()
      await (await load()).start()
      return
    }
    // The manager would read `.mcp.json` again once the folder is trusted: so does this.
    stopWatchingTrust ??= opts.subscribeTrust?.(() => {
      configured = undefined
      void start().catch(() => undefined)
    })
  }
  const notLoaded = () => new Error('MCP servers have not started yet')
  return {
    start,
    async settle(timeoutMs, signal) {
      if (!closed && (await wanted())) await (await load()).settle(timeoutMs, signal)
    },
    connecting: () => manager?.connecting() ?? [],
    refreshed: async () => manager?.refreshed(),
    hasServers: () => manager?.hasServers() ?? false,
    tools: () => manager?.tools() ?? [],
    tool: (name) => manager?.tool(name),
    offeredNow: () => manager?.offeredNow() ?? new Map(),
    announce: (offered, announceOpts) => manager?.announce(offered, announceOpts) ?? null,
    serverNames: () => manager?.serverNames() ?? [],
    servers: () => manager?.servers() ?? [],
    async listResources(server, signal) {
      return manager ? manager.listResources(server, signal) : []
    },
    async readResource(server, uri, signal) {
      if (!manager) throw notLoaded()
      return manager.readResource(server, uri, signal)
    },
    async readMention(server, uri, signal) {
      if (!manager) throw notLoaded()
      return manager.readMention(server, uri, signal)
    },
    async expandPrompt(command, args, vision, signal) {
      if (!manager) throw notLoaded()
      return manager.expandPrompt(command, args, vision, signal)
    },
    reconnect: (name) => manager?.reconnect(name),
    disabled: (name) => manager?.disabled(name),
    toolOf: (name) => manager?.toolOf(name),
    async refresh() {
      if (closed) return
      // A server added with `/mcp add` may be the session's first: ask again whether one is configured.
      if (!loading) configured = undefined
      if (await wanted()) {
        stopWatchingTrust?.()
        await (await load()).refresh()
      }
    },
    authenticate: (name) => manager?.authenticate(name),
    views: () => manager?.views() ?? [],
    async close() {
      closed = true
      stopWatchingTrust?.()
      // A start under way finishes first, so no server it launches is left behind.
      if (loading) await (await loading).close()
    },
    killAllSync: () => manager?.killAllSync(),
  }
}

/** Whether a settings file (as it applies trusted) names an MCP server, or the workspace has a `.mcp.json`. */
async function anyServerConfigured(opts: LazyMcpOptions): Promise<boolean> {
  if (Object.keys(opts.changes?.().added ?? {}).length > 0) return true
  const named = opts.sources().all.some((source) => Object.keys(source.settings.mcpServers ?? {}).length > 0)
  if (named) return true
  try {
    await access(join(opts.workspace, MCP_JSON))
    return true
  } catch {
    return false
  }
}
