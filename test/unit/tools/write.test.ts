import { chmod, lstat, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readTool } from '../../../source/tools/read.js'
import { writeTool } from '../../../source/tools/write.js'
import { createTestEnv, run, runError, type TestEnv } from './helpers.js'

let env: TestEnv
beforeEach(async () => {
  env = await createTestEnv()
})
afterEach(async () => {
  await env.cleanup()
})

describe('Write', () => {
  it('creates a new file and its parent directories', async () => {
    const file = join(env.workspace, 'deep', 'er', 'new.ts')
    const result = await run(writeTool, { file_path: file, content: 'a\nb\n' }, env.ctx)
    expect(await readFile(file, 'utf8')).toBe('a\nb\n')
    expect(result.forModel).toBe('Created deep/er/new.ts (2 lines).')
    expect(result.display).toMatchObject({
      kind: 'diff',
      path: 'deep/er/new.ts',
      added: 2,
      removed: 0,
      created: true,
    })
    const st = await stat(file)
    expect(env.ctx.files.get(file)).toEqual({ mtimeMs: st.mtimeMs, size: st.size })
  })

  it('refuses to overwrite a file that was not read in this session', async () => {
    const file = join(env.workspace, 'existing.txt')
    await writeFile(file, 'keep me\n')
    const error = await runError(writeTool, { file_path: file, content: 'oops' }, env.ctx)
    expect(error.category).toBe('validation')
    expect(error.message).toContain('has not been read')
    expect(error.hint).toContain('Read existing.txt first')
    expect(await readFile(file, 'utf8')).toBe('keep me\n')
  })

  it('overwrites a file after Read and reports the diff summary', async () => {
    const file = join(env.workspace, 'f.txt')
    await writeFile(file, 'one\ntwo\nthree\n')
    await run(readTool, { file_path: file }, env.ctx)
    const result = await run(writeTool, { file_path: file, content: 'one\n2\nthree\nfour\n' }, env.ctx)
    expect(result.forModel).toBe('Updated f.txt (+2 −1 lines).')
    expect(result.display).toMatchObject({ kind: 'diff', added: 2, removed: 1, created: false })
    if (result.display?.kind !== 'diff') throw new Error('expected a diff display')
    expect(result.display.diff).toContain('-two\n+2\n')
    // A write counts as seen: writing again needs no new Read.
    await run(writeTool, { file_path: file, content: 'final\n' }, env.ctx)
    expect(await readFile(file, 'utf8')).toBe('final\n')
  })

  it('refuses a stale write after the file changed on disk', async () => {
    const file = join(env.workspace, 'f.txt')
    await writeFile(file, 'v1\n')
    await run(readTool, { file_path: file }, env.ctx)
    await writeFile(file, 'version two\n')
    const error = await runError(writeTool, { file_path: file, content: 'mine\n' }, env.ctx)
    expect(error.category).toBe('filesystem')
    expect(error.message).toContain('changed on disk since you last read it')
    expect(await readFile(file, 'utf8')).toBe('version two\n')
  })

  it('keeps CRLF line endings and the mode bits', async () => {
    const file = join(env.workspace, 'win.sh')
    await writeFile(file, 'echo a\r\necho b\r\n')
    await chmod(file, 0o751)
    await run(readTool, { file_path: file }, env.ctx)
    const result = await run(writeTool, { file_path: file, content: 'echo a\necho c\n' }, env.ctx)
    expect(await readFile(file, 'utf8')).toBe('echo a\r\necho c\r\n')
    expect((await stat(file)).mode & 0o7777).toBe(0o751)
    expect(result.forModel).toContain('CRLF line endings were kept')
  })

  it('writes atomically, leaving no temp files behind', async () => {
    const file = join(env.workspace, 'atomic.txt')
    await run(writeTool, { file_path: file, content: 'x' }, env.ctx)
    for (let i = 0; i < 5; i++) await run(writeTool, { file_path: file, content: `v${i}` }, env.ctx)
    expect(await readdir(env.workspace)).toEqual(['atomic.txt'])
    expect(await readFile(file, 'utf8')).toBe('v4')
  })

  it('writes through a symlink, keeping the link', async () => {
    const target = join(env.workspace, 'target.txt')
    const link = join(env.workspace, 'link.txt')
    await writeFile(target, 'old\n')
    await symlink(target, link)
    await run(readTool, { file_path: link }, env.ctx)
    await run(writeTool, { file_path: link, content: 'new\n' }, env.ctx)
    expect(await readFile(target, 'utf8')).toBe('new\n')
    expect((await lstat(link)).isSymbolicLink()).toBe(true)
  })

  it('refuses a directory path', async () => {
    const error = await runError(writeTool, { file_path: env.workspace, content: 'x' }, env.ctx)
    expect(error.message).toContain('is a directory')
  })

  it('previews the unified diff and targets the absolute path for permissions', async () => {
    const file = join(env.workspace, 'p.txt')
    await writeFile(file, 'a\nb\n')
    const preview = await writeTool.preview({ file_path: 'p.txt', content: 'a\nc\n' }, env.ctx)
    expect(preview).toMatchObject({ kind: 'diff', path: 'p.txt' })
    if (preview.kind !== 'diff') throw new Error('expected a diff preview')
    expect(preview.diff).toContain('--- p.txt\n+++ p.txt\n')
    expect(preview.diff).toContain('-b\n+c\n')
    expect(writeTool.permissionTarget({ file_path: 'p.txt', content: '' }, env.ctx)).toEqual({
      kind: 'path',
      path: file,
      access: 'write',
    })
    expect(writeTool.summarize({ file_path: 'p.txt', content: '' })).toBe('Write p.txt')
  })
})
