/**
 * A streamable-HTTP MCP server on 127.0.0.1 for end-to-end tests, built with the SDK's server pieces
 * (v1): stateless MCP at `/mcp` with the tools `echo` (read-only) and `whoami`, optionally behind OAuth.
 * With `oauth: true` the same process is the authorization server too (the SDK's `mcpAuthRouter`:
 * metadata, dynamic client registration, /authorize, /token with PKCE and refresh tokens) and `/mcp`
 * answers 401 with the protected-resource metadata until a valid bearer token comes. Its /authorize
 * approves at once (redirects to the client's loopback callback with a code): a test does the browser's
 * part by following that redirect.
 */
import { randomBytes } from 'node:crypto'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js'
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js'
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js'
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js'
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import { z } from 'zod'

export interface HttpMcpServer {
  /** `http://127.0.0.1:PORT/mcp` */
  readonly url: string
  /** MCP requests that reached the tools (after authentication). */
  readonly calls: string[]
  /** OAuth: authorization codes issued, token requests answered with a refresh. */
  readonly stats: { authorizations: number; refreshes: number; registrations: number }
  /** OAuth: forgets every access token (refresh tokens stay valid), as if they had expired. */
  expireAccessTokens(): void
  close(): Promise<void>
}

/** In-memory authorization server that approves every authorization request at once. */
function createProvider(stats: HttpMcpServer['stats']) {
  const clients = new Map<string, OAuthClientInformationFull>()
  const codes = new Map<string, { client: string; params: AuthorizationParams }>()
  const access = new Map<string, { client: string; expiresAt: number }>()
  const refresh = new Map<string, string>()
  const issue = (client: string): OAuthTokens => {
    const token = randomBytes(16).toString('hex')
    const again = randomBytes(16).toString('hex')
    access.set(token, { client, expiresAt: Math.floor(Date.now() / 1000) + 3600 })
    refresh.set(again, client)
    return { access_token: token, token_type: 'bearer', expires_in: 3600, refresh_token: again }
  }
  const provider: OAuthServerProvider = {
    clientsStore: {
      getClient: (id) => clients.get(id),
      registerClient: (client) => {
        stats.registrations++
        const full = {
          ...client,
          client_id: randomBytes(8).toString('hex'),
          client_id_issued_at: Date.now() / 1000,
        }
        clients.set(full.client_id, full as OAuthClientInformationFull)
        return full as OAuthClientInformationFull
      },
    },
    async authorize(client, params, res) {
      stats.authorizations++
      const code = randomBytes(12).toString('hex')
      codes.set(code, { client: client.client_id, params })
      const target = new URL(params.redirectUri)
      target.searchParams.set('code', code)
      if (params.state) target.searchParams.set('state', params.state)
      res.redirect(302, target.href)
    },
    async challengeForAuthorizationCode(_client, code) {
      const found = codes.get(code)
      if (!found) throw new Error('unknown authorization code')
      return found.params.codeChallenge
    },
    async exchangeAuthorizationCode(client, code) {
      const found = codes.get(code)
      if (!found || found.client !== client.client_id) throw new Error('invalid authorization code')
      codes.delete(code)
      return issue(client.client_id)
    },
    async exchangeRefreshToken(client, token) {
      if (refresh.get(token) !== client.client_id) throw new Error('invalid refresh token')
      refresh.delete(token)
      stats.refreshes++
      return issue(client.client_id)
    },
    async verifyAccessToken(token) {
      const found = access.get(token)
      if (!found) throw new InvalidTokenError('the access token is not valid (expired or unknown)')
      return { token, clientId: found.client, scopes: [], expiresAt: found.expiresAt }
    },
  }
  return { provider, expire: () => access.clear() }
}

function mcpServer(calls: string[]): McpServer {
  const server = new McpServer({ name: 'agent-tui-http-test', version: '1.0.0' })
  server.registerTool(
    'echo',
    {
      description: 'Echoes the text back',
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => {
      calls.push(`echo ${text}`)
      return { content: [{ type: 'text', text: `http echo: ${text}` }] }
    },
  )
  server.registerTool(
    'whoami',
    {
      description: 'Says which OAuth client is calling',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    async (_args, extra) => {
      calls.push('whoami')
      return { content: [{ type: 'text', text: `client ${extra.authInfo?.clientId ?? 'anonymous'}` }] }
    },
  )
  return server
}

export async function startHttpMcpServer(opts: { oauth?: boolean } = {}): Promise<HttpMcpServer> {
  const app = createMcpExpressApp({ host: '127.0.0.1' })
  const calls: string[] = []
  const stats = { authorizations: 0, refreshes: 0, registrations: 0 }
  const listening: Server = await new Promise((resolve) => {
    const server: Server = app.listen(0, '127.0.0.1', () => resolve(server))
  })
  const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`
  const url = `${base}/mcp`
  let expire = () => {}
  const guards: unknown[] = []
  if (opts.oauth) {
    const made = createProvider(stats)
    expire = made.expire
    app.use(
      mcpAuthRouter({ provider: made.provider, issuerUrl: new URL(base), resourceServerUrl: new URL(url) }),
    )
    guards.push(
      requireBearerAuth({
        verifier: made.provider,
        resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(url)),
      }),
    )
  }
  // Stateless: a fresh server and transport for every request.
  app.post(
    '/mcp',
    ...(guards as []),
    async (req: { body: unknown }, res: { on(e: string, f: () => void): void }) => {
      const server = mcpServer(calls)
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
      res.on('close', () => {
        void transport.close()
        void server.close()
      })
      await server.connect(transport)
      await transport.handleRequest(req as never, res as never, req.body)
    },
  )
  const notAllowed = (_req: unknown, res: { status(n: number): { end(): void } }) => res.status(405).end()
  app.get('/mcp', notAllowed)
  app.delete('/mcp', notAllowed)
  return {
    url,
    calls,
    stats,
    expireAccessTokens: () => expire(),
    close: () =>
      new Promise<void>((resolve) => {
        listening.closeAllConnections()
        listening.close(() => resolve())
      }),
  }
}
