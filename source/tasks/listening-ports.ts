import type { ListeningPort } from '../store/domain.js'

/**
 * The pure half of port detection (port-scan.ts reads, port-watch.ts polls): parsers of the kernel's
 * socket tables, of `lsof -F` output and of URLs a job prints, and how they combine into what a user is
 * shown. Everything here is a function of its text, so the tests feed it real samples.
 */

/** A TCP socket in LISTEN state, as a socket table shows it. */
export interface ListenSocket {
  /** The address bound: `127.0.0.1`, `0.0.0.0`, `::`, `::1`, `::ffff:127.0.0.1`. */
  address: string
  port: number
  /** The socket's inode (`socket:[inode]` among a process's fds); 0 when the source has none (lsof). */
  inode: number
}

/** A socket the job holds, and whether the host reaches it (false: the job's own network namespace). */
export interface HeldSocket {
  address: string
  port: number
  reachable: boolean
}

/** A port a job printed, with the URL to open for it. */
export interface PortHint {
  port: number
  url: string
}

/** `st` of /proc/net/tcp*: TCP_LISTEN. */
const TCP_LISTEN = 0x0a

/**
 * The LISTEN sockets of a `/proc/<pid>/net/tcp` or `tcp6` table. Addresses are hex words in the kernel's
 * byte order (little-endian on x86 and arm64), the port is big-endian hex. Malformed lines are skipped.
 */
export function parseProcNetTcp(text: string, endianness: 'LE' | 'BE' = 'LE'): ListenSocket[] {
  const sockets: ListenSocket[] = []
  for (const line of text.split('\n')) {
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
    const fields = line.trim().split(/\s+/)
    if (fields.length < 10 || !/^\d+:$/.test(fields[0] ?? '')) continue
    const [addressHex, portHex] = (fields[1] ?? '').split(':')
    if (Number.parseInt(fields[3] ?? '', 16) !== TCP_LISTEN || !portHex || !/^[0-9A-Fa-f]{4}$/.test(portHex))
      continue
    const address = decodeHexAddress(addressHex ?? '', endianness)
    const inode = Number(fields[9])
    const port = Number.parseInt(portHex, 16)
    if (address === undefined || !Number.isSafeInteger(inode) || port === 0) continue
    sockets.push({ address, port, inode })
  }
  return sockets
}

/** An address of /proc/net/tcp (8 hex digits) or tcp6 (32), written the usual way; undefined if neither. */
export function decodeHexAddress(hex: string, endianness: 'LE' | 'BE' = 'LE'): string | undefined {
  if (!/^(?:[0-9A-Fa-f]{8}){1,4}$/.test(hex) || (hex.length !== 8 && hex.length !== 32)) return undefined
  const bytes: number[] = []
  for (let word = 0; word < hex.length; word += 8) {
    const wordBytes = [0, 2, 4, 6].map((i) => Number.parseInt(hex.slice(word + i, word + i + 2), 16))
    bytes.push(...(endianness === 'LE' ? wordBytes.reverse() : wordBytes))
  }
  if (bytes.length === 4) return bytes.join('.')
  return formatIpv6(bytes)
}

/** RFC 5952 text of 16 bytes: the longest run of zero groups as `::`; IPv4-mapped ones as `::ffff:a.b.c.d`. */
export function formatIpv6(bytes: readonly number[]): string {
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0))
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return `::ffff:${bytes.slice(12).join('.')}`
  let best = { start: -1, length: 0 }
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let end = i
    while (end < 8 && groups[end] === 0) end++
    if (end - i > best.length && end - i >= 2) best = { start: i, length: end - i }
    i = end
  }
  const hex = groups.map((g) => g.toString(16))
  if (best.start === -1) return hex.join(':')
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`
}

/** The inode of a `/proc/<pid>/fd/N` link to a socket (`socket:[12345]`); undefined for anything else. */
export function socketInode(link: string): number | undefined {
  const match = /^socket:\[(\d+)\]$/.exec(link)
  return match ? Number(match[1]) : undefined
}

/**
 * The LISTEN sockets in `lsof -a -iTCP -sTCP:LISTEN -nP -g PGID -Fgn` output, by process group: `p`, `g`
 * and `f` lines name the process, its group and the fd, an `n` line the socket (`*:3000`, `127.0.0.1:5173`,
 * `[::1]:8080`).
 */
export function parseLsofListen(text: string): Map<number, ListenSocket[]> {
  const byGroup = new Map<number, ListenSocket[]>()
  let group: number | undefined
  for (const line of text.split('\n')) {
    const tag = line[0]
    const value = line.slice(1)
    if (tag === 'p') group = undefined
    else if (tag === 'g') group = Number(value)
    else if (tag === 'n' && group !== undefined && Number.isInteger(group)) {
      const match = /^(\*|\[[0-9A-Fa-f:.]+\]|[0-9.]+|[0-9A-Fa-f:]+):(\d+)$/.exec(value)
      if (!match) continue
      const port = Number(match[2])
      if (port < 1 || port > 65535) continue
      const raw = match[1] ?? ''
      const address = raw === '*' ? '0.0.0.0' : raw.replace(/^\[|\]$/g, '')
      const list = byGroup.get(group) ?? []
      list.push({ address, port, inode: 0 })
      byGroup.set(group, list)
    }
  }
  return byGroup
}

// CSI and OSC sequences (colours, links): a dev server's banner bolds the port (`localhost:\e[1m5173\e[22m`).
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g
const URL_IN_TEXT =
  /\bhttps?:\/\/(localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[::1?\]):(\d{1,5})(\/[^\s'"<>`)\]]*)?/gi
const PORT_IN_TEXT =
  /\b(?:listening|running|started|serving|available|ready)\b[^\n]{0,40}?(?:\bport\s+|(?<![\w/.]):|(?:localhost|0\.0\.0\.0|127\.0\.0\.1|\[::1?\]|\*):)(\d{2,5})\b/gi

/**
 * Ports a job printed, oldest first, each once: a loopback URL (`http://localhost:5173/`, kept as printed
 * with its path) or a "listening on :3000" / "running on port 8000" line (`http://localhost:PORT/`). A
 * URL naming another host is never taken: printed text must not send the user's browser elsewhere.
 */
export function portsInOutput(text: string): PortHint[] {
  const clean = text.replace(ANSI, '')
  const hints = new Map<number, PortHint>()
  const add = (port: number, url: string) => {
    if (port >= 1 && port <= 65535 && !hints.has(port)) hints.set(port, { port, url })
  }
  for (const match of clean.matchAll(URL_IN_TEXT)) {
    const host = (match[1] ?? '').toLowerCase()
    const port = Number(match[2])
    // A wildcard address is not somewhere a browser can go; the host's own name for it is.
    const shown = host === '0.0.0.0' || host === '[::]' ? 'localhost' : host
    const scheme = match[0].toLowerCase().startsWith('https') ? 'https' : 'http'
    add(port, `${scheme}://${shown}:${port}${(match[3] ?? '/').slice(0, 200)}`)
  }
  for (const match of clean.matchAll(PORT_IN_TEXT)) {
    const port = Number(match[1])
    add(port, `http://localhost:${port}/`)
  }
  return [...hints.values()]
}

/** Where a browser on this host reaches a socket bound to `address`. */
export function defaultUrl(address: string, port: number): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1]
  const host =
    address === '0.0.0.0' || address === '::'
      ? 'localhost'
      : mapped
        ? mapped
        : address.includes(':')
          ? `[${address}]`
          : address
  return `http://${host}:${port}/`
}

/**
 * What to show for a job: its sockets (when the host could list them) with a URL each, the printed one for
 * the same port when there is one; the printed ports alone only when sockets cannot be seen here (`null`).
 * A socket in a network of its own gets no URL: the host's browser cannot reach it.
 */
export function combinePorts(
  sockets: readonly HeldSocket[] | null,
  hints: readonly PortHint[],
): ListeningPort[] {
  const hinted = new Map(hints.map((h) => [h.port, h.url]))
  const ports: ListeningPort[] =
    sockets === null
      ? hints.map((h) => ({
          address: new URL(h.url).hostname.replace(/^\[|\]$/g, ''),
          port: h.port,
          reachable: true,
          url: h.url,
          seen: 'output',
        }))
      : sockets.map((s) => ({
          address: s.address,
          port: s.port,
          reachable: s.reachable,
          ...(s.reachable ? { url: hinted.get(s.port) ?? defaultUrl(s.address, s.port) } : {}),
          seen: 'socket',
        }))
  const unique = new Map(ports.map((p) => [`${p.address} ${p.port}`, p]))
  return [...unique.values()].sort((a, b) => a.port - b.port || a.address.localeCompare(b.address))
}
