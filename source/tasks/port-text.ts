import type { ListeningPort } from '../store/domain.js'

/**
 * How a job's listening ports are said, to the model (TaskOutput), in the tasks pane and by `o`. Apart from
 * the parsers (listening-ports.ts, loaded with the port watcher) so a session without jobs loads only this.
 */

/** The URL `o` opens: the first port the host reaches. */
export function openableUrl(ports: readonly ListeningPort[] | undefined): string | undefined {
  return ports?.find((p) => p.url !== undefined)?.url
}

/** `127.0.0.1:5173`, `[::]:3000`. */
export function hostPort(port: Pick<ListeningPort, 'address' | 'port'>): string {
  return port.address.includes(':') ? `[${port.address}]:${port.port}` : `${port.address}:${port.port}`
}

/**
 * One line per port for the model and the user: `127.0.0.1:5173 → http://localhost:5173/`, or why there is
 * no URL. Empty when the job listens on nothing.
 */
export function describePorts(ports: readonly ListeningPort[] | undefined): string[] {
  return (ports ?? []).map((p) => {
    const where = hostPort(p)
    if (!p.reachable)
      return `${where} inside the sandbox's own network: not reachable from the host (the sandbox has no network; sandbox.network: true shares the host's)`
    if (p.seen === 'output')
      return `${where} → ${p.url} (printed in its output; its sockets cannot be listed here)`
    return `${where} → ${p.url}`
  })
}

/** The tasks pane's port column: `:3000 :5173`, a port the host cannot reach marked so, at most three. */
export function portColumn(ports: readonly ListeningPort[] | undefined): string {
  if (!ports?.length) return ''
  const shown = ports.slice(0, 3).map((p) => `:${p.port}${p.reachable ? '' : ' unreachable'}`)
  return ports.length > 3 ? `${shown.join(' ')} +${ports.length - 3}` : shown.join(' ')
}

/** What the pane says under a job that listens: the URL `o` opens, or why there is none. */
export function portDetail(ports: readonly ListeningPort[] | undefined): string {
  if (!ports?.length) return ''
  const url = openableUrl(ports)
  if (url) return url
  return `${hostPort(ports[0] as ListeningPort)} is inside the sandbox's own network`
}
