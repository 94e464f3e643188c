import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createEmbedder, MAX_DIMENSIONS } from '../../../source/codesearch/embeddings.ts'

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
