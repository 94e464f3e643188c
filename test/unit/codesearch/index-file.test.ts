import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getLoadablePath } from 'sqlite-vec'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { indexFileName, openDatabase, openIndexStore } from '../../../source/codesearch/index-store.ts'
import { startEmbeddingsServer } from '../../support/embeddings-server.ts'
import { type CodeSearchFixture, codeSearchFixture } from './fixture.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cs-file-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const open = (path: string, model = 'm', dimensions = 3) =>
  openIndexStore({ root: join(dir, 'state'), path, model, dimensions })

describe('the index file', () => {
  it('is named after the workspace, the model and the dimensions, in safe characters', () => {
    const name = indexFileName('proj-1a2b', 'voyage/Multimodal 3:latest', 1024)
    expect(name).toMatch(/^proj-1a2b\.voyage-multimodal-3-latest-1024d-[0-9a-f]{10}\.sqlite$/)
    expect(indexFileName('k', 'voyage/multimodal', 1024)).not.toBe(
      indexFileName('k', 'voyage-multimodal', 1024),
    )
    expect(indexFileName('k', 'm', 512)).not.toBe(indexFileName('k', 'm', 1024))
    expect(indexFileName('k', '../../..', 8)).toMatch(/^k\.model-8d-[0-9a-f]{10}\.sqlite$/)
    expect(indexFileName('k', 'x'.repeat(300), 8).length).toBeLessThan(80)
  })

  it('is made 0600 in folders made 0700', async () => {
    const path = join(dir, 'state', 'code-search', 'i.sqlite')
    ;(await open(path)).close()
    expect((await stat(join(dir, 'state'))).mode & 0o777).toBe(0o700)
    expect((await stat(join(dir, 'state', 'code-search'))).mode & 0o777).toBe(0o700)
    expect((await stat(path)).mode & 0o777).toBe(0o600)
  })

  it('is refused when its folder is a symbolic link', async () => {
    await mkdir(join(dir, 'state'), { recursive: true })
    await mkdir(join(dir, 'elsewhere'))
    await symlink(join(dir, 'elsewhere'), join(dir, 'state', 'code-search'))
    await expect(open(join(dir, 'state', 'code-search', 'i.sqlite'))).rejects.toThrow(
      /code-search is a symbolic link; agent-tui does not write through links/,
    )
    await expect(stat(join(dir, 'elsewhere', 'i.sqlite'))).rejects.toThrow(/ENOENT/)
  })

  it.each(['i.sqlite', 'i.sqlite-wal'])('is refused when %s is a symbolic link', async (name) => {
    await mkdir(join(dir, 'state', 'code-search'), { recursive: true })
    await writeFile(join(dir, 'victim'), 'precious')
    await symlink(join(dir, 'victim'), join(dir, 'state', 'code-search', name))
    await expect(open(join(dir, 'state', 'code-search', 'i.sqlite'))).rejects.toThrow(
      new RegExp(`${name} is a symbolic link`),
    )
    expect(await readFile(join(dir, 'victim'), 'utf8')).toBe('precious')
  })

  it('leaves no way to load another extension on the connection', async () => {
    const db = openDatabase(join(dir, 'x.sqlite'), getLoadablePath())
    try {
      expect(db.prepare('SELECT vec_version() AS v').get()).toHaveProperty('v')
      expect(() => db.loadExtension(getLoadablePath())).toThrow(/extension loading is not allowed/i)
      expect(() => db.prepare('SELECT load_extension(?)').get(getLoadablePath())).toThrow(/not authorized/)
    } finally {
      db.close()
    }
  })
})

describe('indexes of two models on one workspace', () => {
  let f: CodeSearchFixture
  beforeEach(async () => {
    f = await codeSearchFixture()
  })
  afterEach(async () => {
    await f.dispose()
  })

  it('live side by side: switching back finds the first one whole', async () => {
    const wide = await startEmbeddingsServer({ dimensions: 64 })
    const narrow = await startEmbeddingsServer({ dimensions: 32 })
    try {
      for (const server of [wide, narrow]) {
        const s = f.make(server.baseUrl)
        s.start()
        await s.idle()
        await s.close()
      }
      const again = f.make(wide.baseUrl)
      const before = wide.inputCount()
      again.start()
      await again.idle()
      // The dimension probe only: nothing embedded again.
      expect(wide.inputCount() - before).toBe(1)
      expect((await f.search(again, 'retry backoff')).indexed.files).toBe(3)
    } finally {
      await wide.close()
      await narrow.close()
    }
  })

  it('an endpoint that floods its answer fails the index job with an error naming it', async () => {
    const server: Server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.on('error', () => {})
        const piece = '1,'.repeat(32 * 1024)
        const more = () => {
          while (!res.destroyed) if (!res.write(piece)) return void res.once('drain', more)
        }
        res.write('{"data":[{"index":0,"embedding":[')
        more()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
    try {
      const s = f.make(url, { endpoint: { baseUrl: url, model: 'embed-test', dimensions: 8 } })
      s.start()
      await s.idle()
      const failed = f.updates.at(-1)
      expect(failed?.status).toBe('failed')
      expect(failed?.lastLine).toContain(`${url}/embeddings sent more than`)
      expect(f.notices[0]).toContain(`${url}/embeddings sent more than`)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
