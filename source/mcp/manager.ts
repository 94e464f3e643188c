import {
  type McpServerStatus,
  type McpServerView,
  type McpSessionChanges,
  NO_MCP_CHANGES,
} from '../store/domain.js'
import { type AnyTool, type McpResourceSource, ToolError } from '../tools/types.js'
import type { Announcement, AnnounceOptions } from './announce.js'
import type { McpConnection } from './connection.js'
import { formatResource } from './content.js'
import { expandServerPrompt, listServerResources, toToolError } from './server-queries.js'
import { ToolRoutes } from './routes.js'
import { type McpServerSpec, resolveServers, type ServerLayer } from './server-specs.js'
import { applyChanges, disabledReason } from './session-changes.js'
import { type ConnectionDefaults, connectionFor } from './server-connection.js'
import { isStdio } from './transports.js'
import { serverView } from './views.js'

/**
 * All MCP servers of a session: starts them in the background (the repository's only in a trusted
 * folder, and live when the user trusts it), routes `mcp__server__tool` calls, lists resources and
 * prompts, announces tools that appear late, publishes each server's status for `/mcp`, and stops every
 * server (and its process group) when the session ends.
 */

export interface McpManagerOptions extends ConnectionDefaults {
  /** The servers' layers (settings files, `.mcp.json`), read again when trust changes. */
  layers(): Promise<{ layers: ServerLayer[]; warnings: string[] }>
  trusted(): boolean
  subscribeTrust?(listener: () => void): () => void
  /** A person can sign in (the TUI): a server asking for OAuth starts the browser step at once. */
  interactive: boolean
  publish(servers: McpServerView[]): void
  notice(level: 'info' | 'warn' | 'error', text: string): void
  /** Opens a URL in the user's browser when asked from `/mcp` (absent: the URL is only shown). */
  openBrowser?(url: string): void
  /** What the user changed in this session with `/mcp` (the store's, replayed on `--continue`). */
  changes?(): McpSessionChanges
}

interface Entry {
  spec: McpServerSpec
  enabled: boolean
  /** Turned off by the user for this session: no connection, calls refused. */
  off: boolean
  conn: McpConnection | undefined
  /** The browser step was started automatically once already. */
  autoAuth: boolean
  /** Started at the session's start (its connecting is no news) rather than later (trust, a change). */
  initial: boolean
}

export class McpManager implements McpResourceSource {
  private readonly opts: McpManagerOptions
  private readonly entries = new Map<string, Entry>()
  private readonly routes = new ToolRoutes(() =>
    [...this.entries.values()].map((e) => ({
      name: e.spec.name,
      conn: e.conn,
      enabled: e.enabled,
      off: e.off,
      offTools: new Set(this.changes().disabledTools[e.spec.name] ?? []),
    })),
  )
  private readonly changes = (): McpSessionChanges => this.opts.changes?.() ?? NO_MCP_CHANGES
  private readonly statuses = new Map<string, McpServerStatus>()
  private readonly warned = new Set<string>()
  private readonly waiters = new Set<() => void>()
  private started: Promise<void> | undefined
  private queue: Promise<void> = Promise.resolve()
  private unsubscribe: (() => void) | undefined
  private closed = false
  private applied = false

  constructor(opts: McpManagerOptions) {
    this.opts = opts
  }

  /** Reads the configuration and starts the servers in the background; resolves once they are started. */
  start(): Promise<void> {
    if (!this.started) {
      this.started = this.reload()
      this.unsubscribe = this.opts.subscribeTrust?.(() => void this.reload())
    }
    return this.started
  }

  /**
   * Any server that runs or may run in this session (a repository's can start when the user trusts the
   * folder, in the TUI): the session then offers the MCP resource tools.
   */
  hasServers(): boolean {
    return [...this.entries.values()].some((e) => e.enabled || this.opts.interactive)
  }

  /**
   * Waits until no server is still starting, at most `timeoutMs` (or until `signal` aborts). For the
   * first request: tools of servers that are up by then go into the definitions.
   */
  async settle(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + timeoutMs
    const expired = () => Date.now() >= deadline || signal?.aborted === true || this.closed
    const wait = (ms: number) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer)
          this.waiters.delete(done)
          signal?.removeEventListener('abort', done)
          resolve()
        }
        const timer = setTimeout(done, Math.max(0, ms))
        this.waiters.add(done)
        signal?.addEventListener('abort', done, { once: true })
      })
    const started = this.start()
    while (!expired()) {
      const settled = await Promise.race([
        started.then(() => true),
        wait(deadline - Date.now()).then(() => false),
      ])
      if (settled) break
    }
    while (!expired() && this.connecting().length > 0) await wait(deadline - Date.now())
  }

  /** Waits (at most `timeoutMs`) for tool-list refreshes that servers asked for, so announcements are current. */
  async refreshed(timeoutMs = 2000): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.all([...this.entries.values()].map((e) => e.conn?.refreshed())),
      new Promise((resolve) => {
        timer = setTimeout(resolve, timeoutMs)
      }),
    ])
    clearTimeout(timer)
  }

  /** Names of the servers still starting. */
  connecting(): string[] {
    return [...this.entries.values()].filter((e) => e.conn?.status === 'connecting').map((e) => e.spec.name)
  }

  /** The tools of the connected servers, by server name then tool name (stable across runs). */
  tools(): AnyTool[] {
    return this.routes.tools()
  }

  /** The server of an exposed tool and the server's own name for it. */
  toolOf(exposed: string): { server: string; tool: string } | undefined {
    return this.routes.route(exposed)
  }

  /** Why the model may not call this MCP tool now (the user turned it or its server off), if so. */
  disabled(exposed: string): string | undefined {
    const route = this.routes.route(exposed)
    return route && disabledReason(this.changes(), route.server, route.tool)
  }

  /** Applies the session's `/mcp` changes now (servers stopped, started, added, removed). */
  refresh(): Promise<void> {
    return this.started ? this.reload() : this.start()
  }

  /** A tool by the name the model calls it: also tools of servers that are down (their calls fail clearly). */
  tool(exposed: string): AnyTool | undefined {
    return this.routes.tool(exposed)
  }

  /** The announcement for tools the model has not been told about (or null), given what it was told. */
  announce(offered: ReadonlyMap<string, string>, opts?: AnnounceOptions): Announcement | null {
    return this.routes.announce(offered, opts)
  }

  /** What the model is told about MCP tools by the definitions sent now (name → signature). */
  offeredNow(): Map<string, string> {
    return this.routes.offeredNow()
  }

  servers(): Array<{ name: string; status: string }> {
    return this.views().map((v) => ({ name: v.name, status: v.status }))
  }

  async listResources(server: string | undefined, signal: AbortSignal) {
    const servers = [...this.entries.values()].map((e) => ({
      name: e.spec.name,
      conn: e.conn,
      status: this.statusOf(e),
    }))
    return listServerResources(servers, server, signal)
  }

  async readResource(server: string, uri: string, signal: AbortSignal): Promise<string> {
    const conn = this.requireServer(server)
    try {
      return formatResource(uri, await conn.readResource(uri, signal))
    } catch (error) {
      throw toToolError(error)
    }
  }

  /** `@server:uri` in a prompt: the resource's text, for the message. Throws an Error with the reason. */
  async readMention(server: string, uri: string, signal: AbortSignal): Promise<string> {
    // A prompt sent while its server is still starting waits for it.
    if (this.entries.get(server)?.conn?.status === 'connecting')
      await this.settle(this.opts.startupTimeoutMs, signal)
    return this.readResource(server, uri, signal)
  }

  /** Names of configured servers (for recognising `@server:uri` mentions). */
  serverNames(): string[] {
    return [...this.entries.keys()]
  }

  /**
   * Runs the prompt behind `/mcp__server__prompt args`: the user message it expands to, or throws an
   * Error saying what is wrong (unknown prompt, missing argument, server down).
   */
  async expandPrompt(command: string, argText: string, vision: boolean, signal: AbortSignal) {
    const servers = [...this.entries.values()].map((e) => ({
      conn: e.conn,
      key: this.routes.keyOf(e.spec.name),
    }))
    return expandServerPrompt(servers, command, argText, vision, signal)
  }

  /** `/mcp` → reconnect: restarts the server. */
  reconnect(name: string): void {
    const entry = this.entries.get(name)
    if (!entry) {
      this.opts.notice('warn', `no MCP server "${name}"`)
    } else if (entry.off) {
      this.opts.notice(
        'warn',
        `MCP server "${name}" is turned off in this session; turn it on first (Space in /mcp)`,
      )
    } else if (!entry.enabled || !entry.conn) {
      this.opts.notice(
        'warn',
        `MCP server "${name}" comes from this repository (${entry.spec.source}); trust the folder with /trust to start it`,
      )
    } else {
      entry.initial = false
      void entry.conn.connect()
    }
  }

  /** `/mcp` → sign in: starts the OAuth browser step for the server (and opens the browser if it can). */
  authenticate(name: string): void {
    const entry = this.entries.get(name)
    if (!entry?.conn) this.reconnect(name)
    else if (isStdio(entry.spec.settings))
      this.opts.notice('warn', `MCP server "${name}" runs locally (stdio); it has no sign-in`)
    else void this.runAuth(entry, true)
  }

  /** Stops every server; resolves when their processes are gone. */
  async close(): Promise<void> {
    this.closed = true
    this.unsubscribe?.()
    await this.queue.catch(() => undefined)
    await Promise.all([...this.entries.values()].map((e) => e.conn?.close()))
    for (const done of [...this.waiters]) done()
  }

  /** For exit paths that cannot wait: SIGKILL to every stdio server's process group. */
  killAllSync(): void {
    for (const entry of this.entries.values()) entry.conn?.killSync()
  }

  views(): McpServerView[] {
    return [...this.entries.values()]
      .sort((a, b) => a.spec.name.localeCompare(b.spec.name))
      .map((e) =>
        serverView(
          e.spec,
          e.conn,
          this.routes.keyOf(e.spec.name),
          (tool) => this.routes.nameOf(e.spec.name, tool),
          { off: e.off, offTools: this.changes().disabledTools[e.spec.name] ?? [] },
        ),
      )
  }

  private requireServer(server: string): McpConnection {
    const entry = this.entries.get(server)
    if (!entry) {
      const known = this.servers().map((s) => `${s.name} (${s.status})`)
      throw new ToolError('not_found', `no MCP server "${server}"`, {
        hint: known.length ? `servers: ${known.join(', ')}` : 'no MCP servers are configured',
      })
    }
    if (entry.off)
      throw new ToolError('permission', `MCP server "${server}" was disabled by the user in this session`)
    if (!entry.conn)
      throw new ToolError('permission', `MCP server "${server}" is not started: ${this.statusOf(entry)}`)
    return entry.conn
  }

  private statusOf(entry: Entry): McpServerStatus {
    if (entry.off) return 'disabled'
    return entry.conn?.status ?? 'disabled-untrusted'
  }

  private reload(): Promise<void> {
    const run = this.queue.then(() => this.apply())
    this.queue = run.catch(() => undefined)
    return run
  }

  private async apply(): Promise<void> {
    if (this.closed) return
    const configured = await this.opts.layers()
    const changed = applyChanges(configured.layers, this.changes())
    for (const warning of [...configured.warnings, ...changed.warnings]) {
      if (this.warned.has(warning)) continue
      this.warned.add(warning)
      this.opts.notice('warn', warning)
    }
    const resolved = resolveServers(changed.layers, this.opts.trusted()).filter(
      (r) => !changed.removed.has(r.spec.name),
    )
    const names = new Set(resolved.map((r) => r.spec.name))
    for (const [name, entry] of this.entries) {
      if (names.has(name)) continue
      this.entries.delete(name)
      await entry.conn?.close()
    }
    for (const { spec, enabled } of resolved) {
      const entry = this.entries.get(spec.name)
      const off = changed.off.has(spec.name)
      const same =
        entry?.enabled === enabled &&
        entry.off === off &&
        entry.spec.source === spec.source &&
        JSON.stringify(entry.spec.settings) === JSON.stringify(spec.settings)
      if (same) continue
      // Turning a server off closes it: stdin, then SIGTERM and SIGKILL to its process group.
      await entry?.conn?.close()
      const conn = enabled && !off && !this.closed ? this.connection(spec) : undefined
      this.entries.set(spec.name, { spec, enabled, off, conn, autoAuth: false, initial: !this.applied })
      void conn?.connect()
    }
    this.applied = true
    this.changed()
  }

  private connection(spec: McpServerSpec): McpConnection {
    return connectionFor(spec, this.opts, () => this.changed())
  }

  private changed(): void {
    if (this.closed) return
    for (const entry of this.entries.values()) this.noticeTransition(entry)
    this.opts.publish(this.views())
    for (const done of [...this.waiters]) done()
  }

  private noticeTransition(entry: Entry): void {
    const name = entry.spec.name
    const status = this.statusOf(entry)
    const before = this.statuses.get(name)
    if (before === status) return
    this.statuses.set(name, status)
    const conn = entry.conn
    const where = this.opts.interactive ? ' — /mcp to retry' : ''
    if (status === 'failed')
      this.opts.notice('warn', `MCP server "${name}" failed: ${conn?.error ?? 'unknown error'}${where}`)
    else if (status === 'connected' && (before !== 'connecting' || !entry.initial))
      this.opts.notice('info', `MCP server "${name}" connected (${conn?.tools.length ?? 0} tools)`)
    else if (status === 'needs_auth') {
      if (this.opts.interactive && !entry.autoAuth) {
        entry.autoAuth = true
        void this.runAuth(entry, false)
      } else if (!this.opts.interactive) {
        this.opts.notice(
          'warn',
          `MCP server "${name}" needs you to sign in (OAuth); its tools are unavailable in this run. Start agent-tui and sign in with /mcp.`,
        )
      }
    }
  }

  private async runAuth(entry: Entry, fromUser: boolean): Promise<void> {
    const conn = entry.conn
    if (!conn) return
    entry.initial = false
    const name = entry.spec.name
    const error = await conn.authorize((url) => {
      this.opts.notice(
        'info',
        `MCP server "${name}" needs you to sign in. Open this URL in a browser:\n${url}`,
      )
      if (fromUser) this.opts.openBrowser?.(url)
      this.changed()
    })
    if (error && error !== 'cancelled')
      this.opts.notice('warn', `MCP server "${name}": sign-in did not complete: ${error}`)
  }
}
