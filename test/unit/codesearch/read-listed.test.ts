import { mkdir, mkdtemp, realpath, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { EmbeddingInput } from '../../../source/codesearch/embeddings.ts'
import { listIndexable } from '../../../source/codesearch/file-list.ts'
import { openIndexStore } from '../../../source/codesearch/index-store.ts'
import { updateIndex } from '../../../source/codesearch/indexer.ts'
import type { Boundary } from '../../../source/permissions/protected-paths.ts'

// A sandboxed command swaps a listed file (or a folder on its way) for a link between the listing and the
// read: nothing of the link's target may be read, embedded or stored.

let root: string
let workspace: string
let outside: string
const SECRET = 'aws_secret_access_key = SECRET-FROM-OUTSIDE'

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'cs-swap-')))
  workspace = join(root, 'ws')
  outside = join(root, 'home', 'aws')
  await mkdir(join(workspace, 'src'), { recursive: true })
  await mkdir(outside, { recursive: true })
  await writeFile(join(outside, 'a.ts'), `${SECRET}\n`)
  await writeFile(join(workspace, 'a.ts'), 'export const a = 1\n')
  await writeFile(join(workspace, 'src', 'b.ts'), 'export const b = 2\n')
  await writeFile(join(workspace, 'keep.ts'), 'export const keep = 3\n')
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const boundary = (): Boundary => ({ workspace, additionalDirs: [], trustedReadDirs: [] })

async function indexAfter(swap: () => Promise<void>, deniedRead?: (abs: string) => string | undefined) {
  const signal = new AbortController().signal
  const listed = await listIndexable({ workspace, boundary: boundary(), images: false, signal })
  expect([...listed.keys()].sort()).toEqual(['a.ts', 'keep.ts', 'src/b.ts'])
  await swap()
  const sent: EmbeddingInput[] = []
  const store = await openIndexStore({
    root,
    path: join(root, 'state', 'i.sqlite'),
    model: 'm',
    dimensions: 2,
  })
  try {
    await updateIndex({
      workspace,
      boundary: boundary(),
      ...(deniedRead ? { deniedRead } : {}),
      listed,
      store,
      signal,
      batchSize: 8,
      onProgress() {},
      embedder: {
        model: 'm',
        url: 'local',
        async embed(inputs) {
          sent.push(...inputs)
          return inputs.map(() => Float32Array.from([1, 0]))
        },
      },
    })
    return { sent: JSON.stringify(sent), files: [...store.files().keys()].sort() }
  } finally {
    store.close()
  }
}

describe('a listed file replaced before it is read', () => {
  it('is not read through a symlink swapped in for it', async () => {
    const got = await indexAfter(async () => {
      await unlink(join(workspace, 'a.ts'))
      await symlink(join(outside, 'a.ts'), join(workspace, 'a.ts'))
    })
    expect(got.sent).not.toContain('SECRET-FROM-OUTSIDE')
    expect(got.files).toEqual(['keep.ts', 'src/b.ts'])
  })

  it('is not read through a folder swapped for a link to a folder outside', async () => {
    await writeFile(join(outside, 'b.ts'), `${SECRET}\n`)
    const got = await indexAfter(async () => {
      await rename(join(workspace, 'src'), join(root, 'src-moved'))
      await symlink(outside, join(workspace, 'src'))
    })
    expect(got.sent).not.toContain('SECRET-FROM-OUTSIDE')
    expect(got.files).toEqual(['a.ts', 'keep.ts'])
  })

  it('is not read when another file took its name (a different inode)', async () => {
    const got = await indexAfter(async () => {
      await rename(join(outside, 'a.ts'), join(workspace, 'a.ts'))
    })
    expect(got.sent).not.toContain('SECRET-FROM-OUTSIDE')
    expect(got.files).toEqual(['keep.ts', 'src/b.ts'])
  })

  it('judges deny rules on the real path when reading', async () => {
    const got = await indexAfter(
      async () => {},
      (abs) => (abs.endsWith('keep.ts') ? 'Read(keep.ts)' : undefined),
    )
    expect(got.files).toEqual(['a.ts', 'src/b.ts'])
  })

  it('still reads every file nothing touched', async () => {
    const got = await indexAfter(async () => {})
    expect(got.files).toEqual(['a.ts', 'keep.ts', 'src/b.ts'])
    expect(got.sent).toContain('export const keep = 3')
  })
})
