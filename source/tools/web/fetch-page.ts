import type { IncomingHttpHeaders } from 'node:http'
import { type AddressClass, describeAddressClass } from '../../util/address-class.js'
import { ToolError } from '../types.js'
import { contentKind } from './content.js'
import { type HttpResponse, sendHttpRequest } from './http-request.js'
import { resolveHost } from './resolve.js'
import { MAX_REDIRECTS } from './limits.js'
import type { HostResolver, ResolvedAddress } from './types.js'

/** Decoded bytes of one body kept; a larger page is cut there (and says so). */
export const MAX_BODY_BYTES = 5 * 1024 * 1024

const USER_AGENT = 'Mozilla/5.0 (compatible; agent-tui WebFetch)'
const ACCEPT = 'text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.5'

/** A URL as the permission check judged it: the address class consented to and the pinned addresses. */
export interface JudgedUrl {
  url: URL
  addresses: ResolvedAddress[]
  cls: AddressClass
}

export type FetchOutcome =
  | {
      kind: 'response'
      url: URL
      /** URLs left by same-host redirects, in order. */
      redirects: string[]
      response: HttpResponse
    }
  | { kind: 'cross-host'; from: URL; to: URL; status: number; redirects: string[] }

export interface FetchOptions {
  resolver: HostResolver
  signal: AbortSignal
  maxBytes?: number
}

/** Hosts that differ only by a leading `www.` count as one site (Claude Code does the same). */
export function sameSite(a: URL, b: URL): boolean {
  const strip = (host: string) => host.toLowerCase().replace(/^www\./, '')
  return strip(a.hostname) === strip(b.hostname)
}

/**
 * GETs a judged URL, following up to ten redirects within the same site. Every hop connects only to
 * addresses of the class the user consented to: the same host stays pinned to the judged addresses;
 * a `www.` sibling is resolved and must land in the same class, else the call fails with a permission
 * error naming the address. A redirect to another host is not followed but returned, so the model can
 * fetch it as a new call with its own permission check.
 */
export async function fetchJudged(judged: JudgedUrl, opts: FetchOptions): Promise<FetchOutcome> {
  let url = judged.url
  let addresses = judged.addresses
  const redirects: string[] = []
  const seen = new Set([url.href])
  for (;;) {
    const response = await sendHttpRequest({
      url,
      addresses,
      headers: { 'user-agent': USER_AGENT, accept: ACCEPT },
      signal: opts.signal,
      maxBytes: opts.maxBytes ?? MAX_BODY_BYTES,
      wantBody: (status, headers) =>
        !isRedirect(status, headers) && contentKind(headers['content-type']) !== 'binary',
    })
    if (!isRedirect(response.status, response.headers)) return { kind: 'response', url, redirects, response }
    const next = redirectTarget(url, String(response.headers.location))
    if (!sameSite(url, next))
      return { kind: 'cross-host', from: url, to: next, status: response.status, redirects }
    if (seen.has(next.href)) {
      throw new ToolError('network', `redirect loop: ${[...redirects, url.href, next.href].join(' → ')}`, {
        hint: 'the server redirects in a circle; try another URL',
      })
    }
    if (redirects.length + 1 > MAX_REDIRECTS) {
      throw new ToolError('network', `stopped after ${MAX_REDIRECTS} redirects (last to ${next.href})`, {
        hint: 'try the final URL directly or another source',
      })
    }
    if (next.hostname.toLowerCase() !== url.hostname.toLowerCase()) {
      const hop = await resolveHost(next.hostname, opts.resolver, opts.signal)
      if (hop.cls !== judged.cls) throw classChanged(next, hop.addresses, hop.cls, judged.cls)
      addresses = hop.addresses
    }
    redirects.push(url.href)
    seen.add(next.href)
    url = next
  }
}

function isRedirect(status: number, headers: IncomingHttpHeaders): boolean {
  return [301, 302, 303, 307, 308].includes(status) && typeof headers.location === 'string'
}

function redirectTarget(from: URL, location: string): URL {
  let next: URL
  try {
    next = new URL(location, from)
  } catch {
    throw new ToolError('network', `${from.href} redirected to an invalid address: ${location}`)
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new ToolError('network', `${from.href} redirected to ${next.href}, which is not http(s)`)
  }
  if (next.username || next.password) {
    throw new ToolError('network', `${from.href} redirected to a URL with credentials in it; not followed`)
  }
  return next
}

function classChanged(to: URL, addresses: ResolvedAddress[], cls: AddressClass, consented: AddressClass) {
  const list = addresses.map((a) => a.address).join(', ')
  return new ToolError(
    'permission',
    `the page redirected to ${to.href}, which resolves to ${list} (${describeAddressClass(cls)}), not ${describeAddressClass(consented)} like the URL that was allowed; the redirect was not followed`,
    { hint: `if you need it, call WebFetch with url "${to.href}"; it gets its own permission check` },
  )
}
