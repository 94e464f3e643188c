import { McpConnection } from './connection.js'
import type { OAuthStore } from './oauth-store.js'
import type { McpServerSpec } from './server-specs.js'
import { describeTarget, type StdioVet } from './transports.js'

/** What every server's connection shares. */
export interface ConnectionDefaults {
  workspace: string
  env: Readonly<Record<string, string | undefined>>
  version: string
  oauth: OAuthStore
  startupTimeoutMs: number
  toolTimeoutMs: number
  /** Process groups of stdio servers, for the pid registry (orphans of a crash are reaped next start). */
  processes?: { add(pid: number, command: string): void; remove(pid: number): void }
  vet?: StdioVet
}

/** One server's connection with the session's limits (its own where it sets them) and pid tracking. */
export function connectionFor(
  spec: McpServerSpec,
  opts: ConnectionDefaults,
  onChange: () => void,
): McpConnection {
  const seconds = (value: number | undefined, ms: number) => (value === undefined ? ms : value * 1000)
  const { processes, vet } = opts
  const target = describeTarget(spec.settings)
  return new McpConnection({
    spec,
    workspace: opts.workspace,
    env: opts.env,
    oauth: opts.oauth,
    ...(vet ? { vet } : {}),
    startupTimeoutMs: seconds(spec.settings.startupTimeoutSeconds, opts.startupTimeoutMs),
    toolTimeoutMs: seconds(spec.settings.toolTimeoutSeconds, opts.toolTimeoutMs),
    version: opts.version,
    onChange,
    ...(processes
      ? {
          onSpawn: (pid: number) => processes.add(pid, `MCP server ${spec.name}: ${target}`),
          onGone: (pid: number) => processes.remove(pid),
        }
      : {}),
  })
}
