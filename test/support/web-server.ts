/**
 * A small web server on 127.0.0.1 for WebFetch/WebSearch tests: routes by path, records every request
 * (path, Host header, body), and can hold a request open forever (for timeouts). Only `node:` imports.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface SeenRequest {
  method: string
  path: string
  host: string
  headers: Record<string, string | string[] | undefined>
  body: string
}

export type Route = (req: IncomingMessage, res: ServerResponse, body: string) => void

export interface WebServer {
  /** `http://127.0.0.1:<port>` */
  origin: string
  port: number
  requests: SeenRequest[]
  route(path: string, handler: Route): void
  close(): Promise<void>
}

export async function startWebServer(routes: Record<string, Route> = {}): Promise<WebServer> {
  const table = new Map(Object.entries(routes))
  const requests: SeenRequest[] = []
  const server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8')
      const path = new URL(req.url ?? '/', 'http://x').pathname
      requests.push({
        method: req.method ?? '',
        path,
        host: req.headers.host ?? '',
        headers: req.headers,
        body,
      })
      const handler = table.get(path)
      if (!handler) {
        res.writeHead(404, { 'content-type': 'text/html' })
        res.end('<html><body><h1>Not Found</h1><p>No such page here.</p></body></html>')
        return
      }
      handler(req, res, body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    route: (path, handler) => {
      table.set(path, handler)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Sends `body` with a content type. */
export function send(
  type: string,
  body: string | Buffer,
  status = 200,
  headers: Record<string, string> = {},
): Route {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': type, ...headers })
    res.end(body)
  }
}

export function redirect(location: string, status = 302): Route {
  return (_req, res) => {
    res.writeHead(status, { location })
    res.end()
  }
}

/** Never answers: the request stays open until the client gives up or the server closes. */
export const hang: Route = () => undefined
