import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { createNodeFetch } from '../../../source/provider/node-fetch.js'
import { rawServers, until } from '../../support/raw-http-server.ts'

const serve = rawServers()

describe('node fetch', () => {
  it('sends the method, headers and body with its length, and returns status, headers and body', async () => {
    const server = await serve((_req, body, res) => {
      res.writeHead(201, 'Made', { 'x-answer': '42', 'content-type': 'application/json' })
      res.end(JSON.stringify({ echoed: body }))
    })
    const fetch = createNodeFetch()
    const body = JSON.stringify({ text: 'héllo — ✓' })
    const response = await fetch(`${server.url}/v1/chat/completions?x=1`, {
      method: 'post',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body,
    })
    expect(response.status).toBe(201)
    expect(response.statusText).toBe('Made')
    expect(response.ok).toBe(true)
    expect(response.headers.get('x-answer')).toBe('42')
    expect(await response.json()).toEqual({ echoed: body })
    const seen = server.seen[0]
    expect(seen).toMatchObject({ method: 'POST', url: '/v1/chat/completions?x=1', body })
    expect(seen?.headers.authorization).toBe('Bearer k')
    expect(seen?.headers['content-length']).toBe(String(Buffer.byteLength(body)))
    expect(seen?.headers['transfer-encoding']).toBeUndefined()
  })

  it('hands each chunk of a streamed body to the reader before the response ends', async () => {
    let release = () => {}
    const server = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: first\n\n')
      release = () => res.end('data: last\n\n')
    })
    const response = await createNodeFetch()(server.url, { method: 'POST', body: '{}' })
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    const first = await reader.read()
    expect(decoder.decode(first.value)).toBe('data: first\n\n')
    release()
    let rest = ''
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += decoder.decode(r.value)
    expect(rest).toBe('data: last\n\n')
  })

  it('reuses one kept-alive connection for consecutive requests', async () => {
    const server = await serve((_req, _body, res) => res.end('ok'))
    const fetch = createNodeFetch()
    for (let i = 0; i < 3; i++)
      expect(await (await fetch(server.url, { method: 'POST', body: 'x' })).text()).toBe('ok')
    expect(server.connections).toHaveLength(1)
  })

  it('decodes a gzip-encoded body', async () => {
    const server = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' })
      res.end(gzipSync('{"models":[]}'))
    })
    const response = await createNodeFetch()(`${server.url}/v1/models`)
    expect(server.seen[0]?.headers['accept-encoding']).toContain('gzip')
    expect(await response.text()).toBe('{"models":[]}')
  })

  it('follows a 307 with the same method and body, and turns a 303 into a GET', async () => {
    const server = await serve((req, _body, res) => {
      if (req.url === '/old') res.writeHead(307, { location: '/moved' }).end()
      else if (req.url === '/see-other') res.writeHead(303, { location: '/moved' }).end()
      else res.end(`${req.method} ${req.url}`)
    })
    const fetch = createNodeFetch()
    expect(await (await fetch(`${server.url}/old`, { method: 'POST', body: 'b' })).text()).toBe('POST /moved')
    expect(server.seen[1]?.body).toBe('b')
    expect(await (await fetch(`${server.url}/see-other`, { method: 'POST', body: 'b' })).text()).toBe(
      'GET /moved',
    )
    expect(server.seen[3]?.body).toBe('')
  })

  it('drops the credentials when a redirect leaves the origin', async () => {
    const other = await serve((req, _body, res) => res.end(`auth=${req.headers.authorization ?? 'none'}`))
    const server = await serve((_req, _body, res) => res.writeHead(308, { location: `${other.url}/x` }).end())
    const response = await createNodeFetch()(server.url, {
      method: 'POST',
      headers: { authorization: 'Bearer secret' },
      body: '{}',
    })
    expect(await response.text()).toBe('auth=none')
  })

  it("drops the user's endpoint headers with the credentials when a redirect leaves the origin, and keeps them within it", async () => {
    const other = await serve((req, _body, res) =>
      res.end(`key=${req.headers['x-portkey-api-key'] ?? 'none'} trace=${req.headers['x-trace'] ?? 'none'}`),
    )
    const server = await serve((req, _body, res) => {
      if (req.url === '/away') res.writeHead(307, { location: `${other.url}/x` }).end()
      else if (req.url === '/here') res.writeHead(307, { location: '/there' }).end()
      else res.end(`key=${req.headers['x-portkey-api-key'] ?? 'none'}`)
    })
    const fetch = createNodeFetch({ originOnlyHeaders: ['X-Portkey-Api-Key'] })
    const init = {
      method: 'POST',
      headers: { 'X-Portkey-Api-Key': 'pk-secret', 'x-trace': 't1' },
      body: '{}',
    }
    expect(await (await fetch(`${server.url}/away`, init)).text()).toBe('key=none trace=t1')
    expect(await (await fetch(`${server.url}/here`, init)).text()).toBe('key=pk-secret')
  })

  it('gives no body for a 204', async () => {
    const server = await serve((_req, _body, res) => res.writeHead(204).end())
    const response = await createNodeFetch()(server.url, { method: 'DELETE' })
    expect(response.status).toBe(204)
    expect(response.body).toBeNull()
  })

  it('rejects with an AbortError when aborted before the headers, and the server sees the socket close', async () => {
    let closed = false
    const server = await serve((_req, _body, res) => {
      res.on('close', () => {
        closed = true
      })
    })
    const controller = new AbortController()
    const pending = createNodeFetch()(server.url, { method: 'POST', body: '{}', signal: controller.signal })
    await until(() => server.seen.length === 1)
    controller.abort()
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
    await until(() => closed)
  })

  it('errors the body with an AbortError when aborted mid-stream', async () => {
    const server = await serve((_req, _body, res) => {
      res.writeHead(200)
      res.write('partial')
    })
    const controller = new AbortController()
    const response = await createNodeFetch()(server.url, {
      method: 'POST',
      body: '{}',
      signal: controller.signal,
    })
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    await reader.read()
    controller.abort()
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('errors the body as a lost connection when the server hangs up mid-stream', async () => {
    const server = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: one\n\n')
      setImmediate(() => res.socket?.destroy())
    })
    const response = await createNodeFetch()(server.url, { method: 'POST', body: '{}' })
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    await reader.read()
    await expect(reader.read()).rejects.toMatchObject({ code: 'ECONNRESET' })
  })

  it('errors a compressed body too when the server hangs up mid-stream', async () => {
    const server = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' })
      const whole = gzipSync('data: one\n\n'.repeat(2000))
      res.write(whole.subarray(0, whole.length >> 1))
      setImmediate(() => res.socket?.destroy())
    })
    const response = await createNodeFetch()(server.url, { method: 'POST', body: '{}' })
    await expect(response.text()).rejects.toMatchObject({ code: 'ECONNRESET' })
  })

  it('rejects with the system error when nothing listens', async () => {
    const server = await serve((_req, _body, res) => res.end())
    const url = server.url
    await server.close()
    await expect(createNodeFetch()(url, { method: 'POST', body: '{}' })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    })
  })

  it('rejects at once for a signal that is already aborted, without connecting', async () => {
    const server = await serve((_req, _body, res) => res.end())
    await expect(
      createNodeFetch()(server.url, { method: 'POST', body: '{}', signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ name: 'AbortError' })
    expect(server.connections).toHaveLength(0)
  })

  it('reads the body as text even after its web stream was asked for but not read (as the SDK does)', async () => {
    const server = await serve((_req, _body, res) => res.end('{"ok":true}'))
    const response = await createNodeFetch()(server.url, { method: 'POST', body: '{}' })
    expect(response.body).not.toBeNull()
    expect(response.bodyUsed).toBe(false)
    expect(await response.json()).toEqual({ ok: true })
    expect(response.bodyUsed).toBe(true)
    await expect(response.text()).rejects.toThrow(TypeError)
  })

  it('gives the body as bytes, an ArrayBuffer and a Blob typed by its content-type', async () => {
    const server = await serve((_req, _body, res) =>
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('h\u00e9'),
    )
    const fetch = createNodeFetch()
    const post = () => fetch(server.url, { method: 'POST', body: '{}' })
    expect([...(await (await post()).bytes())]).toEqual([0x68, 0xc3, 0xa9])
    expect(new Uint8Array(await (await post()).arrayBuffer())).toEqual(new Uint8Array([0x68, 0xc3, 0xa9]))
    const blob = await (await post()).blob()
    expect(blob.type).toBe('text/plain; charset=utf-8')
    expect(await blob.text()).toBe('h\u00e9')
  })

  it('clones a response: both read the whole body, and a used one cannot be cloned', async () => {
    const server = await serve((_req, _body, res) => {
      res.writeHead(200, { 'x-n': '1' })
      res.write('part one, ')
      setImmediate(() => res.end('part two'))
    })
    const fetch = createNodeFetch()
    const response = await fetch(server.url, { method: 'POST', body: '{}' })
    const copy = response.clone()
    expect(copy.status).toBe(200)
    expect(copy.headers.get('x-n')).toBe('1')
    expect(await Promise.all([response.text(), copy.text()])).toEqual([
      'part one, part two',
      'part one, part two',
    ])
    expect(() => response.clone()).toThrow(TypeError)
    // A body handed to readText after a clone is read through the shared stream, whole.
    const again = await fetch(server.url, { method: 'POST', body: '{}' })
    const twin = again.clone()
    let streamed = ''
    await fetch.readText(again, (text) => {
      streamed += text
    })
    expect(streamed).toBe('part one, part two')
    expect(await twin.text()).toBe('part one, part two')
  })

  it('refuses a status the Response constructor refuses', async () => {
    const server = await serve((_req, _body, res) => res.writeHead(600).end('odd'))
    await expect(createNodeFetch()(server.url)).rejects.toThrow(RangeError)
  })

  it('hands a body it does not stream itself (form data) to the global fetch', async () => {
    const server = await serve((_req, body, res) => res.end(body))
    const form = new URLSearchParams({ a: '1' })
    const response = await createNodeFetch()(server.url, { method: 'POST', body: form })
    expect(await response.text()).toBe('a=1')
  })
})
