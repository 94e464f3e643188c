import type { AnyTool } from '../tools/types.js'
import { type AnnouncedTool, type Announcement, type AnnounceOptions, announce } from './announce.js'
import { type ArgumentCheck, createArgumentChecks } from './argument-check.js'
import { McpCallError, type McpConnection, type McpToolInfo } from './connection.js'
import { createMcpTool, toolDescription, toolParameters } from './mcp-tool.js'
import { exposedToolName, serverKeyBase } from './names.js'

/**
 * The names the model calls MCP tools by, and the way back to the server. A name, once given to a
 * server's tool, stays that tool's for the session (so a server that goes down and comes back keeps its
 * names), and a tool whose server is down is still found: its calls fail with a clear envelope.
 */

export interface ServerState {
  name: string
  /** Absent for a server that may not start (the repository's, untrusted). */
  conn: McpConnection | undefined
  enabled: boolean
  /** Turned off by the user for this session (its calls are refused). */
  off?: boolean
  /** Tools (the server's own names) the user turned off for this session. */
  offTools?: ReadonlySet<string>
}

interface Route {
  server: string
  info: McpToolInfo
}

export class ToolRoutes {
  private readonly keys = new Map<string, string>()
  private readonly routes = new Map<string, Route>()
  private readonly cache = new Map<string, { key: string; tool: AnyTool }>()
  private readonly servers: () => readonly ServerState[]
  private readonly checks: (schema: Record<string, unknown>) => ArgumentCheck

  constructor(servers: () => readonly ServerState[]) {
    this.servers = servers
    this.checks = createArgumentChecks()
  }

  /** The sanitized, unique key of a server in tool and command names. */
  keyOf(server: string): string {
    const known = this.keys.get(server)
    if (known) return known
    const base = serverKeyBase(server)
    const used = new Set(this.keys.values())
    let key = base
    for (let n = 2; used.has(key); n++) key = `${base}_${n}`
    this.keys.set(server, key)
    return key
  }

  /** The exposed name of a server's tool (first come, first named); refreshes what is known of it. */
  nameOf(server: string, info: McpToolInfo): string {
    for (const [name, route] of this.routes) {
      if (route.server === server && route.info.name === info.name) {
        route.info = info
        return name
      }
    }
    const name = exposedToolName(this.keyOf(server), info.name, new Set(this.routes.keys()))
    this.routes.set(name, { server, info })
    return name
  }

  /** The server and the server's own name of an exposed tool. */
  route(exposed: string): { server: string; tool: string } | undefined {
    const route = this.routes.get(exposed)
    return route ? { server: route.server, tool: route.info.name } : undefined
  }

  /** Tools of the connected servers, by server name then tool name; none the user turned off. */
  available(): Array<{ exposed: string; server: string; info: McpToolInfo }> {
    return [...this.servers()]
      .filter((s) => s.conn?.status === 'connected' && !s.off)
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((s) =>
        [...(s.conn?.tools ?? [])]
          .filter((t) => !s.offTools?.has(t.name))
          .sort((a, b) => a.name.localeCompare(b.name))
          .map((info) => ({ exposed: this.nameOf(s.name, info), server: s.name, info })),
      )
  }

  tools(): AnyTool[] {
    return this.available().map(({ exposed }) => this.tool(exposed) as AnyTool)
  }

  tool(exposed: string): AnyTool | undefined {
    const route = this.routes.get(exposed)
    if (!route) return undefined
    const { server, info } = route
    const key = JSON.stringify([info.description, info.inputSchema, info.readOnly])
    const cached = this.cache.get(exposed)
    if (cached?.key === key) return cached.tool
    const tool = createMcpTool(
      {
        exposed,
        server,
        info,
        call: (args, opts) => this.call(server, info.name, args, opts),
      },
      this.checks(info.inputSchema),
    )
    this.cache.set(exposed, { key, tool })
    return tool
  }

  /** What the model would be told about the tools available now (name → signature). */
  offeredNow(): Map<string, string> {
    return announce(new Map(), this.announced(), [])?.offered ?? new Map()
  }

  announce(offered: ReadonlyMap<string, string>, opts: AnnounceOptions = {}): Announcement | null {
    const available = this.announced()
    const live = new Set(available.map((t) => t.name))
    const states = new Map(this.servers().map((s) => [s.name, s]))
    const disabled = new Set<string>()
    const gone = [...this.routes]
      .filter(([name, route]) => {
        const state = states.get(route.server)
        if (state?.off || state?.offTools?.has(route.info.name)) disabled.add(name)
        if (!state?.enabled || state.off) return true
        return state.conn?.status === 'connected' && !live.has(name)
      })
      .map(([name]) => name)
    return announce(offered, available, gone, opts, disabled)
  }

  private announced(): AnnouncedTool[] {
    return this.available().map(({ exposed, server, info }) => ({
      name: exposed,
      server,
      description: toolDescription(server, info),
      parameters: toolParameters(info.inputSchema),
    }))
  }

  private async call(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    opts: { signal: AbortSignal; onProgress?: (text: string) => void },
  ) {
    const state = this.servers().find((s) => s.name === server)
    // The pipeline refuses these before asking anyone (session-tools' lookup); this holds for any other path.
    if (state?.off || state?.offTools?.has(tool)) {
      throw new McpCallError(
        'permission',
        state.off
          ? `MCP server "${server}" was disabled by the user in this session`
          : `MCP tool "${tool}" of server "${server}" was disabled by the user in this session`,
        'do not call it; the user can turn it on again with /mcp',
      )
    }
    if (!state?.enabled || !state.conn) {
      throw new McpCallError(
        'not_found',
        `MCP server "${server}" is not part of this session any more`,
        'do not call its tools',
      )
    }
    const conn = state.conn
    if (conn.status === 'connected' && !conn.tools.some((t) => t.name === tool)) {
      throw new McpCallError('not_found', `MCP server "${server}" no longer offers the tool "${tool}"`)
    }
    return conn.callTool(tool, args, opts)
  }
}
