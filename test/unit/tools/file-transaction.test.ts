import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CommitError, commitFiles, type FileOp } from '../../../source/tools/file-transaction.js'

let dir: string
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-commit-')))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const text = (s: string) => new TextEncoder().encode(s)
const write = (name: string, data: string): FileOp => ({
  kind: 'write',
  path: join(dir, name),
  data: text(data),
})

async function snapshot(root = dir): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const e of await readdir(root, { recursive: true, withFileTypes: true })) {
    const abs = join(e.parentPath, e.name)
    out[abs.slice(root.length + 1)] = e.isFile()
      ? await readFile(abs, 'utf8')
      : e.isDirectory()
        ? '<dir>'
        : '<other>'
  }
  return out
}

describe('commitFiles', () => {
  it('writes, replaces and deletes together, leaving no temp or backup names', async () => {
    await writeFile(join(dir, 'a.txt'), 'old a')
    await writeFile(join(dir, 'gone.txt'), 'bye')
    const stats = await commitFiles([
      write('a.txt', 'new a'),
      write('sub/deep/b.txt', 'b'),
      { kind: 'delete', path: join(dir, 'gone.txt') },
    ])
    expect(await snapshot()).toEqual({
      'a.txt': 'new a',
      sub: '<dir>',
      'sub/deep': '<dir>',
      'sub/deep/b.txt': 'b',
    })
    expect(stats[0]?.size).toBe(5)
    expect(stats[2]).toBeUndefined()
  })

  it('puts back every file already renamed when a later step fails, newest first', async () => {
    await writeFile(join(dir, 'a.txt'), 'old a')
    await writeFile(join(dir, 'c.txt'), 'old c')
    const before = await snapshot()
    const seen: number[] = []
    const error = await commitFiles(
      [write('a.txt', 'new a'), write('new/b.txt', 'b'), { kind: 'delete', path: join(dir, 'c.txt') }],
      {
        async before(_op, index) {
          seen.push(index)
          // The last step fails after the first two were renamed into place.
          if (index === 2) throw new Error('the folder changed under us')
        },
      },
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CommitError)
    expect((error as CommitError).op.path).toBe(join(dir, 'c.txt'))
    expect(seen).toEqual([0, 1, 2])
    // The old content back, the made folder gone, no temp files left.
    expect(await snapshot()).toEqual(before)
  })

  it('rolls back when the file system refuses a rename mid-way (a directory appeared at a target)', async () => {
    await writeFile(join(dir, 'a.txt'), 'old a')
    const before = await snapshot()
    const error = await commitFiles([write('a.txt', 'new a'), write('b', 'b')], {
      async before(_op, index) {
        if (index === 1) {
          await mkdir(join(dir, 'b'))
          await writeFile(join(dir, 'b', 'x'), 'x')
        }
      },
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CommitError)
    expect((error as CommitError).op.path).toBe(join(dir, 'b'))
    expect(await snapshot()).toEqual({ ...before, b: '<dir>', 'b/x': 'x' })
  })

  it('changes nothing when a step cannot be prepared (a target is a directory)', async () => {
    await writeFile(join(dir, 'a.txt'), 'old a')
    await mkdir(join(dir, 'd'))
    const before = await snapshot()
    const error = await commitFiles([write('a.txt', 'new a'), write('d', 'x')]).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CommitError)
    expect(await snapshot()).toEqual(before)
  })

  it('refuses to write through a folder that is a symbolic link', async () => {
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-commit-out-')))
    try {
      await symlink(outside, join(dir, 'link'))
      const error = await commitFiles([write('link/evil.txt', 'x')]).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(CommitError)
      expect(existsSync(join(outside, 'evil.txt'))).toBe(false)
    } finally {
      await rm(outside, { recursive: true, force: true })
    }
  })

  it('deletes a symbolic link itself, never what it points to', async () => {
    await writeFile(join(dir, 'target.txt'), 'kept')
    await symlink(join(dir, 'target.txt'), join(dir, 'link.txt'))
    await commitFiles([{ kind: 'delete', path: join(dir, 'link.txt') }])
    expect(await snapshot()).toEqual({ 'target.txt': 'kept' })
  })
})
