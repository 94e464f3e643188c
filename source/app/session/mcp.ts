import { join } from 'node:path'
import { createLazyMcp, type LazyMcp } from '../../mcp/lazy.js'
import type { StdioVet } from '../../mcp/transports.js'
import type { SettingsSource } from '../../config/load.js'
import type { ProcessGroupTracker } from '../../tasks/process-groups.js'
import type { SessionOptions } from './types.js'
import type { McpSessionChanges } from '../../store/domain.js'
import { openBrowser } from '../open-browser.js'

declare const AGENT_TUI_VERSION: string

/** Defaults of the `mcp` settings (seconds). */
export const MCP_STARTUP_TIMEOUT_SECONDS = 30
export const MCP_TOOL_TIMEOUT_SECONDS = 300

/** The session's MCP servers: the user's always, the repository's (`.mcp.json`, project settings) once trusted. */
export function createSessionMcp(
  opts: SessionOptions,
  deps: {
    processes: ProcessGroupTracker
    notice(level: 'info' | 'warn' | 'error', text: string): void
    publish: Parameters<typeof createLazyMcp>[0]['publish']
    /** Asked before a stdio server starts (see source/app/session/provenance.ts). */
    vet?: StdioVet
    /** `~/.claude.json`'s servers (the user's, no trust needed), read when MCP is first wanted. */
    userState?: { read(): Promise<unknown>; now(): SettingsSource | null }
    /** The enabled plugins' servers, as the user's own. */
    pluginSources?: readonly SettingsSource[]
    /** The user's `/mcp` changes of this session. */
    changes?: () => McpSessionChanges
  },
): LazyMcp {
  const { config, workspace } = opts
  const trust = opts.projectTrust?.trust
  const ownSources = [
    {
      scope: 'user' as const,
      path: 'settings',
      label: 'settings',
      exists: true,
      settings: { mcpServers: config.settings.mcpServers ?? {} },
    },
  ]
  const settings = config.settings.mcp
  return createLazyMcp({
    workspace,
    env: process.env,
    version: typeof AGENT_TUI_VERSION === 'string' ? AGENT_TUI_VERSION : 'dev',
    sources: () => {
      const state = deps.userState?.now()
      // The user's own, no trust needed: ~/.claude.json's servers (lowest), the plugins' servers.
      const first = [...(state ? [state] : []), ...(deps.pluginSources ?? [])]
      return trust
        ? {
            allowed: [...first, ...trust.settings(false).loaded.sources],
            all: [...first, ...trust.settings(true).loaded.sources],
          }
        : { allowed: [...first, ...ownSources], all: [...first, ...ownSources] }
    },
    ...(deps.userState ? { ready: async () => void (await deps.userState?.read()) } : {}),
    trusted: () => trust?.isTrusted() ?? false,
    ...(trust ? { subscribeTrust: (listener: () => void) => trust.subscribe(() => listener()) } : {}),
    oauthFile: join(opts.paths.stateDir, 'mcp-oauth.json'),
    startupTimeoutMs: (settings?.startupTimeoutSeconds ?? MCP_STARTUP_TIMEOUT_SECONDS) * 1000,
    toolTimeoutMs: (settings?.toolTimeoutSeconds ?? MCP_TOOL_TIMEOUT_SECONDS) * 1000,
    interactive: opts.interactive,
    publish: deps.publish,
    notice: deps.notice,
    processes: trackGroups(deps.processes, workspace),
    ...(deps.vet ? { vet: deps.vet } : {}),
    ...(deps.changes ? { changes: deps.changes } : {}),
    ...(opts.interactive ? { openBrowser } : {}),
  })
}

/** MCP stdio servers are tracked like background jobs: killed on every exit path, reaped after a crash. */
function trackGroups(tracker: ProcessGroupTracker, cwd: string) {
  const releases = new Map<number, () => void>()
  return {
    add(pid: number, command: string) {
      releases.set(pid, tracker.track({ pid, command, cwd, kind: 'background' }))
    },
    remove(pid: number) {
      releases.get(pid)?.()
      releases.delete(pid)
    },
  }
}
