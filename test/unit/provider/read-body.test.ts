import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { createNodeFetch } from '../../../source/provider/node-fetch.js'
import { readChunks } from '../../../source/provider/read-chunks.js'
import { rawServers, until } from '../../support/raw-http-server.ts'

const serve = rawServers()

describe('node fetch: readText', () => {
  it('hands the body over as text while it arrives, a character split between chunks whole', async () => {
    let release = () => {}
    const euro = Buffer.from('€')
    const server = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(Buffer.concat([Buffer.from('price '), euro.subarray(0, 1)]))
      release = () => res.end(Buffer.concat([euro.subarray(1), Buffer.from(' 5')]))
    })
    const fetch = createNodeFetch()
    const response = await fetch(server.url, { method: 'POST', body: '{}' })
    const parts: string[] = []
    const done = fetch.readText(response, (text) => {
      parts.push(text)
      if (parts.length === 1) release()
    })
    await done
    expect(parts[0]).toBe('price ')
    expect(parts.join('')).toBe('price € 5')
  })

  it('reads a body the server already finished before anyone asked, and a gzip-encoded one', async () => {
    const server = await serve((req, _body, res) => {
      if (req.url === '/gz') res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('zipped'))
      else res.end('whole')
    })
    const fetch = createNodeFetch()
    for (const [path, expected] of [
      ['/', 'whole'],
      ['/gz', 'zipped'],
    ]) {
      const response = await fetch(`${server.url}${path}`, { method: 'POST', body: '{}' })
      await new Promise((resolve) => setTimeout(resolve, 20))
      let text = ''
      await fetch.readText(response, (part) => {
        text += part
      })
      expect(text).toBe(expected)
    }
  })

  it('rejects with what the reader threw and closes the body', async () => {
    let closed = false
    const server = await serve((_req, _body, res) => {
      res.on('close', () => {
        closed = true
      })
      res.writeHead(200)
      res.write('first')
    })
    const fetch = createNodeFetch()
    const response = await fetch(server.url, { method: 'POST', body: '{}' })
    const failure = new Error('reader failed')
    await expect(
      fetch.readText(response, () => {
        throw failure
      }),
    ).rejects.toBe(failure)
    await until(() => closed)
  })

  it('rejects with an AbortError when aborted mid-body, and as a lost connection when the server hangs up', async () => {
    const server = await serve((req, _body, res) => {
      res.writeHead(200)
      res.write('partial')
      if (req.url === '/hangup') setImmediate(() => res.socket?.destroy())
    })
    const fetch = createNodeFetch()
    const controller = new AbortController()
    const aborted = await fetch(server.url, { method: 'POST', body: '{}', signal: controller.signal })
    const reading = fetch.readText(aborted, () => controller.abort())
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' })
    const cut = await fetch(`${server.url}/hangup`, { method: 'POST', body: '{}' })
    await expect(fetch.readText(cut, () => {})).rejects.toMatchObject({ code: 'ECONNRESET' })
  })

  it('keeps one reader per body: the web stream errors once readText took it, and the other way round', async () => {
    const server = await serve((_req, _body, res) => res.end('body'))
    const fetch = createNodeFetch()
    const taken = await fetch(server.url, { method: 'POST', body: '{}' })
    await fetch.readText(taken, () => {})
    await expect(taken.text()).rejects.toThrow(/already taken/)
    const streamed = await fetch(server.url, { method: 'POST', body: '{}' })
    const reader = (streamed.body as ReadableStream<Uint8Array>).getReader()
    const first = await reader.read()
    reader.releaseLock()
    let rest = ''
    // A body already opened as a web stream is read through it: nothing is lost or read twice.
    await fetch.readText(streamed, (text) => {
      rest += text
    })
    expect(new TextDecoder().decode(first.value) + rest).toBe('body')
  })

  it("reads a response that is not this fetch's own", async () => {
    const parts: string[] = []
    await createNodeFetch().readText(new Response('made elsewhere'), (text) => parts.push(text))
    expect(parts.join('')).toBe('made elsewhere')
  })
})

describe('readChunks', () => {
  async function chunksOf(contentType: string, body: string): Promise<unknown[]> {
    const server = await serve((_req, _b, res) =>
      res.writeHead(200, { 'content-type': contentType }).end(body),
    )
    const fetch = createNodeFetch()
    const response = await fetch(server.url, { method: 'POST', body: '{}' })
    const chunks: unknown[] = []
    await readChunks(fetch, response, (chunk) => chunks.push(chunk))
    return chunks
  }

  it('parses each data event up to [DONE] and ignores what follows it', async () => {
    const body = 'data: {"n":1}\n\n: ping\n\ndata: {"n":2}\n\ndata: [DONE]\n\ndata: {"n":3}\n\n'
    expect(await chunksOf('text/event-stream', body)).toEqual([{ n: 1 }, { n: 2 }])
  })

  it('hands an error event on as an error object', async () => {
    const body =
      'event: error\ndata: {"message":"overloaded"}\n\nevent: error\ndata: {"error":{"code":500}}\n\n'
    expect(await chunksOf('text/event-stream', body)).toEqual([
      { error: { message: 'overloaded' } },
      { error: { code: 500 } },
    ])
  })

  it('reads a whole JSON completion from a server that ignored stream: true', async () => {
    const completion = { choices: [{ index: 0, message: { content: 'hi' }, finish_reason: 'stop' }] }
    expect(await chunksOf('application/json; charset=utf-8', JSON.stringify(completion))).toEqual([
      completion,
    ])
  })

  it('throws a SyntaxError for a malformed chunk', async () => {
    await expect(chunksOf('text/event-stream', 'data: {"n":\n\n')).rejects.toBeInstanceOf(SyntaxError)
  })
})
