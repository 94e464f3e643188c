import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { type EmbeddingsServer, startEmbeddingsServer } from '../../support/embeddings-server.ts'
import { type CodeSearchFixture, codeSearchFixture, png } from './fixture.ts'

let f: CodeSearchFixture
let server: EmbeddingsServer
beforeEach(async () => {
  f = await codeSearchFixture()
  server = await startEmbeddingsServer()
})
afterEach(async () => {
  await f.dispose()
  await server.close()
})

it("Voyage's multimodal shape end to end: a PNG goes as image_base64, an SVG as text, and the diagram is found", async () => {
  await mkdir(join(f.workspace, 'docs'))
  await writeFile(join(f.workspace, 'docs', 'arch.png'), png('Description', 'system architecture diagram'))
  await writeFile(join(f.workspace, 'docs', 'logo.svg'), '<svg><title>company logo</title></svg>')
  const s = f.make(server.baseUrl, {
    endpoint: { baseUrl: server.baseUrl, model: 'embed-test', api: 'voyage-multimodal' },
    images: true,
  })
  s.start()
  await s.idle()
  expect(new Set(server.requests.map((r) => r.path))).toEqual(new Set(['/v1/multimodalembeddings']))
  const parts = server.requests.flatMap((r) => r.inputs as Array<{ content: Array<Record<string, string>> }>)
  const image = parts.find((p) => p.content[0]?.type === 'image_base64')
  expect(image?.content[0]?.image_base64?.startsWith('data:image/png;base64,iVBORw0KGgo')).toBe(true)
  // Voyage takes no SVG: it is indexed as its text.
  const svg = parts.find((p) => p.content[0]?.text?.startsWith('docs/logo.svg:'))
  expect(svg?.content[0]?.type).toBe('text')
  expect(f.updates.at(-1)).toMatchObject({ status: 'completed' })
  expect((await f.search(s, 'the architecture diagram')).hits[0]?.path).toBe('docs/arch.png')
})
