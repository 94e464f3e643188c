/**
 * Extra request headers for the model endpoint (docs/configuration.md#request-headers): the `headers`
 * setting, `AGENT_TUI_CUSTOM_HEADERS` (`Name: value` lines, like Claude Code's `ANTHROPIC_CUSTOM_HEADERS`)
 * and `--header 'Name: value'`, for gateways that route or bill by header (Portkey, Helicone, corporate
 * proxies). They go to the endpoint's origin only: never to a redirect elsewhere, WebFetch or an MCP
 * server. Pure.
 */

import { UsageError } from './errors.js'

export interface Header {
  name: string
  value: string
}

/** One header and where it was set, for `/context` and messages. */
export interface EndpointHeader {
  name: string
  value: string
  from: 'settings' | 'env' | 'flag'
  /**
   * The origin (scheme, host, port) of the base URL it was configured with; undefined when none was
   * (the endpoint is then found by probing, and gets no header).
   */
  origin?: string
}

/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * What the HTTP client (or the connection) owns: a header of the user's there would break the request
 * or smuggle a second one into it.
 */
const RESERVED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
  'expect',
])

/** Why `name` cannot be a request header, or undefined. */
export function headerNameProblem(name: string): string | undefined {
  if (!TOKEN.test(name)) return `"${name}" is not a header name (letters, digits and -, no spaces or colons)`
  if (RESERVED.has(name.toLowerCase())) return `"${name}" is set by the HTTP client and cannot be configured`
  return undefined
}

/** Why `value` cannot be a header value (a line break would start another header), or undefined. */
export function headerValueProblem(value: string): string | undefined {
  if (/[\r\n\0]/.test(value)) return 'a header value cannot hold a line break or NUL'
  if (/[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(value))
    return 'a header value cannot hold control characters'
  // Node sends a header value's characters as single bytes (Latin-1), so `café` would arrive as `cafÃ©`.
  const wide = /[^\u0020-\u007e\t]/.exec(value)
  if (wide)
    return `a header value must be ASCII (character ${wide.index + 1} is "${wide[0]}"): HTTP headers do not carry UTF-8; percent-encode it or leave it out`
  return undefined
}

/** `Name: value` → the pair; throws Error with the problem (the caller names the flag or variable). */
export function parseHeaderLine(line: string): { name: string; value: string } {
  const colon = line.indexOf(':')
  // Redacted: a line without its colon may be the secret itself.
  if (colon <= 0) throw new Error(`expected "Name: value" (got ${redactHeaderValue(line)})`)
  const name = line.slice(0, colon).trim()
  const value = line.slice(colon + 1).trim()
  const problem = headerNameProblem(name) ?? headerValueProblem(value)
  if (problem) throw new Error(problem)
  return { name, value }
}

/** `--header 'Name: value'`; a UsageError naming the flag. */
export function headerOfFlag(text: string, flag: string): Header {
  try {
    return parseHeaderLine(text)
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`)
  }
}

/** `AGENT_TUI_CUSTOM_HEADERS`: one `Name: value` per line; blank lines are skipped. */
export function parseHeaderLines(text: string): Array<{ name: string; value: string }> {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line, i) => {
      try {
        return parseHeaderLine(line)
      } catch (error) {
        throw new Error(`line ${i + 1}: ${(error as Error).message}`)
      }
    })
}

/**
 * The headers in force: settings < environment < flags, per name (case-insensitive; the later spelling
 * wins). Order: first appearance.
 */
export function mergeHeaders(
  layers: ReadonlyArray<{
    from: EndpointHeader['from']
    headers: ReadonlyArray<{ name: string; value: string }>
  }>,
): EndpointHeader[] {
  const byName = new Map<string, EndpointHeader>()
  for (const layer of layers) {
    for (const { name, value } of layer.headers) {
      // A Map keeps a replaced key where it first appeared.
      byName.set(name.toLowerCase(), { name, value, from: layer.from })
    }
  }
  return [...byName.values()]
}

/** `{name: value}` for the HTTP client. */
export function headerRecord(headers: readonly EndpointHeader[]): Record<string, string> {
  return Object.fromEntries(headers.map((h) => [h.name, h.value]))
}

/** `https://gw.example` of `https://gw.example/v1`; undefined for what is not a URL. */
export function originOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}

/**
 * The one rule for who gets the headers: those configured for `baseUrl`'s origin, as the HTTP client
 * takes them; undefined when none are. A probed server, or an endpoint chosen later with `/login` on
 * another origin, gets none.
 */
export function headersFor(
  headers: readonly EndpointHeader[],
  baseUrl: string | undefined,
): Record<string, string> | undefined {
  const at = originOf(baseUrl)
  const sent = at === undefined ? [] : headers.filter((h) => h.origin === at)
  return sent.length > 0 ? headerRecord(sent) : undefined
}

/** `{headers}` when there are any, for an options object. */
export function withHeaders(headers: Record<string, string> | undefined): {
  headers?: Record<string, string>
} {
  return headers ? { headers } : {}
}

/**
 * `/status` and `/context`: each header redacted, and for those `baseUrl` does not get, why
 * (`not sent: configured for https://gw.example, endpoint is http://127.0.0.1:11434`).
 */
export function describeHeadersAt(headers: readonly EndpointHeader[], baseUrl: string | undefined): string[] {
  const at = originOf(baseUrl)
  const unsent = headers.filter((h) => at === undefined || h.origin !== at)
  if (unsent.length === 0) return describeHeaders(headers)
  const endpoint = at ?? baseUrl ?? 'none'
  const groups = new Map<string | undefined, number>()
  for (const h of unsent) groups.set(h.origin, (groups.get(h.origin) ?? 0) + 1)
  const why = [...groups].map(([origin, count]) => {
    const n = `${count} header${count === 1 ? '' : 's'}`
    return origin === undefined
      ? `${n} not sent: no baseUrl was configured (a server found by probing gets none), endpoint is ${endpoint}`
      : `${n} not sent: configured for ${origin}, endpoint is ${endpoint}`
  })
  return [
    ...why,
    ...describeHeaders(headers).map((line, i) =>
      unsent.includes(headers[i] as EndpointHeader) ? `${line}, not sent` : line,
    ),
  ]
}

/**
 * A value as `/context` shows it: never whole (a gateway key is a secret). Long values keep their first
 * and last two characters, which tell two keys apart; short ones show only their length.
 */
export function redactHeaderValue(value: string): string {
  if (value.length >= 16) return `${value.slice(0, 2)}…${value.slice(-2)} (${value.length} characters)`
  return `••• (${value.length} character${value.length === 1 ? '' : 's'})`
}

/** `x-portkey-provider: op…ai (12 characters) (settings)`, one per header. */
export function describeHeaders(headers: readonly EndpointHeader[]): string[] {
  return headers.map((h) => `${h.name}: ${redactHeaderValue(h.value)} (${FROM[h.from]})`)
}

const FROM: Record<EndpointHeader['from'], string> = {
  settings: 'settings',
  env: 'AGENT_TUI_CUSTOM_HEADERS',
  flag: '--header',
}
