import type {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  Transport,
} from '@modelcontextprotocol/client'
import type { HttpServerSettings, McpServerSettings, StdioServerSettings } from '../config/schema.js'
import { expandAll, expandString } from './expand-vars.js'
import { pickRedirectPort, StoredOAuthProvider } from './oauth-provider.js'
import type { OAuthStore } from './oauth-store.js'
import { StdioServerTransport } from './stdio-transport.js'

/** The SDK's client module, loaded once the first server starts (never on the way to the first frame). */
export type Sdk = typeof import('@modelcontextprotocol/client')

/** A problem with the server's settings, found when it starts (a missing variable, a bad URL). */
export class ServerConfigError extends Error {}

export type BuiltTransport =
  | { kind: 'stdio'; transport: StdioServerTransport<unknown> & Transport }
  | {
      kind: 'http' | 'sse'
      transport: (StreamableHTTPClientTransport | SSEClientTransport) & Transport
      oauth?: StoredOAuthProvider
      url: string
    }

export interface TransportDeps {
  sdk: Sdk
  workspace: string
  env: Readonly<Record<string, string | undefined>>
  oauth: OAuthStore
  onSpawn?(pid: number): void
  onGone?(pid: number): void
  vet?: StdioVet
}

/**
 * Asked before a stdio server starts outside the sandbox: a server whose program changed while commands
 * ran unasked must not start unasked (see source/provenance/). Resolves with why it must not start, or
 * undefined to start it.
 */
export type StdioVet = (server: {
  name: string
  command: string
  args: readonly string[]
  env: Record<string, string>
  cwd: string
}) => Promise<string | undefined>

export function isStdio(settings: McpServerSettings): settings is StdioServerSettings {
  return 'command' in settings
}

/** `npx -y pkg` or `https://…/mcp`, as `/mcp` and the trust prompt show a server. */
export function describeTarget(settings: McpServerSettings): string {
  if (isStdio(settings)) return [settings.command, ...(settings.args ?? [])].join(' ')
  return settings.url
}

export async function buildTransport(
  name: string,
  settings: McpServerSettings,
  deps: TransportDeps,
): Promise<BuiltTransport> {
  return isStdio(settings) ? buildStdio(name, settings, deps) : buildHttp(settings, deps)
}

function missingError(missing: string[]): ServerConfigError {
  const names = [...new Set(missing)].map((n) => `\${${n}}`).join(', ')
  return new ServerConfigError(`${names} ${missing.length === 1 ? 'is' : 'are'} not set in the environment`)
}

async function buildStdio(
  name: string,
  settings: StdioServerSettings,
  deps: TransportDeps,
): Promise<BuiltTransport> {
  const command = expandString(settings.command, deps.env)
  const args = expandAll(settings.args ?? [], deps.env)
  const env = expandAll(settings.env ?? {}, deps.env)
  const missing = [...command.missing, ...args.missing, ...env.missing]
  if (missing.length) throw missingError(missing)
  // The server gets the user's environment (PATH, proxies, CA certificates) plus its own variables.
  const base: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) base[key] = value
  const serverEnv = { ...base, ...env.value }
  const refused = await deps.vet?.({
    name,
    command: command.value,
    args: args.value,
    env: serverEnv,
    cwd: deps.workspace,
  })
  if (refused !== undefined) throw new ServerConfigError(`not started: ${refused}`)
  const transport = new StdioServerTransport<unknown>({
    command: command.value,
    args: args.value,
    env: serverEnv,
    cwd: deps.workspace,
    deserialize: (line) => deps.sdk.deserializeMessage(line),
    ...(deps.onSpawn ? { onSpawn: deps.onSpawn } : {}),
    ...(deps.onGone ? { onGone: deps.onGone } : {}),
  })
  return { kind: 'stdio', transport: transport as StdioServerTransport<unknown> & Transport }
}

async function buildHttp(settings: HttpServerSettings, deps: TransportDeps): Promise<BuiltTransport> {
  const url = expandString(settings.url, deps.env)
  const headers = expandAll(settings.headers ?? {}, deps.env)
  const missing = [...url.missing, ...headers.missing]
  if (missing.length) throw missingError(missing)
  let parsed: URL
  try {
    parsed = new URL(url.value)
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)')
  } catch {
    throw new ServerConfigError(`"${url.value}" is not an http(s) URL`)
  }
  // A configured Authorization header is the user's own credential: no OAuth flow over it.
  const ownAuth = Object.keys(headers.value).some((h) => h.toLowerCase() === 'authorization')
  let oauth: StoredOAuthProvider | undefined
  if (!ownAuth) {
    const record = await deps.oauth.get(parsed.href)
    oauth = new StoredOAuthProvider(parsed.href, deps.oauth, await pickRedirectPort(record?.redirectPort))
  }
  const options = {
    ...(Object.keys(headers.value).length ? { requestInit: { headers: headers.value } } : {}),
    ...(oauth ? { authProvider: oauth } : {}),
  }
  const kind = settings.type === 'sse' ? 'sse' : 'http'
  const transport =
    kind === 'sse'
      ? new deps.sdk.SSEClientTransport(parsed, options)
      : new deps.sdk.StreamableHTTPClientTransport(parsed, options)
  return { kind, transport, url: parsed.href, ...(oauth ? { oauth } : {}) }
}
