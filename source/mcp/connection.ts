import type {
  CallToolResult,
  Client,
  GetPromptResult,
  ReadResourceResult,
} from '@modelcontextprotocol/client'
import { callError, McpCallError } from './call-error.js'
import {
  errorText,
  lastLines,
  type McpPromptInfo,
  type McpToolInfo,
  toPromptInfo,
  toToolInfo,
} from './info.js'
import { startAllowance, withinAllowance } from './npx-first-start.js'
import { listenForCallback } from './oauth-provider.js'
import type { OAuthStore } from './oauth-store.js'
import type { McpServerSpec } from './server-specs.js'
import {
  type BuiltTransport,
  buildTransport,
  type Sdk,
  ServerConfigError,
  type StdioVet,
} from './transports.js'

/**
 * One MCP server: starting it (stdio process or HTTP connection) within its start-up timeout, its
 * tools, prompts and resources, calls with a per-call timeout, OAuth sign-in, and noticing when it
 * dies. Nothing here throws at the manager except calls (as McpCallError); failures become the status.
 */

export type { McpPromptInfo, McpToolInfo }
export { McpCallError }

export type McpStatus = 'connecting' | 'connected' | 'failed' | 'needs_auth' | 'disabled-untrusted'

export interface ConnectionOptions {
  spec: McpServerSpec
  workspace: string
  env: Readonly<Record<string, string | undefined>>
  oauth: OAuthStore
  startupTimeoutMs: number
  /** The least a first start of an npx server may take (npm installing); default FIRST_START_MS. */
  firstStartMs?: number
  toolTimeoutMs: number
  version: string
  /** Status, tools or prompts changed (the manager republishes and announces). */
  onChange(): void
  onSpawn?(pid: number): void
  onGone?(pid: number): void
  vet?: StdioVet
}

const AUTH_WAIT_MS = 10 * 60_000

export class McpConnection {
  status: McpStatus = 'connecting'
  error: string | undefined
  /** Where the user signs in, while the status is needs_auth. */
  authUrl: string | undefined
  /** While connecting: the package npm is installing (an npx server's first start). */
  installing: string | undefined
  tools: McpToolInfo[] = []
  prompts: McpPromptInfo[] = []
  hasResources = false
  private client: Client | undefined
  private built: BuiltTransport | undefined
  private attempt = 0
  private closed = false
  private authFlow: AbortController | undefined
  private refreshing: Promise<void> | undefined
  private refreshAgain = false
  private readonly opts: ConnectionOptions

  constructor(opts: ConnectionOptions) {
    this.opts = opts
  }

  get name(): string {
    return this.opts.spec.name
  }

  get spec(): McpServerSpec {
    return this.opts.spec
  }

  /** (Re)starts the server. Resolves when it is connected, failed or needs sign-in; never rejects. */
  async connect(): Promise<void> {
    const attempt = ++this.attempt
    await this.teardown()
    if (this.closed) return
    this.update({ status: 'connecting', error: undefined, authUrl: undefined })
    let built: BuiltTransport | undefined
    let sdk: Sdk | undefined
    try {
      sdk = await import('@modelcontextprotocol/client')
      built = await buildTransport(this.opts.spec.name, this.opts.spec.settings, {
        sdk,
        workspace: this.opts.workspace,
        env: this.opts.env,
        oauth: this.opts.oauth,
        ...(this.opts.vet ? { vet: this.opts.vet } : {}),
        ...(this.opts.onSpawn ? { onSpawn: this.opts.onSpawn } : {}),
        ...(this.opts.onGone ? { onGone: this.opts.onGone } : {}),
      })
      this.built = built
      const client = this.newClient(sdk, attempt)
      // A first start of an npx server waits for npm's download (npx-first-start.ts), and says so.
      const allow = startAllowance(this.opts)
      this.update({ installing: allow.installing })
      await withinAllowance(allow, this.start(client, built), (message) => new ServerConfigError(message))
      if (attempt !== this.attempt || this.closed) {
        await client.close().catch(() => undefined)
        return
      }
      this.client = client
      this.update({ status: 'connected' })
    } catch (error) {
      if (attempt !== this.attempt || this.closed) return
      const authUrl = built?.kind !== 'stdio' ? built?.oauth?.authorizationUrl : undefined
      if (sdk && error instanceof sdk.UnauthorizedError && authUrl) {
        // Keep the transport: finishing the sign-in exchanges the code through it.
        this.update({ status: 'needs_auth', authUrl: authUrl.href, error: undefined })
        return
      }
      // Failed before the teardown: closing the transport must not report "the connection closed"
      // in place of why it failed (a start-up timeout).
      this.update({ status: 'failed', error: this.describeFailure(error) })
      await this.teardown()
    }
  }

  /**
   * The browser step of OAuth: listens on the redirect URI, tells `onUrl` where to sign in, and once
   * the answer comes, exchanges the code and connects again. Resolves with an error text or undefined.
   */
  async authorize(onUrl: (url: string) => void): Promise<string | undefined> {
    if (this.status !== 'needs_auth') await this.connect()
    const built = this.built
    if (this.status !== 'needs_auth' || built?.kind === 'stdio' || !built?.oauth) {
      return this.status === 'connected' ? undefined : (this.error ?? `the server is ${this.status}`)
    }
    const provider = built.oauth
    const url = provider.authorizationUrl?.href
    if (!url) return 'the server asked for no sign-in URL'
    this.authFlow?.abort()
    const flow = new AbortController()
    this.authFlow = flow
    let listener: Awaited<ReturnType<typeof listenForCallback>>
    try {
      listener = await listenForCallback({
        port: provider.port,
        expectedState: () => provider.expectedState,
        signal: flow.signal,
        timeoutMs: AUTH_WAIT_MS,
      })
    } catch (error) {
      return `cannot listen on ${provider.redirectUrl} for the sign-in answer: ${String(error)}`
    }
    onUrl(url)
    const answer = await listener.result
    if (flow.signal.aborted || this.closed) return 'cancelled'
    if ('error' in answer) {
      this.update({ error: answer.error })
      return answer.error
    }
    try {
      await built.transport.finishAuth(answer.code)
    } catch (error) {
      const message = `sign-in failed: ${errorText(error)}`
      this.update({ error: message })
      return message
    }
    await this.connect()
    const status = this.status as McpStatus
    return status === 'connected' ? undefined : (this.error ?? `the server is ${status}`)
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    opts: { signal: AbortSignal; onProgress?: (text: string) => void },
  ): Promise<CallToolResult> {
    const client = this.ready()
    const seconds = Number((this.opts.toolTimeoutMs / 1000).toFixed(1))
    return this.guard(
      () =>
        client.callTool(
          { name, arguments: args },
          {
            signal: opts.signal,
            timeout: this.opts.toolTimeoutMs,
            resetTimeoutOnProgress: true,
            onprogress: (p) => {
              const total = p.total === undefined ? '' : `/${p.total}`
              opts.onProgress?.(`${p.message ?? 'working'} (${p.progress}${total})`)
            },
          },
        ),
      opts.signal,
      `no answer within ${seconds} s (toolTimeoutSeconds)`,
    )
  }

  async listResources(signal: AbortSignal) {
    const client = this.ready()
    if (!this.hasResources) return { resources: [], templates: [] }
    const options = { signal, timeout: this.opts.toolTimeoutMs }
    const [resources, templates] = await this.guard(
      () =>
        Promise.all([
          client.listResources(undefined, options),
          client.listResourceTemplates(undefined, options).catch(() => ({ resourceTemplates: [] })),
        ]),
      signal,
      'no answer to resources/list',
    )
    return { resources: resources.resources, templates: templates.resourceTemplates }
  }

  async readResource(uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    const client = this.ready()
    return this.guard(
      () => client.readResource({ uri }, { signal, timeout: this.opts.toolTimeoutMs }),
      signal,
      'no answer to resources/read',
    )
  }

  async getPrompt(name: string, args: Record<string, string>, signal: AbortSignal): Promise<GetPromptResult> {
    const client = this.ready()
    return this.guard(
      () => client.getPrompt({ name, arguments: args }, { signal, timeout: this.opts.toolTimeoutMs }),
      signal,
      'no answer to prompts/get',
    )
  }

  /** Resolves once a refresh of the tool and prompt lists under way (after list_changed) is done. */
  async refreshed(): Promise<void> {
    await this.refreshing
  }

  /** Re-reads the tool and prompt lists; notices that come during a refresh run one more. */
  private refreshLists(client: Client): void {
    if (this.refreshing) {
      this.refreshAgain = true
      return
    }
    const attempt = this.attempt
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false
        try {
          const caps = client.getServerCapabilities() ?? {}
          const [tools, prompts] = await Promise.all([
            caps.tools ? client.listTools(undefined, { cacheMode: 'refresh' }) : { tools: [] },
            caps.prompts ? client.listPrompts(undefined, { cacheMode: 'refresh' }) : { prompts: [] },
          ])
          if (attempt !== this.attempt || this.status !== 'connected') return
          this.tools = tools.tools.map(toToolInfo)
          this.prompts = prompts.prompts.map(toPromptInfo)
          this.opts.onChange()
        } catch {
          // The lists stay as they were; a server that died is reported through onclose.
        }
      } while (this.refreshAgain)
    })().finally(() => {
      this.refreshing = undefined
    })
  }

  /** Stops the server for good (session end, or it was removed). */
  async close(): Promise<void> {
    this.closed = true
    this.authFlow?.abort()
    await this.teardown()
  }

  /** Exit paths that cannot wait: the stdio server's process group gets SIGKILL now. */
  killSync(): void {
    if (this.built?.kind === 'stdio') this.built.transport.killSync()
  }

  private newClient(sdk: Sdk, attempt: number): Client {
    const current = () => attempt === this.attempt && !this.closed
    const client = new sdk.Client(
      { name: 'agent-tui', version: this.opts.version },
      {
        capabilities: {},
        // Refreshed here rather than by the SDK (autoRefresh), so the next step can wait for a refresh
        // under way: a tool added during a call is announced before the model's next request.
        listChanged: {
          tools: {
            autoRefresh: false,
            debounceMs: 0,
            onChanged: () => current() && this.refreshLists(client),
          },
          prompts: {
            autoRefresh: false,
            debounceMs: 0,
            onChanged: () => current() && this.refreshLists(client),
          },
        },
      },
    )
    client.onclose = () => {
      // While connecting, connect() says why it failed (a refused connection, the process's exit).
      if (!current() || this.status !== 'connected') return
      this.client = undefined
      this.update({ status: 'failed', error: this.describeFailure(new Error('the connection closed')) })
    }
    // Transport errors (a stray line on stdout, a dropped SSE stream) are not fatal on their own.
    client.onerror = () => undefined
    return client
  }

  private async start(client: Client, built: BuiltTransport): Promise<void> {
    await client.connect(built.transport)
    const caps = client.getServerCapabilities() ?? {}
    const [tools, prompts] = await Promise.all([
      caps.tools ? client.listTools() : Promise.resolve({ tools: [] }),
      caps.prompts ? client.listPrompts() : Promise.resolve({ prompts: [] }),
    ])
    this.tools = tools.tools.map(toToolInfo)
    this.prompts = prompts.prompts.map(toPromptInfo)
    this.hasResources = Boolean(caps.resources)
  }

  private ready(): Client {
    if (this.status === 'connected' && this.client) return this.client
    const why =
      this.status === 'needs_auth'
        ? 'it needs you to sign in'
        : this.status === 'connecting'
          ? 'it is still starting'
          : this.status === 'disabled-untrusted'
            ? 'it comes from this repository and the folder is not trusted'
            : `it failed: ${this.error ?? 'unknown error'}`
    throw new McpCallError(
      'execution',
      `MCP server "${this.name}" is not available: ${why}`,
      'the user can check it with /mcp (and reconnect or sign in there); do not retry now',
    )
  }

  /** Runs a request and turns the SDK's failures into McpCallError. */
  private async guard<T>(run: () => Promise<T>, signal: AbortSignal, timeoutText: string): Promise<T> {
    try {
      return await run()
    } catch (error) {
      throw callError(error, {
        signal,
        server: this.name,
        timeoutText,
        describe: () => this.describeFailure(error),
      })
    }
  }

  private describeFailure(error: unknown): string {
    const built = this.built
    let text = error instanceof ServerConfigError ? error.message : errorText(error)
    if (built?.kind === 'stdio') {
      const ended = built.transport.exitDescription()
      if (ended) text = `the server process ${ended}`
      const stderr = built.transport.stderr()
      if (stderr) text += `; its stderr: ${lastLines(stderr, 3)}`
    }
    return text
  }

  private async teardown(): Promise<void> {
    const client = this.client
    const built = this.built
    this.client = undefined
    this.built = undefined
    if (client) await client.close().catch(() => undefined)
    if (built) await built.transport.close().catch(() => undefined)
  }

  private update(change: Partial<Pick<McpConnection, 'status' | 'error' | 'authUrl' | 'installing'>>): void {
    Object.assign(this, change)
    if (this.status !== 'connecting') this.installing = undefined
    // Only a connected server offers anything; the manager remembers what was offered for error envelopes.
    if (this.status !== 'connected') {
      this.tools = []
      this.prompts = []
      this.hasResources = false
    }
    this.opts.onChange()
  }
}
