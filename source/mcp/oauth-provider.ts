import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client'
import type { OAuthStore } from './oauth-store.js'

/**
 * The host's side of the SDK's OAuth flow for one remote server: storage (the OAuth store, by server URL),
 * the loopback redirect URI, and the authorization URL the SDK asks us to open. The SDK does the protocol:
 * discovery, dynamic registration, PKCE, the code exchange and refreshing tokens on a 401.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  /** The URL the user must visit, once the SDK asked for it. */
  authorizationUrl: URL | undefined
  private verifier: string | undefined
  private currentState: string | undefined

  constructor(
    private readonly serverUrl: string,
    private readonly store: OAuthStore,
    readonly port: number,
  ) {}

  get redirectUrl(): string {
    return `http://127.0.0.1:${this.port}/callback`
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'agent-tui',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }

  state(): string {
    this.currentState ??= randomBytes(16).toString('hex')
    return this.currentState
  }

  /** The `state` the callback must carry (the SDK does not check it; the host must). */
  get expectedState(): string | undefined {
    return this.currentState
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    const record = await this.store.get(this.serverUrl)
    // A registration made for another redirect port would be refused by the authorization server.
    if (record?.redirectPort !== undefined && record.redirectPort !== this.port) return undefined
    return record?.clientInformation as StoredOAuthClientInformation | undefined
  }

  saveClientInformation(info: StoredOAuthClientInformation): Promise<void> {
    return this.store.update(this.serverUrl, (r) => ({
      ...r,
      clientInformation: { ...info },
      redirectPort: this.port,
    }))
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    return (await this.store.get(this.serverUrl))?.tokens as StoredOAuthTokens | undefined
  }

  saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    return this.store.update(this.serverUrl, (r) => ({ ...r, tokens: { ...tokens }, savedAt: Date.now() }))
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no PKCE code verifier: start the authorization again')
    return this.verifier
  }

  saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    return this.store.update(this.serverUrl, (r) => ({ ...r, discovery: { ...state } }))
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.store.get(this.serverUrl))?.discovery as OAuthDiscoveryState | undefined
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'all') this.verifier = undefined
    if (scope === 'verifier') return
    await this.store.update(this.serverUrl, (r) => {
      if (scope === 'all') return undefined
      const next = { ...r }
      if (scope === 'client') delete next.clientInformation
      if (scope === 'tokens') delete next.tokens
      if (scope === 'discovery') delete next.discovery
      return next
    })
  }
}

/** The port of the server's earlier registration when it is free now, else a free loopback port. */
export async function pickRedirectPort(preferred: number | undefined): Promise<number> {
  if (preferred !== undefined) {
    const free = await listenOn(preferred).then(
      (server) => new Promise<boolean>((resolve) => server.close(() => resolve(true))),
      () => false,
    )
    if (free) return preferred
  }
  const server = await listenOn(0)
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve(server))
  })
}

export type CallbackResult = { code: string } | { error: string }

/**
 * Listens on the redirect URI for the authorization server's answer. Resolves once listening, with
 * `result`: the code when the `state` matches (anything else at that path is refused and the wait goes
 * on), or an error the user should see. Stops on `signal` or after `timeoutMs`.
 */
export async function listenForCallback(opts: {
  port: number
  expectedState: () => string | undefined
  signal: AbortSignal
  timeoutMs: number
}): Promise<{ result: Promise<CallbackResult> }> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port, '127.0.0.1', () => resolve())
  })
  const answer = new Promise<CallbackResult>((resolve) => {
    const minutes = Math.round(opts.timeoutMs / 60_000)
    const timer = setTimeout(
      () => resolve({ error: `no answer from the browser within ${minutes} min` }),
      opts.timeoutMs,
    )
    timer.unref()
    const stop = () => resolve({ error: 'cancelled' })
    if (opts.signal.aborted) stop()
    opts.signal.addEventListener('abort', stop, { once: true })
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1')
      if (url.pathname !== '/callback') {
        res.writeHead(404).end()
        return
      }
      const page = (status: number, text: string) => {
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', connection: 'close' })
        res.end(`<!doctype html><title>agent-tui</title><p>${text}</p>`)
      }
      const expected = opts.expectedState()
      if (!expected || url.searchParams.get('state') !== expected) {
        page(400, 'This answer does not belong to the sign-in agent-tui started (state mismatch).')
        return
      }
      clearTimeout(timer)
      opts.signal.removeEventListener('abort', stop)
      const error = url.searchParams.get('error')
      const code = url.searchParams.get('code')
      if (error || !code) {
        page(400, 'Authorization was not granted. You can close this tab.')
        // The description is the server's text and could say anything: name the error code only.
        resolve({ error: `the authorization server refused: ${error ?? 'no code in the answer'}` })
        return
      }
      page(200, 'Signed in. You can close this tab and return to agent-tui.')
      resolve({ code })
    })
  })
  const result = answer.finally(() => {
    // Answered pages are sent with `connection: close`; idle keep-alive sockets would hold the port.
    server.close()
    server.closeIdleConnections()
  })
  return { result }
}
