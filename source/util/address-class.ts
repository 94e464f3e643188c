import { isIPv4, isIPv6 } from 'node:net'

/**
 * Where an IP address leads. Everything but `public` reaches this machine, its network or its cloud
 * metadata service, which is what a prompt-injected fetch would aim at, so those need explicit consent.
 */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'reserved'

const DESCRIPTION: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'a loopback address (this machine)',
  private: 'a private network address',
  'link-local': 'a link-local address (the local link, cloud metadata services)',
  unspecified: 'an unspecified address (reaches this machine)',
  reserved: 'a reserved, multicast or broadcast address',
}

export function describeAddressClass(cls: AddressClass): string {
  return cls === 'public' ? 'a public address' : DESCRIPTION[cls]
}

/** Host names that mean this machine whatever DNS says. */
export function isLocalHostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '')
  return h === 'localhost' || h.endsWith('.localhost')
}

/** Strips the brackets a URL puts around an IPv6 literal (`[::1]` → `::1`). */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname
}

/**
 * Classifies one IP address (IPv4, IPv6, IPv4-mapped/-compatible, NAT64 and 6to4 forms judged by the
 * IPv4 address they carry). Anything that does not parse is `reserved`, so a malformed address is
 * never taken for a public one.
 */
export function classifyAddress(address: string): AddressClass {
  const bare = bareHost(address).replace(/%.*$/, '') // zone id, e.g. fe80::1%eth0
  if (isIPv4(bare)) return classifyV4(bare.split('.').map(Number))
  if (isIPv6(bare)) {
    const words = parseV6(bare)
    return words ? classifyV6(words) : 'reserved'
  }
  return 'reserved'
}

/**
 * The class a set of addresses is judged by: the first non-public one, because the connection may use
 * any of them. An empty set is `reserved` (nothing to connect to).
 */
export function classifyAddresses(addresses: readonly string[]): AddressClass {
  if (addresses.length === 0) return 'reserved'
  for (const address of addresses) {
    const cls = classifyAddress(address)
    if (cls !== 'public') return cls
  }
  return 'public'
}

function classifyV4(o: number[]): AddressClass {
  const [a = 0, b = 0, c = 0] = o
  if (a === 0) return 'unspecified' // 0.0.0.0/8: Linux connects 0.0.0.0 to this machine
  if (a === 127) return 'loopback'
  if (a === 10) return 'private'
  if (a === 172 && b >= 16 && b <= 31) return 'private'
  if (a === 192 && b === 168) return 'private'
  if (a === 100 && b >= 64 && b <= 127) return 'private' // carrier-grade NAT (RFC 6598)
  if (a === 198 && (b === 18 || b === 19)) return 'private' // benchmarking networks (RFC 2544)
  if (a === 169 && b === 254) return 'link-local'
  if (a === 192 && b === 0 && c === 0) return 'reserved' // IETF protocol assignments
  if (a >= 224) return 'reserved' // multicast, class E, broadcast
  return 'public'
}

function classifyV6(w: number[]): AddressClass {
  const zeroUpTo = (n: number) => w.slice(0, n).every((x) => x === 0)
  if (zeroUpTo(8)) return 'unspecified'
  if (zeroUpTo(7) && w[7] === 1) return 'loopback'
  const v4 = embeddedV4(w)
  if (v4) return classifyV4(v4)
  const first = w[0] ?? 0
  if ((first & 0xfe00) === 0xfc00) return 'private' // fc00::/7 unique local
  if ((first & 0xffc0) === 0xfe80) return 'link-local' // fe80::/10
  if ((first & 0xffc0) === 0xfec0) return 'private' // fec0::/10 deprecated site-local
  if ((first & 0xff00) === 0xff00) return 'reserved' // multicast
  return 'public'
}

/** The IPv4 address inside mapped (::ffff:a.b.c.d), compatible (::a.b.c.d), NAT64 (64:ff9b::) and 6to4 (2002::) forms. */
function embeddedV4(w: number[]): number[] | undefined {
  const tail = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]
  const zero = (from: number, to: number) => w.slice(from, to).every((x) => x === 0)
  if (zero(0, 5) && w[5] === 0xffff) return tail(w[6]!, w[7]!)
  if (zero(0, 6)) return tail(w[6]!, w[7]!)
  if (w[0] === 0x64 && w[1] === 0xff9b && zero(2, 6)) return tail(w[6]!, w[7]!)
  if (w[0] === 0x2002) return tail(w[1]!, w[2]!)
  return undefined
}

/** Eight 16-bit words of an IPv6 address (already checked by `isIPv6`), a trailing dotted quad included. */
function parseV6(text: string): number[] | undefined {
  let s = text.toLowerCase()
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s)
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number]
    s = `${s.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', tail] = s.split('::')
  const part = (p: string) => (p === '' ? [] : p.split(':').map((x) => Number.parseInt(x, 16)))
  const left = part(head)
  const right = tail === undefined ? [] : part(tail)
  const fill = 8 - left.length - right.length
  if (fill < 0 || (tail === undefined && fill !== 0)) return undefined
  const words = [...left, ...new Array<number>(fill).fill(0), ...right]
  return words.every((x) => Number.isInteger(x) && x >= 0 && x <= 0xffff) ? words : undefined
}
