import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createEmbedder,
  MAX_DIMENSIONS,
  MAX_RESPONSE_BYTES,
  responseLimit,
} from '../../../source/codesearch/embeddings.ts'
import { startEmbeddingsServer } from '../../support/embeddings-server.ts'

let server: Server | undefined
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
  server = undefined
})

/** An embeddings endpoint on 127.0.0.1 that answers every request with `data`. */
async function serving(data: unknown[]): Promise<string> {
  server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ object: 'list', data, model: 'm' }))
    })
  })
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
}

const item = (index: unknown, embedding: unknown = [0.1, 0.2]) => ({ object: 'embedding', index, embedding })

describe('an embeddings server that answers wrongly', () => {
  it.each([
    ['an index far past the inputs', [item(0), item(2 ** 31)], /input 2147483648 of 2/],
    ['the same index twice', [item(0), item(0)], /input 0 of 2/],
    ['a negative index', [item(-1), item(0)], /input -1 of 2/],
    ['a fractional index', [item(0.5), item(1)], /input 0.5 of 2/],
    [
      'vectors over the index size',
      [item(0, new Array(MAX_DIMENSIONS + 1).fill(0)), item(1)],
      /over the 8192/,
    ],
  ])('%s is a specific error, never a missing vector', async (_name, data, message) => {
    const embedder = createEmbedder({ baseUrl: await serving(data), model: 'm' })
    await expect(embedder.embed(['a', 'b'], new AbortController().signal)).rejects.toThrow(message)
  })

  it('indexes in any order give each input its own vector', async () => {
    const embedder = createEmbedder({
      baseUrl: await serving([item(1, [2, 2]), item(0, [1, 1])]),
      model: 'm',
    })
    const vectors = await embedder.embed(['a', 'b'], new AbortController().signal)
    expect(vectors.map((v) => [...v])).toEqual([
      [1, 1],
      [2, 2],
    ])
  })
})

/** Answers with `status` and a JSON-looking body of `bytes` bytes, written in 64 KB pieces. */
async function flooding(status: number, bytes: number): Promise<{ url: string; written: () => number }> {
  let written = 0
  server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.write('{"object":"list","data":[{"index":0,"embedding":[')
      const piece = Buffer.from('0.125,'.repeat((64 * 1024) / 6))
      const more = () => {
        while (written < bytes && !res.destroyed) {
          written += piece.length
          if (!res.write(piece)) return void res.once('drain', more)
        }
        res.end('0]}]}')
      }
      res.on('error', () => {})
      more()
    })
  })
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, written: () => written }
}

describe('an embeddings answer too big to be one', () => {
  it('is cut off at what its vectors can take, with an error naming the endpoint', async () => {
    const { url, written } = await flooding(200, 200 * 1024 * 1024)
    const embedder = createEmbedder({ baseUrl: url, model: 'm', dimensions: 4 })
    const error = await embedder.embed(['a'], new AbortController().signal).catch((e: unknown) => e)
    expect(String(error)).toMatch(
      new RegExp(`${url.replace(/[.:/]/g, '\\$&')}/embeddings sent more than \\d+ KB for 1 embedding`),
    )
    // Stopped reading long before the end of it.
    expect(written()).toBeLessThan(200 * 1024 * 1024)
  })

  it('the limit follows the batch and the dimensions, under a ceiling', () => {
    expect(responseLimit(1, 4)).toBeLessThan(responseLimit(64, 4))
    expect(responseLimit(64, 1024)).toBeLessThan(responseLimit(64, 4096))
    expect(responseLimit(64, undefined)).toBe(responseLimit(64, MAX_DIMENSIONS))
    expect(responseLimit(2048, MAX_DIMENSIONS)).toBe(MAX_RESPONSE_BYTES)
  })

  it('an error answer is read only as far as its message needs', async () => {
    const { url } = await flooding(500, 100 * 1024 * 1024)
    const embedder = createEmbedder({ baseUrl: url, model: 'm', dimensions: 4 })
    const error = await embedder.embed(['a'], new AbortController().signal).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message.length).toBeLessThan(70 * 1024)
  }, 30_000)
})

describe("Voyage's multimodal shape", () => {
  it('sends inputs as content lists to /multimodalembeddings and reads data[].embedding', async () => {
    const scripted = await startEmbeddingsServer({ dimensions: 16 })
    try {
      const embedder = createEmbedder({
        baseUrl: scripted.baseUrl,
        model: 'embed-test',
        api: 'voyage-multimodal',
        dimensions: 16,
      })
      expect(embedder.url).toBe(`${scripted.baseUrl}/multimodalembeddings`)
      const svg = Buffer.from('<svg><title>system architecture diagram</title></svg>').toString('base64')
      const [text, image] = await embedder.embed(
        ['the architecture diagram', { imageDataUrl: `data:image/svg+xml;base64,${svg}` }],
        new AbortController().signal,
      )
      expect(scripted.requests[0]).toMatchObject({
        path: '/v1/multimodalembeddings',
        dimensions: 16,
        inputs: [
          { content: [{ type: 'text', text: 'the architecture diagram' }] },
          { content: [{ type: 'image_base64', image_base64: `data:image/svg+xml;base64,${svg}` }] },
        ],
      })
      const cosine = [...(text ?? [])].reduce((sum, x, i) => sum + x * (image?.[i] ?? 0), 0)
      expect(cosine).toBeGreaterThan(0.5)
    } finally {
      await scripted.close()
    }
  })
})
