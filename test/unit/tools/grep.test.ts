import { mkdir, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { grepTool } from '../../../source/tools/grep.js'
import { createTestEnv, run, runError, type TestEnv } from './helpers.js'

let env: TestEnv
beforeEach(async () => {
  env = await createTestEnv()
  const write = async (rel: string, content: string, mtime: number) => {
    const file = join(env.workspace, rel)
    await mkdir(join(file, '..'), { recursive: true })
    await writeFile(file, content)
    await utimes(file, mtime, mtime)
  }
  await write('src/a.ts', 'import x\nconst Needle = 1\nother\nneedle again\n', 1_000)
  await write('src/b.ts', 'nothing here\n', 2_000)
  await write('src/c.py', 'needle = True\n', 3_000)
  await write('.gitignore', 'dist/\n', 1_000)
  await write('dist/bundle.js', 'needle in build output\n', 4_000)
})
afterEach(async () => {
  await env.cleanup()
})

describe('Grep', () => {
  it('lists files with matches newest first, skipping ignored files', async () => {
    const result = await run(grepTool, { pattern: 'needle' }, env.ctx)
    expect(result.forModel).toBe('Found 2 files\nsrc/c.py\nsrc/a.ts')
  })

  it('shows content with line numbers, case-insensitively and with context', async () => {
    const plain = await run(grepTool, { pattern: 'needle', output_mode: 'content', '-i': true }, env.ctx)
    expect(plain.forModel).toBe(
      'src/a.ts:2:const Needle = 1\nsrc/a.ts:4:needle again\nsrc/c.py:1:needle = True',
    )
    const context = await run(
      grepTool,
      { pattern: 'Needle', output_mode: 'content', '-C': 1, path: 'src/a.ts' },
      env.ctx,
    )
    expect(context.forModel).toBe('src/a.ts-1-import x\nsrc/a.ts:2:const Needle = 1\nsrc/a.ts-3-other')
    const noNumbers = await run(
      grepTool,
      { pattern: 'Needle', output_mode: 'content', '-n': false, path: 'src' },
      env.ctx,
    )
    expect(noNumbers.forModel).toBe('src/a.ts:const Needle = 1')
  })

  it('separates non-adjacent context groups with --', async () => {
    await writeFile(join(env.workspace, 'g.txt'), 'hit\n1\n2\n3\n4\nhit\n')
    const result = await run(
      grepTool,
      { pattern: 'hit', output_mode: 'content', '-A': 1, path: 'g.txt' },
      env.ctx,
    )
    expect(result.forModel).toBe('g.txt:1:hit\ng.txt-2-1\n--\ng.txt:6:hit')
  })

  it('counts matching lines per file', async () => {
    const result = await run(grepTool, { pattern: 'needle', output_mode: 'count', '-i': true }, env.ctx)
    expect(result.forModel).toBe('3 matching lines in 2 files\nsrc/a.ts:2\nsrc/c.py:1')
  })

  it('filters by glob and type', async () => {
    expect((await run(grepTool, { pattern: 'needle', glob: '*.py' }, env.ctx)).forModel).toBe(
      'Found 1 file\nsrc/c.py',
    )
    expect((await run(grepTool, { pattern: 'needle', type: 'ts' }, env.ctx)).forModel).toBe(
      'Found 1 file\nsrc/a.ts',
    )
  })

  it('returns ripgrep’s message for an invalid regex as a validation error', async () => {
    const error = await runError(grepTool, { pattern: 'foo(' }, env.ctx)
    expect(error.category).toBe('validation')
    expect(error.message).toContain('regex parse error')
    expect(error.message).toContain('unclosed group')
  })

  it('pages content with head_limit and offset', async () => {
    await writeFile(
      join(env.workspace, 'many.txt'),
      Array.from({ length: 10 }, (_, i) => `match ${i + 1}`).join('\n'),
    )
    const page = await run(
      grepTool,
      { pattern: 'match', path: 'many.txt', output_mode: 'content', head_limit: 3, offset: 3 },
      env.ctx,
    )
    expect(page.forModel).toBe(
      'many.txt:4:match 4\nmany.txt:5:match 5\nmany.txt:6:match 6\n[Showing results 4–6. Use offset=6 to see more.]',
    )
    const last = await run(
      grepTool,
      { pattern: 'match', path: 'many.txt', output_mode: 'content', head_limit: 3, offset: 9 },
      env.ctx,
    )
    expect(last.forModel).toBe('many.txt:10:match 10')
  })

  it('pages file lists and says when nothing matches', async () => {
    const first = await run(grepTool, { pattern: 'needle', head_limit: 1 }, env.ctx)
    expect(first.forModel).toBe(
      'Found 2 files\nsrc/c.py\n[Showing results 1–1 of 2. Use offset=1 to see more.]',
    )
    const none = await run(grepTool, { pattern: 'absent-text' }, env.ctx)
    expect(none.forModel).toBe('No matches for /absent-text/ in the workspace root.')
  })

  it('stops when the signal is already aborted', async () => {
    env.controller.abort()
    const error = await runError(grepTool, { pattern: 'needle' }, env.ctx)
    expect(error.category).toBe('aborted')
  })

  it('reports a missing path as not found', async () => {
    const error = await runError(grepTool, { pattern: 'x', path: 'nowhere' }, env.ctx)
    expect(error.category).toBe('not_found')
  })

  it('leaves secrets files out of a directory search: they ask when read one by one', async () => {
    await writeFile(join(env.workspace, '.env'), 'OPENAI_API_KEY=sk-live-needle\n')
    await writeFile(join(env.workspace, '.ENV.local'), 'TOKEN=needle\n')
    await mkdir(join(env.workspace, 'keys'))
    await writeFile(join(env.workspace, 'keys', 'server.pem'), 'needle PRIVATE KEY\n')
    await mkdir(join(env.workspace, 'home', '.ssh'), { recursive: true })
    await writeFile(join(env.workspace, 'home', '.ssh', 'config'), 'needle\n')
    await writeFile(join(env.workspace, '.npmrc'), '//registry/:_authToken=needle\n')
    const all = await run(grepTool, { pattern: 'needle', output_mode: 'content' }, env.ctx)
    expect(all.forModel).not.toMatch(/sk-live|TOKEN=|PRIVATE KEY|_authToken|\.ssh/)
    expect(all.forModel).toContain('src/a.ts:4:needle again')
    // A glob of the model's own cannot bring them back.
    const asked = await run(grepTool, { pattern: 'needle', glob: '.env', output_mode: 'content' }, env.ctx)
    expect(asked.forModel).not.toContain('sk-live')
    // Named directly, the file is searched: the permission check has asked about it.
    const named = await run(grepTool, { pattern: 'needle', path: '.env', output_mode: 'content' }, env.ctx)
    expect(named.forModel).toContain('sk-live-needle')
    // So is a secret store named as the root.
    const store = await run(
      grepTool,
      { pattern: 'needle', path: 'home/.ssh', output_mode: 'content' },
      env.ctx,
    )
    expect(store.forModel).toContain('config:1:needle')
  })
})
