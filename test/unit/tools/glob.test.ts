import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { globTool } from '../../../source/tools/glob.js'
import { createTestEnv, run, runError, type TestEnv } from './helpers.js'

let env: TestEnv
beforeEach(async () => {
  env = await createTestEnv()
})
afterEach(async () => {
  await env.cleanup()
})

async function touch(rel: string, mtimeSec: number, content = 'x'): Promise<void> {
  const file = join(env.workspace, rel)
  await mkdir(join(file, '..'), { recursive: true })
  await writeFile(file, content)
  await utimes(file, mtimeSec, mtimeSec)
}

const lines = (text: string) => text.split('\n')

describe('Glob', () => {
  it('lists matches newest first with workspace-relative paths', async () => {
    await touch('src/old.ts', 1_000)
    await touch('src/new.ts', 3_000)
    await touch('src/lib/mid.ts', 2_000)
    await touch('src/readme.md', 4_000)
    const result = await run(globTool, { pattern: '**/*.ts' }, env.ctx)
    expect(lines(result.forModel)).toEqual(['src/new.ts', 'src/lib/mid.ts', 'src/old.ts'])
    expect(result.display).toEqual({
      kind: 'list',
      count: 3,
      truncated: false,
      items: ['src/new.ts', 'src/lib/mid.ts', 'src/old.ts'],
    })
  })

  it('uses glob semantics: no slash means the search directory only', async () => {
    await touch('top.ts', 1_000)
    await touch('nested/deep.ts', 2_000)
    expect((await run(globTool, { pattern: '*.ts' }, env.ctx)).forModel).toBe('top.ts')
    expect((await run(globTool, { pattern: '*.ts', path: 'nested' }, env.ctx)).forModel).toBe(
      'nested/deep.ts',
    )
    expect((await run(globTool, { pattern: 'nested/*.ts' }, env.ctx)).forModel).toBe('nested/deep.ts')
    const abs = await run(globTool, { pattern: join(env.workspace, 'nested', '*.ts') }, env.ctx)
    expect(abs.forModel).toBe('nested/deep.ts')
  })

  it('caps the list at 100 and says it was truncated', async () => {
    for (let i = 0; i < 120; i++) await touch(`many/f${String(i).padStart(3, '0')}.txt`, 1_000 + i)
    const result = await run(globTool, { pattern: 'many/*.txt' }, env.ctx)
    const out = lines(result.forModel)
    expect(out[0]).toBe('many/f119.txt')
    expect(out[99]).toBe('many/f020.txt')
    expect(out[100]).toContain('Showing the 100 most recently modified of 120 matching files')
    expect(result.display).toMatchObject({ kind: 'list', count: 120, truncated: true })
  })

  it('honours .gitignore outside a git repository, includes hidden files, never .git/', async () => {
    await writeFile(join(env.workspace, '.gitignore'), 'build/\n*.log\n')
    await touch('build/out.js', 1_000)
    await touch('app.log', 1_000)
    await touch('app.js', 2_000)
    await touch('.config/settings.js', 3_000)
    await touch('.git/hooks/pre-commit.js', 4_000)
    const result = await run(globTool, { pattern: '**/*' }, env.ctx)
    expect(lines(result.forModel).sort()).toEqual(['.config/settings.js', '.gitignore', 'app.js'])
  })

  it('does not follow symlinks out of the tree', async () => {
    const outside = join(env.root, 'outside')
    await mkdir(outside)
    await writeFile(join(outside, 'secret.ts'), 'x')
    await symlink(outside, join(env.workspace, 'linked'))
    await symlink(join(outside, 'secret.ts'), join(env.workspace, 'file-link.ts'))
    await touch('real.ts', 1_000)
    const result = await run(globTool, { pattern: '**/*.ts' }, env.ctx)
    expect(result.forModel).toBe('real.ts')
  })

  it('says when nothing matches, and errors for a missing directory', async () => {
    const none = await run(globTool, { pattern: '**/*.rs' }, env.ctx)
    expect(none.forModel).toBe('No files match "**/*.rs" in the workspace root.')
    const error = await runError(globTool, { pattern: '*.ts', path: 'missing' }, env.ctx)
    expect(error.category).toBe('not_found')
  })

  it('labels and targets the search root', () => {
    expect(globTool.summarize({ pattern: '**/*.ts', path: 'src' })).toBe('Glob **/*.ts in src')
    expect(globTool.permissionTarget({ pattern: 'src/**/*.ts' }, env.ctx)).toEqual({
      kind: 'path',
      path: join(env.workspace, 'src'),
      access: 'read',
    })
  })
})
