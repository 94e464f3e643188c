import { chmod, mkdir, realpath, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createReadTool, readTool } from '../../../source/tools/read.js'
import { createTestEnv, run, runError, type TestEnv } from './helpers.js'

// A complete 1×1 PNG.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
)

let env: TestEnv
beforeEach(async () => {
  env = await createTestEnv()
})
afterEach(async () => {
  await env.cleanup()
})

describe('Read', () => {
  it('numbers lines like cat -n and records the read', async () => {
    const file = join(env.workspace, 'a.txt')
    await writeFile(file, 'alpha\nbeta\ngamma\n')
    const result = await run(readTool, { file_path: file }, env.ctx)
    expect(result.forModel).toBe('     1\talpha\n     2\tbeta\n     3\tgamma')
    const st = await stat(file)
    expect(env.ctx.files.get(file)).toEqual({ mtimeMs: st.mtimeMs, size: st.size })
    expect(result.display).toEqual({ kind: 'file', path: 'a.txt', lines: 3 })
  })

  it('resolves relative paths against the cwd and drops CR of CRLF files', async () => {
    await mkdir(join(env.workspace, 'sub'))
    await writeFile(join(env.workspace, 'sub', 'w.txt'), 'one\r\ntwo\r\n')
    env.ctx.setCwd(join(env.workspace, 'sub'))
    const result = await run(readTool, { file_path: 'w.txt' }, env.ctx)
    expect(result.forModel).toBe('     1\tone\n     2\ttwo')
  })

  it('reads a window with offset and limit and says how to page on', async () => {
    const file = join(env.workspace, 'ten.txt')
    await writeFile(file, Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'))
    const result = await run(readTool, { file_path: file, offset: 3, limit: 2 }, env.ctx)
    expect(result.forModel).toContain('     3\tline 3\n     4\tline 4\n')
    expect(result.forModel).not.toContain('line 5')
    expect(result.forModel).toContain('Showing lines 3–4 of 10')
    expect(result.forModel).toContain('offset=5')
  })

  it('stops at 2000 lines by default and gives the next offset', async () => {
    const file = join(env.workspace, 'long.txt')
    await writeFile(file, Array.from({ length: 2500 }, (_, i) => `${i + 1}`).join('\n'))
    const result = await run(readTool, { file_path: file }, env.ctx)
    expect(result.forModel).toContain('  2000\t2000\n')
    expect(result.forModel).not.toContain('\t2001')
    expect(result.forModel).toContain('Showing lines 1–2000 of 2500')
    expect(result.forModel).toContain('offset=2001')
    const rest = await run(readTool, { file_path: file, offset: 2001 }, env.ctx)
    expect(rest.forModel.startsWith('  2001\t2001\n')).toBe(true)
    expect(rest.forModel).toContain('  2500\t2500')
    expect(rest.forModel).not.toContain('Showing')
  })

  it('cuts lines over 2000 characters with a marker', async () => {
    const file = join(env.workspace, 'wide.txt')
    await writeFile(file, `short\n${'x'.repeat(5000)}\nend\n`)
    const result = await run(readTool, { file_path: file }, env.ctx)
    expect(result.forModel).toContain(`     2\t${'x'.repeat(2000)}… [line cut: 5000 chars]\n     3\tend`)
    expect(result.forModel).toContain('1 line(s) longer than 2000 characters were cut')
  })

  it('notes an empty file', async () => {
    const file = join(env.workspace, 'empty.txt')
    await writeFile(file, '')
    const result = await run(readTool, { file_path: file }, env.ctx)
    expect(result.forModel).toContain('exists but is empty')
  })

  it('rejects an offset past the end with the line count', async () => {
    const file = join(env.workspace, 'short.txt')
    await writeFile(file, 'a\nb\n')
    const error = await runError(readTool, { file_path: file, offset: 10 }, env.ctx)
    expect(error.category).toBe('validation')
    expect(error.message).toContain('has 2 lines')
  })

  it('refuses a directory and suggests Glob or ls', async () => {
    const error = await runError(readTool, { file_path: env.workspace }, env.ctx)
    expect(error.category).toBe('validation')
    expect(error.message).toContain('is a directory')
    expect(error.hint).toMatch(/Glob/)
    expect(error.hint).toMatch(/ls/)
  })

  it('reports a missing file and suggests a near-miss name', async () => {
    await writeFile(join(env.workspace, 'README.md'), '# hi\n')
    const error = await runError(readTool, { file_path: join(env.workspace, 'readme.md') }, env.ctx)
    expect(error.category).toBe('not_found')
    expect(error.hint).toContain('README.md')
  })

  it('refuses binary files with their size and detected type', async () => {
    const elf = join(env.workspace, 'prog')
    await writeFile(elf, Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), Buffer.alloc(2041)]))
    const error = await runError(readTool, { file_path: elf }, env.ctx)
    expect(error.message).toBe('prog is a binary file (ELF executable, 2.0 KB).')
    const blob = join(env.workspace, 'blob.bin')
    await writeFile(blob, Buffer.from('abc\0def'))
    const nul = await runError(readTool, { file_path: blob }, env.ctx)
    expect(nul.message).toContain('NUL bytes')
    expect(nul.message).toContain('7 B')
  })

  it('decodes non-UTF-8 text as Latin-1 with a note', async () => {
    const file = join(env.workspace, 'latin.txt')
    await writeFile(file, Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))
    const result = await run(readTool, { file_path: file }, env.ctx)
    expect(result.forModel).toContain('     1\tcafé')
    expect(result.forModel).toContain('decoded as Latin-1')
  })

  it('returns only a window of a file too large to scan whole', async () => {
    const file = join(env.workspace, 'huge.log')
    const line = (i: number) => `${String(i).padStart(8, '0')} ${'y'.repeat(60)}`
    await writeFile(file, Array.from({ length: 300_000 }, (_, i) => line(i + 1)).join('\n'))
    expect((await stat(file)).size).toBeGreaterThan(16 * 1024 * 1024)
    const head = await run(readTool, { file_path: file }, env.ctx)
    // The 100k-char budget ends the window before 2000 lines of this width.
    expect(head.forModel.length).toBeLessThan(110_000)
    expect(head.forModel).toContain('the file continues')
    const next = /offset=(\d+)/.exec(head.forModel)?.[1]
    expect(Number(next)).toBeGreaterThan(1000)
    const deep = await run(readTool, { file_path: file, offset: 250_000, limit: 2 }, env.ctx)
    expect(deep.forModel).toContain(`250000\t${line(250_000)}\n250001\t${line(250_001)}`)
  })

  it('detects images by magic bytes and attaches them for vision models', async () => {
    const file = join(env.workspace, 'picture.dat')
    await writeFile(file, PNG)
    const vision = await createTestEnv({ supportsVision: true })
    try {
      const result = await run(readTool, { file_path: file }, vision.ctx)
      expect(result.images).toEqual([
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
      ])
      expect(result.forModel).toContain('PNG image')
    } finally {
      await vision.cleanup()
    }
    const blind = await run(readTool, { file_path: file }, env.ctx)
    expect(blind.images).toBeUndefined()
    expect(blind.forModel).toContain('cannot see images')
  })

  it('reads a text file named like an image as text', async () => {
    const file = join(env.workspace, 'fake.png')
    await writeFile(file, 'not an image\n')
    const result = await run(readTool, { file_path: file }, env.ctx)
    expect(result.forModel).toBe('     1\tnot an image')
  })

  // root reads everything, so the check only means something for other users.
  it.skipIf(process.getuid?.() === 0)('refuses an unreadable file with a permission error', async () => {
    const file = join(env.workspace, 'secret.txt')
    await writeFile(file, 'x')
    await chmod(file, 0o000)
    const error = await runError(readTool, { file_path: file }, env.ctx)
    expect(error.category).toBe('permission')
  })

  it('asks no permission for spilled outputs', async () => {
    const spilled = await env.ctx.spill.spill('big output', 'bash')
    expect(readTool.permissionTarget({ file_path: spilled }, env.ctx)).toEqual({ kind: 'none' })
    const other = join(env.workspace, 'x.txt')
    expect(readTool.permissionTarget({ file_path: other }, env.ctx)).toEqual({
      kind: 'path',
      path: other,
      access: 'read',
    })
    const result = await run(readTool, { file_path: spilled }, env.ctx)
    expect(result.forModel).toBe('     1\tbig output')
  })

  it('hands notebooks to the renderer when one is supplied', async () => {
    const file = join(env.workspace, 'n.ipynb')
    await writeFile(file, '{"cells": []}')
    const withRenderer = createReadTool({
      renderNotebook: (raw, path) => `rendered ${raw.length} chars of ${path}`,
    })
    const result = await run(withRenderer, { file_path: file }, env.ctx)
    expect(result.forModel).toBe(`rendered 13 chars of ${await realpath(file)}`)
    const plain = await run(readTool, { file_path: file }, env.ctx)
    expect(plain.forModel).toBe('     1\t{"cells": []}')
  })
})
