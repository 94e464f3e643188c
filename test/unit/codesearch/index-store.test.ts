import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type IndexStore, openIndexStore } from '../../../source/codesearch/index-store.ts'

const v = (...xs: number[]) => Float32Array.from(xs)
const chunk = (startLine: number, vector: Float32Array) => ({
  startLine,
  endLine: startLine + 1,
  snippet: `s${startLine}`,
  vector,
})

let dir: string
let open: IndexStore[] = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cs-store-'))
})
afterEach(async () => {
  for (const s of open) s.close()
  open = []
  await rm(dir, { recursive: true, force: true })
})
const openAt = async (model = 'm', dimensions = 3) => {
  const s = await openIndexStore({ root: dir, path: join(dir, 'state', 'i.sqlite'), model, dimensions })
  open.push(s)
  return s
}

describe('the index store', () => {
  it('finds the nearest chunks by cosine similarity, best first', async () => {
    const s = await openAt()
    s.putFile('a.ts', { mtimeMs: 1, size: 1, hash: 'a' }, [chunk(1, v(1, 0, 0)), chunk(5, v(0, 1, 0))])
    s.putFile('b.ts', { mtimeMs: 1, size: 1, hash: 'b' }, [chunk(1, v(0.9, 0.1, 0))])
    const hits = s.search(v(1, 0, 0), 2)
    expect(hits.map((h) => [h.path, h.startLine])).toEqual([
      ['a.ts', 1],
      ['b.ts', 1],
    ])
    expect(hits[0]?.score).toBeCloseTo(1, 5)
    expect(hits[0]?.snippet).toBe('s1')
    expect(s.counts()).toEqual({ files: 2, chunks: 3 })
    expect((await stat(join(dir, 'state'))).mode & 0o777).toBe(0o700)
  })

  it('putFile replaces a file; removeFile forgets it, vectors too', async () => {
    const s = await openAt()
    s.putFile('a.ts', { mtimeMs: 1, size: 1, hash: 'a' }, [chunk(1, v(1, 0, 0)), chunk(2, v(1, 0, 0))])
    s.putFile('a.ts', { mtimeMs: 2, size: 2, hash: 'b' }, [chunk(9, v(0, 0, 1))])
    expect(s.counts()).toEqual({ files: 1, chunks: 1 })
    expect(s.files().get('a.ts')).toEqual({ mtimeMs: 2, size: 2, hash: 'b' })
    expect(s.search(v(1, 0, 0), 5).map((h) => h.startLine)).toEqual([9])
    s.removeFile('a.ts')
    expect(s.counts()).toEqual({ files: 0, chunks: 0 })
    expect(s.search(v(1, 0, 0), 5)).toEqual([])
  })

  it('searches below a folder only when asked, and not a folder whose name only starts alike', async () => {
    const s = await openAt()
    s.putFile('src/a.ts', { mtimeMs: 1, size: 1, hash: 'a' }, [chunk(1, v(0, 1, 0))])
    s.putFile('srcx/b.ts', { mtimeMs: 1, size: 1, hash: 'b' }, [chunk(1, v(1, 0, 0))])
    s.putFile('c.ts', { mtimeMs: 1, size: 1, hash: 'c' }, [chunk(1, v(1, 0, 0))])
    expect(s.search(v(1, 0, 0), 5, 'src').map((h) => h.path)).toEqual(['src/a.ts'])
    expect(s.search(v(1, 0, 0), 5, 'src/a.ts').map((h) => h.path)).toEqual(['src/a.ts'])
  })

  it('keeps its content across opens, and starts afresh for another model or dimension', async () => {
    const first = await openAt()
    first.putFile('a.ts', { mtimeMs: 1, size: 1, hash: 'a' }, [chunk(1, v(1, 0, 0))])
    first.close()
    expect((await openAt()).counts().files).toBe(1)
    open.at(-1)?.close()
    expect((await openAt('other')).counts().files).toBe(0)
    open.at(-1)?.close()
    const wider = await openAt('other', 4)
    expect(wider.counts().files).toBe(0)
    expect(() => wider.putFile('a.ts', { mtimeMs: 1, size: 1, hash: 'a' }, [chunk(1, v(1, 0, 0))])).toThrow(
      /3 dimensions for an index of 4/,
    )
    expect(wider.counts().files).toBe(0)
  })
})
