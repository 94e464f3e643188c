import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { type AddressClass, bareHost, classifyAddresses, isLocalHostName } from '../../util/address-class.js'
import { ToolError } from '../types.js'
import type { HostResolver, ResolvedAddress } from './types.js'
import { untilAborted } from '../../util/until-aborted.js'

const RESOLVE_TIMEOUT_MS = 10_000

/** getaddrinfo through Node (so /etc/hosts and the system's resolver settings apply). */
export const systemResolver: HostResolver = async (hostname, signal) => {
  const found = await untilAborted(lookup(hostname, { all: true, verbatim: true }), signal)
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }))
}

export interface Resolution {
  addresses: ResolvedAddress[]
  cls: AddressClass
}

/**
 * The addresses a URL host leads to and their class. IP literals need no lookup; `localhost` names are
 * loopback whatever a resolver answers. Failures are ToolErrors naming the host.
 */
export async function resolveHost(
  hostname: string,
  resolver: HostResolver,
  signal: AbortSignal,
): Promise<Resolution> {
  const host = bareHost(hostname)
  const family = isIP(host)
  if (family === 4 || family === 6) {
    const addresses = [{ address: host, family }] as ResolvedAddress[]
    return { addresses, cls: classifyAddresses([host]) }
  }
  const timeout = AbortSignal.timeout(RESOLVE_TIMEOUT_MS)
  let addresses: ResolvedAddress[]
  try {
    addresses = await resolver(host, AbortSignal.any([signal, timeout]))
  } catch (error) {
    if (signal.aborted) throw error
    if (timeout.aborted) {
      throw new ToolError('timeout', `looking up ${host} took longer than ${RESOLVE_TIMEOUT_MS / 1000} s`, {
        retryable: true,
      })
    }
    const code = (error as { code?: string }).code
    const why = code === 'ENOTFOUND' ? 'no such host' : (code ?? (error as Error).message)
    throw new ToolError('network', `could not resolve ${host}: ${why}`, {
      retryable: code === 'EAI_AGAIN' || code === 'ETIMEOUT',
      hint: code === 'ENOTFOUND' ? 'check the host name for typos' : 'the network or DNS may be down',
    })
  }
  if (addresses.length === 0) throw new ToolError('network', `could not resolve ${host}: no addresses`)
  const cls = isLocalHostName(host) ? 'loopback' : classifyAddresses(addresses.map((a) => a.address))
  return { addresses, cls }
}
