import { type IncomingHttpHeaders, type IncomingMessage, request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import type { Readable } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import { bareHost } from '../../util/address-class.js'
import type { ResolvedAddress } from './types.js'

export interface HttpRequest {
  url: URL
  /** Connect only to these addresses (the ones the permission check judged); system DNS when absent. */
  addresses?: readonly ResolvedAddress[]
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  signal: AbortSignal
  /** Bytes of (decoded) body kept; the rest is not read. */
  maxBytes: number
  /** Called with the status and headers; returning false skips the body (e.g. binary content). */
  wantBody?: (status: number, headers: IncomingHttpHeaders) => boolean
}

export interface HttpResponse {
  status: number
  statusText: string
  headers: IncomingHttpHeaders
  body: Buffer
  /** The body went past `maxBytes` and was cut there. */
  truncated: boolean
  /** `wantBody` declined the body. */
  skipped: boolean
}

/**
 * One HTTP(S) request over Node's own http/https (no redirects followed, no proxy, a fresh connection):
 * with `addresses`, a custom `lookup` answers DNS for the URL's host with exactly those addresses, so the
 * connection goes where the permission check looked while TLS still verifies the host name. The body is
 * decompressed (gzip, deflate, br) and read up to `maxBytes`.
 */
export function sendHttpRequest(req: HttpRequest): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    if (req.signal.aborted) {
      reject(abortError(req.signal))
      return
    }
    const { url } = req
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    const headers: Record<string, string> = {
      'accept-encoding': 'gzip, deflate, br',
      ...req.headers,
    }
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body))
    let settled = false
    const finish = (fn: () => void) => {
      if (settled) return
      settled = true
      req.signal.removeEventListener('abort', onAbort)
      fn()
    }
    const outgoing = send({
      protocol: url.protocol,
      hostname: bareHost(url.hostname),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: req.method ?? 'GET',
      headers,
      agent: false,
      ...(req.addresses ? { lookup: pinnedLookup(req.addresses) } : {}),
    })
    const onAbort = () => {
      outgoing.destroy()
      finish(() => reject(abortError(req.signal)))
    }
    req.signal.addEventListener('abort', onAbort, { once: true })
    outgoing.on('error', (error) => finish(() => reject(error)))
    outgoing.on('response', (res) => {
      const status = res.statusCode ?? 0
      const base = { status, statusText: res.statusMessage ?? '', headers: res.headers }
      if (req.wantBody && !req.wantBody(status, res.headers)) {
        res.destroy()
        outgoing.destroy()
        finish(() => resolve({ ...base, body: Buffer.alloc(0), truncated: false, skipped: true }))
        return
      }
      readBody(res, req.maxBytes).then(
        ({ body, truncated }) => {
          outgoing.destroy()
          finish(() => resolve({ ...base, body, truncated, skipped: false }))
        },
        (error: unknown) => finish(() => reject(error)),
      )
    })
    outgoing.end(req.body)
  })
}

function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = typeof options === 'object' ? options.family : options
    const wanted = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses
    if (wanted.length === 0) {
      const error = Object.assign(new Error(`no IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' })
      callback(error, '', 0)
      return
    }
    if (typeof options === 'object' && options.all) {
      ;(callback as unknown as (err: null, all: ResolvedAddress[]) => void)(null, [...wanted])
      return
    }
    callback(null, wanted[0]!.address, wanted[0]!.family)
  }
}

function decoder(res: IncomingMessage): Readable {
  const encoding = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase()
  if (encoding === 'gzip' || encoding === 'x-gzip') return res.pipe(createGunzip())
  if (encoding === 'deflate') return res.pipe(createInflate())
  if (encoding === 'br') return res.pipe(createBrotliDecompress())
  return res
}

/** Reads at most `max` decoded bytes; a body that decompresses to more is cut, never held whole. */
function readBody(res: IncomingMessage, max: number): Promise<{ body: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const stream = decoder(res)
    const parts: Buffer[] = []
    let size = 0
    let done = false
    const end = (truncated: boolean) => {
      if (done) return
      done = true
      resolve({ body: Buffer.concat(parts), truncated })
    }
    stream.on('data', (chunk: Buffer) => {
      if (done) return
      const room = max - size
      if (chunk.length >= room) {
        parts.push(chunk.subarray(0, room))
        size = max
        res.destroy()
        if (stream !== res) stream.destroy()
        end(chunk.length > room || !res.complete)
        return
      }
      parts.push(chunk)
      size += chunk.length
    })
    stream.on('end', () => end(false))
    stream.on('error', (error) => {
      if (!done) {
        done = true
        reject(error)
      }
    })
    res.on('error', (error) => {
      if (!done) {
        done = true
        reject(error)
      }
    })
    res.on('aborted', () => {
      if (!done) {
        done = true
        reject(new Error('the server closed the connection before the body was complete'))
      }
    })
  })
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  if (reason instanceof Error) return reason
  return Object.assign(new Error('aborted'), { name: 'AbortError' })
}
