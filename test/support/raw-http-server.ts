import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { afterEach } from 'vitest'

/** Answers one request whose body has been read whole. */
export type RawHandler = (req: IncomingMessage, body: string, res: ServerResponse) => void

export interface RawServer {
  url: string
  /** Connections opened so far (keep-alive reuse shows as one). */
  connections: Socket[]
  seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[]
  /** Stops listening (dropping open connections). */
  close(): Promise<void>
}

/**
 * A bare HTTP server on 127.0.0.1 whose handler writes the response byte by byte as a test needs it:
 * for the transport-level faults and body shapes the scripted OpenAI server does not produce.
 */
export async function startRawServer(handler: RawHandler): Promise<RawServer> {
  const server: Server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (d: string) => {
      body += d
    })
    req.on('end', () => {
      out.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body })
      handler(req, body, res)
    })
  })
  const out: RawServer = {
    url: '',
    connections: [],
    seen: [],
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
  server.on('connection', (socket) => out.connections.push(socket))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')
  out.url = `http://127.0.0.1:${address.port}`
  return out
}

/** Resolves once `check` holds, polling once per event-loop turn. */
export function until(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = () => (check() ? resolve() : setImmediate(poll))
    poll()
  })
}

/** For a test file: a `serve` that starts raw servers, all closed after each test. */
export function rawServers(): (handler: RawHandler) => Promise<RawServer> {
  const open: RawServer[] = []
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => server.close()))
  })
  return async (handler) => {
    const server = await startRawServer(handler)
    open.push(server)
    return server
  }
}
