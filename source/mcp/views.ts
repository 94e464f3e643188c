import type { McpServerView } from '../store/domain.js'
import type { McpConnection, McpToolInfo } from './connection.js'
import { promptCommand, promptUsage } from './prompts.js'
import type { McpServerSpec } from './server-specs.js'
import { SESSION_SOURCE } from './session-changes.js'
import { describeTarget, isStdio } from './transports.js'

/** A server as the store (and `/mcp`, and the slash-command list) sees it. */
export function serverView(
  spec: McpServerSpec,
  conn: McpConnection | undefined,
  key: string,
  nameOf: (tool: McpToolInfo) => string,
  user: { off: boolean; offTools: readonly string[] } = { off: false, offTools: [] },
): McpServerView {
  const settings = spec.settings
  return {
    name: spec.name,
    source: spec.source,
    transport: isStdio(settings) ? 'stdio' : settings.type === 'sse' ? 'sse' : 'http',
    target: describeTarget(settings),
    status: user.off ? 'disabled' : (conn?.status ?? 'disabled-untrusted'),
    ...(conn?.error ? { error: conn.error } : {}),
    ...(conn?.authUrl && conn.status === 'needs_auth' ? { authUrl: conn.authUrl } : {}),
    ...(conn?.installing && conn.status === 'connecting' ? { installing: conn.installing } : {}),
    tools: (conn?.tools ?? []).map(nameOf).sort(),
    disabledTools: (conn?.tools ?? [])
      .filter((t) => user.offTools.includes(t.name))
      .map(nameOf)
      .sort(),
    ...(spec.source === SESSION_SOURCE ? { added: true } : {}),
    resources: conn?.hasResources ?? false,
    prompts: (conn?.prompts ?? []).map((p) => {
      const command = promptCommand(key, p.name)
      return {
        command,
        name: p.name,
        ...(p.description ? { description: p.description } : {}),
        usage: promptUsage(command, p),
      }
    }),
  }
}
