import type { AnnounceOptions } from '../../mcp/announce.js'
import type { Rule } from '../../permissions/rule.js'
import type { ContentPart, ToolDefinition } from '../../store/messages.js'
import type { Store } from '../../store/create-store.js'
import type { AnyTool } from '../../tools/types.js'
import { CALL_TOOL, TOOL_SEARCH } from '../tool-call/resolve.js'
import type { ToolLookup } from '../tool-call/pipeline.js'
import { buildToolDefinitions, type DefinitionBuilder } from '../prompt/tool-definitions.js'
import type { DeferMode } from '../toolset/deferral.js'
import { NO_MASK, type ToolList, type ToolMask, toolMask } from '../toolset/mask.js'
import { type Toolset, type ToolsReport, planToolset, reportOf } from '../toolset/toolset.js'

/**
 * The session's tools as the model sees them. The definitions are built once, when the first request
 * goes out (byte-stable for the session: ARCHITECTURE.md#invariants), after waiting briefly for MCP servers still
 * starting: the tools a mask leaves out are not among them, and those that do not fit the window's budget
 * are deferred behind ToolSearch and CallTool (agent/toolset/). MCP tools that appear later are announced
 * in a message at the next step and are callable by name through the executor.
 */

/** What the runtime needs from the MCP client (source/mcp's manager). */
export interface McpRuntime {
  /** Reads the configuration and starts the servers (in the background); idempotent. */
  start(): Promise<void>
  settle(timeoutMs: number, signal?: AbortSignal): Promise<void>
  /** Servers still starting. */
  connecting(): string[]
  /** Resolves once tool lists that servers said changed have been read again. */
  refreshed(): Promise<void>
  hasServers(): boolean
  /** Tools of the connected servers, in a stable order. */
  tools(): AnyTool[]
  /** A tool by name, including tools of servers that are down (whose calls fail with an envelope). */
  tool(name: string): AnyTool | undefined
  /** What the model was told about MCP tools now (name → signature). */
  offeredNow(): Map<string, string>
  announce(
    offered: ReadonlyMap<string, string>,
    opts?: AnnounceOptions,
  ): { text: string; note: string; offered: Map<string, string> } | null
  serverNames(): string[]
  readMention(server: string, uri: string, signal: AbortSignal): Promise<string>
  expandPrompt(
    command: string,
    args: string,
    vision: boolean,
    signal: AbortSignal,
  ): Promise<{ text: string; images: Array<Extract<ContentPart, { type: 'image_url' }>> }>
  reconnect(name: string): void
  authenticate(name: string): void
  /** Why the model may not call this MCP tool now (the user turned it or its server off in `/mcp`). */
  disabled?(name: string): string | undefined
}

export interface SessionToolsOptions {
  /** The built-in tools, in catalog order. */
  core: readonly AnyTool[]
  /** Converts schemas to definitions (a session's cache, shared with its subagents). */
  definitions?: DefinitionBuilder
  /** ListMcpResources and ReadMcpResource: offered when any MCP server is configured. */
  mcpCore: AnyTool[]
  mcp?: McpRuntime
  store: Store
  newId(prefix: string): string
  /** How long the first request waits for MCP servers still starting. */
  startupWaitMs: number
  /** `--tools` or the `tools` setting: exactly the tools to offer. */
  only?: ToolList
  /** The deny rules in force: one without a specifier takes its tools out of the request. */
  denyRules?(): readonly Rule[]
  /** The window the definitions are budgeted against, read when they are fixed. */
  window?(): { tokens: number; charsPerToken: number }
  /** `deferTools`: auto (default), always, never. */
  deferMode?: DeferMode
}

export class SessionTools {
  private readonly opts: SessionToolsOptions
  private core: ReadonlyMap<string, AnyTool>
  private coreList: readonly AnyTool[]
  private frozen: Toolset | undefined
  /** Built before the first request (for estimates), kept while the tool list is the same. */
  private preview: { key: string; built: Toolset } | undefined
  /** MCP tools the model knows of: those in the definitions, then those announced. */
  private offered = new Map<string, string>()
  private atStart = new Map<string, string>()
  /** The history when the model was last told: a compaction or /clear since means telling it again. */
  private seen = { compactions: 0, messages: 0 }

  constructor(opts: SessionToolsOptions) {
    this.opts = opts
    this.coreList = opts.core
    this.core = new Map([...opts.core, ...opts.mcpCore].map((t) => [t.name, t]))
  }

  /**
   * The main session runs as another agent (`/agents`): its built-in tools are these from the next
   * request on, whose definitions are fixed again then (a new prefix; the user was told).
   */
  replaceCore(core: readonly AnyTool[]): void {
    this.coreList = core
    this.core = new Map([...core, ...this.opts.mcpCore].map((t) => [t.name, t]))
    this.frozen = undefined
    this.preview = undefined
  }

  /** Lookup for the executor: the finder tools, built-in tools, then MCP tools by name — none a mask leaves out. */
  readonly lookup: ToolLookup = {
    get: (name) => {
      if (name === TOOL_SEARCH || name === CALL_TOOL) return this.frozen?.finders?.get(name)
      if (!this.mask().allows(name)) return undefined
      // Refused before the gate: nobody is asked to allow a call the user switched off.
      if (this.opts.mcp?.disabled?.(name)) return undefined
      return this.known(name)
    },
    keys: () => {
      if (!this.frozen) return [...this.core.keys()].filter((name) => this.mask().allows(name))
      const sent = this.frozen.definitions.map((d) => d.function.name)
      return [...sent, ...[...this.offered.keys()].filter((name) => !sent.includes(name))]
    },
    unavailable: (name) =>
      this.known(name) ? (this.mask().reason(name) ?? this.opts.mcp?.disabled?.(name)) : undefined,
  }

  /** A built-in tool whatever the mask: what the user runs himself (`!cmd`, `@file`) is not the model's call. */
  own(name: string): AnyTool | undefined {
    return this.core.get(name)
  }

  /**
   * The definitions sent with every request: fixed by `prepare` before the first one. Asked earlier (a
   * context estimate), what they would be now, without fixing them.
   */
  definitions(): ToolDefinition[] {
    return (this.frozen ?? this.build()).definitions
  }

  planModeToolNames(): string[] {
    return (this.frozen ?? this.build()).planNames
  }

  /** `/context`: what is sent, what waits to be found, what a mask leaves out, and their bytes. */
  report(): ToolsReport {
    return reportOf(this.frozen ?? this.build(), this.frozen !== undefined)
  }

  /** Before each step's request: the first one fixes the definitions, later ones announce new MCP tools. */
  async prepare(signal: AbortSignal): Promise<void> {
    const mcp = this.opts.mcp
    if (!this.frozen) {
      if (mcp) await this.waitForServers(mcp, signal)
      this.freeze()
      return
    }
    if (!mcp) return
    await mcp.refreshed()
    // A compaction or /clear may have taken earlier announcements out of what the model sees: tell it again.
    const state = this.opts.store.getState()
    if (state.context.compactions !== this.seen.compactions || state.messages.length < this.seen.messages)
      this.offered = new Map(this.atStart)
    const mask = this.frozen.mask
    const news = mcp.announce(this.offered, {
      offers: (name) => mask.allows(name),
      ...(this.frozen.finders ? { brief: { finder: TOOL_SEARCH, caller: CALL_TOOL } } : {}),
    })
    if (news) {
      this.offered = news.offered
      this.opts.store.dispatch({
        type: 'history/appended',
        message: { role: 'user', content: news.text },
        note: news.note,
      })
    }
    const after = this.opts.store.getState()
    this.seen = { compactions: after.context.compactions, messages: after.messages.length }
  }

  /** Every tool the session has now, in catalog order, MCP tools last. */
  private offeredNow(): AnyTool[] {
    const mcp = this.opts.mcp
    return [...this.coreList, ...(mcp?.hasServers() ? this.opts.mcpCore : []), ...(mcp?.tools() ?? [])]
  }

  private known(name: string): AnyTool | undefined {
    return this.core.get(name) ?? this.opts.mcp?.tool(name)
  }

  /** The mask fixed with the definitions; before that, the one the rules in force make now. */
  private mask(): ToolMask {
    if (this.frozen) return this.frozen.mask
    return this.currentMask()
  }

  private currentMask(): ToolMask {
    const denied = this.opts.denyRules?.() ?? []
    if (!this.opts.only && denied.length === 0) return NO_MASK
    return toolMask({ only: this.opts.only, denied })
  }

  private freeze(): void {
    if (this.frozen) return
    const built = this.build({ lateServers: (this.opts.mcp?.connecting().length ?? 0) > 0 })
    const mask = built.mask
    this.atStart = new Map(
      [...(this.opts.mcp?.offeredNow() ?? new Map())].filter(([name]) => mask.allows(name)),
    )
    this.offered = new Map(this.atStart)
    this.frozen = built
  }

  private build(opts: { lateServers?: boolean } = {}): Toolset {
    const offered = this.offeredNow()
    const mask = this.currentMask()
    const window = this.opts.window?.() ?? { tokens: 32_768, charsPerToken: 4 }
    const mode = this.opts.deferMode ?? 'auto'
    const key = [
      ...offered.map((t) => `${t.name}${mask.allows(t.name) ? '' : ' (masked)'}`),
      window.tokens,
      window.charsPerToken,
      mode,
      Boolean(opts.lateServers),
    ].join('\n')
    if (this.preview?.key === key) return this.preview.built
    const built = planToolset({
      offered,
      mask,
      definitions: this.opts.definitions ?? buildToolDefinitions,
      windowBytes: window.tokens * window.charsPerToken,
      mode,
      lateServers: Boolean(opts.lateServers),
      // What ToolSearch searches when it is called: the tools on offer then (MCP tools come and go).
      corpus: () => this.offeredNow().filter((t) => this.mask().allows(t.name)),
    })
    this.preview = { key, built }
    return built
  }

  private async waitForServers(mcp: McpRuntime, signal: AbortSignal): Promise<void> {
    await mcp.start()
    const waiting = mcp.connecting()
    if (waiting.length === 0) return
    const id = this.opts.newId('mcp-wait')
    const dispatch = this.opts.store.dispatch
    dispatch({
      type: 'notice/updated',
      id,
      level: 'info',
      text: `waiting for MCP servers to start: ${waiting.join(', ')}…`,
    })
    await mcp.settle(this.opts.startupWaitMs, signal)
    const late = mcp.connecting()
    // Settled for good (logged): whatever is still starting joins later, announced to the model.
    dispatch({
      type: 'notice/added',
      id,
      level: 'info',
      text: late.length
        ? `MCP servers still starting: ${late.join(', ')}; their tools will be offered once they are up`
        : `MCP servers started: ${waiting.join(', ')}`,
    })
  }
}
