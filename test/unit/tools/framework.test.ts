import { execFileSync } from 'node:child_process'
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { atomicWriteFile } from '../../../source/tools/atomic-write.js'
import { createFileStateTracker } from '../../../source/tools/file-state.js'
import { createHeadTailBuffer } from '../../../source/tools/head-tail-buffer.js'
import { displayPath, isInside, resolveToolPath } from '../../../source/tools/paths.js'
import { lineWindowOf, readLineWindow } from '../../../source/tools/read-window.js'
import { sniffBytes } from '../../../source/tools/sniff.js'
import { boundOutput, createOutputSpiller } from '../../../source/tools/spill.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-tui-framework-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('paths', () => {
  it('resolves ~, relative and absolute paths', () => {
    expect(resolveToolPath('~', '/w')).toBe(homedir())
    expect(resolveToolPath('~/x/y', '/w')).toBe(join(homedir(), 'x', 'y'))
    expect(resolveToolPath('a/../b', '/w/sub')).toBe('/w/sub/b')
    expect(resolveToolPath('/etc//hosts', '/w')).toBe('/etc/hosts')
  })

  it('decides containment lexically, root included', () => {
    expect(isInside('/w', '/w')).toBe(true)
    expect(isInside('/w', '/w/a/b')).toBe(true)
    expect(isInside('/w', '/w2')).toBe(false)
    expect(isInside('/w', '/')).toBe(false)
    expect(isInside('/w', '/w/../etc')).toBe(false)
    expect(isInside('/w', '/w/..foo')).toBe(true)
    expect(displayPath('/w/a/b.ts', '/w')).toBe('a/b.ts')
    expect(displayPath('/w', '/w')).toBe('.')
    expect(displayPath('/etc/hosts', '/w')).toBe('/etc/hosts')
  })
})

describe('file state', () => {
  it('keeps one record per path, last write wins', () => {
    const files = createFileStateTracker()
    expect(files.get('/a')).toBeUndefined()
    files.recordRead('/a', { mtimeMs: 1, size: 2 })
    files.recordWrite('/a', { mtimeMs: 3, size: 4 })
    expect(files.get('/a')).toEqual({ mtimeMs: 3, size: 4 })
    // Instances are independent (no module-level state).
    expect(createFileStateTracker().get('/a')).toBeUndefined()
  })
})

describe('atomicWriteFile', () => {
  it('creates parents, replaces content, keeps mode bits and leaves no temp files', async () => {
    const file = join(dir, 'a', 'b', 'f.txt')
    const first = await atomicWriteFile(file, 'one')
    expect(first.size).toBe(3)
    await chmod(file, 0o700)
    await atomicWriteFile(file, Buffer.from('second'))
    expect(await readFile(file, 'utf8')).toBe('second')
    expect((await stat(file)).mode & 0o777).toBe(0o700)
    expect(await readdir(join(dir, 'a', 'b'))).toEqual(['f.txt'])
  })

  it('below a trusted root: a link at the name is replaced, never written through; a linked folder is refused', async () => {
    await mkdir(join(dir, 'home'))
    const bashrc = join(dir, 'home', '.bashrc')
    await writeFile(bashrc, 'export PS1=ok\n')
    const state = join(dir, 'state')
    await mkdir(join(state, 'exports'), { recursive: true })
    await symlink(bashrc, join(state, 'exports', 'session.md'))
    await atomicWriteFile(join(state, 'exports', 'session.md'), '# transcript\n', { below: state })
    expect(await readFile(join(state, 'exports', 'session.md'), 'utf8')).toBe('# transcript\n')
    expect((await lstat(join(state, 'exports', 'session.md'))).isFile()).toBe(true)
    await symlink(join(dir, 'home'), join(state, 'linked'))
    await expect(atomicWriteFile(join(state, 'linked', 'x.md'), 'x', { below: state })).rejects.toThrow(
      /linked is a symbolic link; agent-tui does not write through links/,
    )
    expect(await readFile(bashrc, 'utf8')).toBe('export PS1=ok\n')
    expect(await readdir(join(dir, 'home'))).toEqual(['.bashrc'])
  })

  it('sets an exact mode over an existing file’s bits when asked (token files)', async () => {
    const file = join(dir, 'tokens.json')
    await writeFile(file, '{}', { mode: 0o644 })
    await atomicWriteFile(file, '{"t":1}', { mode: 0o600, exactMode: true, below: dir })
    expect((await stat(file)).mode & 0o777).toBe(0o600)
  })

  it('fails cleanly when the target is a directory', async () => {
    await expect(atomicWriteFile(dir, 'x')).rejects.toThrow()
    expect((await readdir(join(dir, '..'))).filter((n) => n.startsWith(`.${basename(dir)}.`))).toEqual([])
  })
})

describe('spill and boundOutput', () => {
  it('stores content-addressed files, created lazily, reused for equal text', async () => {
    const outputs = join(dir, 'outputs')
    const spiller = createOutputSpiller(outputs)
    await expect(stat(outputs)).rejects.toThrow()
    const a = await spiller.spill('same text', 'Bash')
    const b = await spiller.spill('same text', 'Bash')
    const c = await spiller.spill('other text', 'Bash')
    expect(a).toBe(b)
    expect(a).not.toBe(c)
    expect(a).toMatch(/\/outputs\/bash-[0-9a-f]{16}\.txt$/)
    expect(await readFile(a, 'utf8')).toBe('same text')
    expect(spiller.isSpillPath(a)).toBe(true)
    expect(spiller.isSpillPath(outputs)).toBe(false)
    expect(spiller.isSpillPath(join(dir, 'elsewhere.txt'))).toBe(false)
    // A link in the outputs dir to a file elsewhere is judged by where it leads.
    await writeFile(join(dir, 'secret.txt'), 'secret')
    await symlink(join(dir, 'secret.txt'), join(outputs, 'link.txt'))
    expect(spiller.isSpillPath(join(outputs, 'link.txt'))).toBe(false)
  })

  it('never writes through what a sandboxed command planted at a predictable spill name', async () => {
    const outputs = join(dir, 'outputs')
    const spiller = createOutputSpiller(outputs)
    const first = await spiller.spill('model-chosen text', 'Grep')
    await mkdir(join(dir, 'home'))
    const bashrc = join(dir, 'home', '.bashrc')
    await writeFile(bashrc, 'export PS1=ok\n')
    // A link to an existing file, and a dangling one to a file that would run at the next login.
    await rm(first)
    await symlink(bashrc, first)
    expect(await spiller.spill('model-chosen text', 'Grep')).toBe(first)
    const second = await spiller.spill('other model-chosen text', 'Grep')
    await rm(second)
    await symlink(join(dir, 'home', '.profile'), second)
    expect(await spiller.spill('other model-chosen text', 'Grep')).toBe(second)
    expect(await readFile(bashrc, 'utf8')).toBe('export PS1=ok\n')
    expect(await readdir(join(dir, 'home'))).toEqual(['.bashrc'])
    // The spills are files of their own again, holding the text.
    expect((await lstat(first)).isFile()).toBe(true)
    expect(await readFile(first, 'utf8')).toBe('model-chosen text')
    expect(await readFile(second, 'utf8')).toBe('other model-chosen text')
    // A planted file with other content under the name is not taken for the spill.
    await writeFile(first, 'forged')
    await spiller.spill('model-chosen text', 'Grep')
    expect(await readFile(first, 'utf8')).toBe('model-chosen text')
    // A FIFO at the name neither blocks nor is used.
    await rm(first)
    execFileSync('mkfifo', [first])
    await spiller.spill('model-chosen text', 'Grep')
    expect(await readFile(first, 'utf8')).toBe('model-chosen text')
  })

  it('opens a spill stream as a new private file', async () => {
    const outputs = join(dir, 'outputs')
    const stream = createOutputSpiller(outputs).open('bash')
    stream.write('streamed\n')
    stream.close()
    expect(await readFile(stream.path, 'utf8')).toBe('streamed\n')
    expect(stream.path).toMatch(/\/outputs\/bash-stream-[0-9a-f]{16}\.txt$/)
    expect((await stat(stream.path)).mode & 0o777).toBe(0o600)
    expect((await stat(outputs)).mode & 0o777).toBe(0o700)
  })

  it('keeps short text inline and bounds long text with a marker naming the spill file', async () => {
    const spiller = createOutputSpiller(join(dir, 'outputs'))
    expect(await boundOutput('short', { spiller, hint: 'x' })).toEqual({ text: 'short', truncated: false })
    const long = Array.from({ length: 1000 }, (_, i) => `row ${i}`).join('\n')
    const bounded = await boundOutput(long, { limit: 1000, spiller, hint: 'x' })
    expect(bounded.truncated).toBe(true)
    expect(bounded.text.length).toBeLessThan(1200)
    expect(bounded.text.startsWith('row 0\nrow 1\n')).toBe(true)
    expect(bounded.text.endsWith('row 999')).toBe(true)
    expect(bounded.text).toContain(
      `chars omitted; full output: ${bounded.spilledPath} (Read it with offset/limit)`,
    )
    expect(await readFile(bounded.spilledPath ?? '', 'utf8')).toBe(long)
  })

  it('still bounds the text when the spill fails', async () => {
    await writeFile(join(dir, 'blocker'), 'a file where the outputs dir should be')
    const spiller = createOutputSpiller(join(dir, 'blocker', 'outputs'))
    const bounded = await boundOutput('y'.repeat(5000), { limit: 100, spiller, hint: 'x' })
    expect(bounded.truncated).toBe(true)
    expect(bounded.spilledPath).toBeUndefined()
    expect(bounded.text).toContain('could not be saved')
  })
})

describe('head-tail buffer', () => {
  it('keeps everything while it fits, then head and tail with a dropped count', () => {
    const buffer = createHeadTailBuffer(100)
    buffer.append('a'.repeat(60))
    expect(buffer.text()).toBe('a'.repeat(60))
    for (let i = 0; i < 100; i++) buffer.append(String(i % 10).repeat(10))
    const text = buffer.text()
    expect(buffer.totalChars).toBe(1060)
    expect(text.startsWith('a'.repeat(50))).toBe(true)
    expect(text.endsWith('9'.repeat(10))).toBe(true)
    expect(text).toContain(`[${buffer.droppedChars} chars of output dropped from memory]`)
    expect(buffer.droppedChars).toBe(1060 - 100)
    expect(buffer.tail(5)).toBe('99999')
  })
})

describe('readLineWindow', () => {
  const opts = { encoding: 'utf8' as const, maxChars: 100_000, countAll: false }

  it('knows whether lines follow a window that ends exactly at a line break', async () => {
    const file = join(dir, 'w.txt')
    await writeFile(file, 'a\nb\n')
    expect(await readLineWindow(file, { ...opts, offset: 1, limit: 2 })).toMatchObject({
      lines: ['a', 'b'],
      hasMore: false,
      totalLines: 2,
    })
    await writeFile(file, 'a\nb\nc')
    expect(await readLineWindow(file, { ...opts, offset: 1, limit: 2 })).toMatchObject({
      lines: ['a', 'b'],
      hasMore: true,
      totalLines: undefined,
    })
    expect(await readLineWindow(file, { ...opts, offset: 3, limit: 5 })).toMatchObject({
      lines: ['c'],
      hasMore: false,
      totalLines: 3,
    })
  })

  it('counts all lines on request and skips a UTF-8 BOM', async () => {
    const file = join(dir, 'bom.txt')
    await writeFile(file, '\uFEFFfirst\nsecond\nthird\n')
    expect(await readLineWindow(file, { ...opts, offset: 1, limit: 1, countAll: true })).toMatchObject({
      lines: ['first'],
      hasMore: true,
      totalLines: 3,
    })
  })

  it('cuts the same window from a file read whole as from the stream, chunk boundaries included', async () => {
    const file = join(dir, 'same.txt')
    // Multi-byte characters, CRLF, a BOM and a long line across the stream's 256 KB chunks.
    const text = `\uFEFF${Array.from({ length: 40_000 }, (_, i) => `${i % 7 === 0 ? 'é✓' : 'x'}${i}\r`).join('\n')}\n${'y'.repeat(3000)}\nend`
    await writeFile(file, text)
    const cases = [
      { offset: 1, limit: 3, countAll: false },
      { offset: 39_999, limit: 5, countAll: true },
      { offset: 40_001, limit: 1, countAll: false },
      { offset: 10, limit: 20_000, countAll: true, maxChars: 5000 },
      { offset: 50_000, limit: 1, countAll: true },
    ]
    for (const c of cases) {
      const o = { ...opts, ...c }
      const streamed = await readLineWindow(file, o)
      const inMemory = lineWindowOf(text, o)
      // Read whole, the end of the text is always known, so only a window that stopped early may differ there.
      expect(inMemory.lines).toEqual(streamed.lines)
      expect({ ...inMemory, totalLines: streamed.totalLines }).toEqual(streamed)
      if (streamed.totalLines !== undefined) expect(inMemory.totalLines).toBe(streamed.totalLines)
    }
    const tail = lineWindowOf(text, { ...opts, offset: 40_001, limit: 2, countAll: false })
    expect(tail.lines[1]).toBe('end')
    expect(tail.lines[0]?.startsWith('y'.repeat(2000))).toBe(true)
    expect(tail.cutLines).toBe(1)
  })
})

describe('sniffBytes', () => {
  it('tells images, binaries, UTF-8 and Latin-1 apart', () => {
    expect(sniffBytes(Buffer.from('GIF89a....'), false)).toMatchObject({ kind: 'image', mime: 'image/gif' })
    expect(sniffBytes(Buffer.from('RIFF\0\0\0\0WEBPVP8 '), false)).toMatchObject({
      kind: 'image',
      mime: 'image/webp',
    })
    expect(sniffBytes(Buffer.from([0xff, 0xd8, 0xff, 0xe0]), false)).toMatchObject({ mime: 'image/jpeg' })
    expect(sniffBytes(Buffer.from('%PDF-1.7\n'), false)).toEqual({ kind: 'binary', type: 'PDF document' })
    expect(sniffBytes(Buffer.from('plain ✓ text'), false)).toEqual({ kind: 'text', encoding: 'utf8' })
    // A multi-byte character cut at the sniff boundary is still UTF-8.
    expect(sniffBytes(Buffer.from('ok ✓').subarray(0, 5), true)).toEqual({ kind: 'text', encoding: 'utf8' })
    expect(sniffBytes(Buffer.from([0x63, 0x61, 0x66, 0xe9]), false)).toEqual({
      kind: 'text',
      encoding: 'latin1',
    })
  })
})
