import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { editTool } from '../../../source/tools/edit.js'
import { readTool } from '../../../source/tools/read.js'
import { createTestEnv, run, runError, type TestEnv } from './helpers.js'

let env: TestEnv
beforeEach(async () => {
  env = await createTestEnv()
})
afterEach(async () => {
  await env.cleanup()
})

/** Creates a file and reads it, as the model must before editing. */
async function seed(name: string, content: string | Buffer): Promise<string> {
  const file = join(env.workspace, name)
  await writeFile(file, content)
  await run(readTool, { file_path: file }, env.ctx)
  return file
}

describe('Edit', () => {
  it('replaces a unique string and returns a numbered snippet around it', async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`)
    const file = await seed('a.txt', `${lines.join('\n')}\n`)
    const result = await run(
      editTool,
      { file_path: file, old_string: 'line 10\n', new_string: 'LINE TEN\n' },
      env.ctx,
    )
    expect(await readFile(file, 'utf8')).toContain('line 9\nLINE TEN\nline 11\n')
    expect(result.forModel).toContain('Edited a.txt: 1 replacement (+1 −1 lines).')
    expect(result.forModel).toContain('     6\tline 6\n')
    expect(result.forModel).toContain('    10\tLINE TEN\n')
    expect(result.forModel).toContain('    14\tline 14')
    expect(result.forModel).not.toContain('line 5\n')
    expect(result.forModel).not.toContain('line 15')
    expect(result.display).toMatchObject({
      kind: 'diff',
      path: 'a.txt',
      added: 1,
      removed: 1,
      created: false,
    })
  })

  it('refuses a non-unique string with the count, and replace_all changes every occurrence', async () => {
    const file = await seed('dup.ts', 'let x = 1\nfoo(x)\nbar(x)\n')
    const error = await runError(editTool, { file_path: file, old_string: '(x)', new_string: '(y)' }, env.ctx)
    expect(error.message).toContain('occurs 2 times')
    expect(error.hint).toContain('replace_all')
    expect(await readFile(file, 'utf8')).toBe('let x = 1\nfoo(x)\nbar(x)\n')
    const result = await run(
      editTool,
      { file_path: file, old_string: '(x)', new_string: '(y)', replace_all: true },
      env.ctx,
    )
    expect(result.forModel).toContain('2 replacements')
    expect(await readFile(file, 'utf8')).toBe('let x = 1\nfoo(y)\nbar(y)\n')
  })

  it('refuses identical old and new strings', async () => {
    const file = await seed('s.txt', 'same\n')
    const error = await runError(
      editTool,
      { file_path: file, old_string: 'same', new_string: 'same' },
      env.ctx,
    )
    expect(error.category).toBe('validation')
    expect(error.message).toContain('identical')
  })

  it('requires a prior Read and refuses stale files', async () => {
    const file = join(env.workspace, 'unread.txt')
    await writeFile(file, 'hello\n')
    const unread = await runError(
      editTool,
      { file_path: file, old_string: 'hello', new_string: 'bye' },
      env.ctx,
    )
    expect(unread.message).toContain('has not been read')
    await run(readTool, { file_path: file }, env.ctx)
    await writeFile(file, 'hello world\n')
    const stale = await runError(
      editTool,
      { file_path: file, old_string: 'hello', new_string: 'bye' },
      env.ctx,
    )
    expect(stale.message).toContain('changed on disk')
    expect(await readFile(file, 'utf8')).toBe('hello world\n')
  })

  it('matches LF-typed strings in a CRLF file and keeps CRLF and mode bits', async () => {
    const file = await seed('win.txt', 'one\r\ntwo\r\nthree\r\n')
    await chmod(file, 0o640)
    await run(readTool, { file_path: file }, env.ctx)
    await run(editTool, { file_path: file, old_string: 'one\ntwo', new_string: 'uno\ndos\ndos-bis' }, env.ctx)
    expect(await readFile(file, 'utf8')).toBe('uno\r\ndos\r\ndos-bis\r\nthree\r\n')
    expect((await stat(file)).mode & 0o777).toBe(0o640)
    expect(await readdir(env.workspace)).toEqual(['win.txt'])
  })

  it('matches despite trailing whitespace and says so', async () => {
    const file = await seed('t.js', 'foo();   \nbar();\t\nbaz();\n')
    const result = await run(
      editTool,
      { file_path: file, old_string: 'foo();\nbar();', new_string: 'qux();' },
      env.ctx,
    )
    expect(await readFile(file, 'utf8')).toBe('qux();\nbaz();\n')
    expect(result.forModel).toContain('ignoring trailing whitespace')
  })

  it('matches with different indentation and re-indents new_string', async () => {
    const file = await seed('i.py', 'def f():\n    if x:\n        go()\n        stop()\n    return 1\n')
    const result = await run(
      editTool,
      {
        file_path: file,
        old_string: 'if x:\n    go()\n    stop()',
        new_string: 'if y:\n    go()\nelse:\n    halt()',
      },
      env.ctx,
    )
    expect(await readFile(file, 'utf8')).toBe(
      'def f():\n    if y:\n        go()\n    else:\n        halt()\n    return 1\n',
    )
    expect(result.forModel).toContain('re-indented')
  })

  it('matches trimmed lines when indentation differs unevenly', async () => {
    const file = await seed('m.txt', 'start\n  a = 1\n      b = 2\nend\n')
    const result = await run(
      editTool,
      { file_path: file, old_string: 'a = 1\n  b = 2', new_string: 'a = 10\n  b = 20' },
      env.ctx,
    )
    // new_string keeps its own shape, shifted to where the region's first line starts.
    expect(await readFile(file, 'utf8')).toBe('start\n  a = 10\n    b = 20\nend\n')
    expect(result.forModel).toContain('trimming whitespace on every line')
  })

  it('unescapes literal \\n sent by the model', async () => {
    const file = await seed('e.txt', 'first line\nsecond line\nthird\n')
    const result = await run(
      editTool,
      { file_path: file, old_string: 'first line\\nsecond line', new_string: 'merged\\tline' },
      env.ctx,
    )
    expect(await readFile(file, 'utf8')).toBe('merged\tline\nthird\n')
    expect(result.forModel).toContain('unescaping')
  })

  it('refuses an ambiguous tolerant match and changes nothing', async () => {
    const original = 'x = 1  \ny = 2\nmiddle\nx = 1 \ny = 2\n'
    const file = await seed('amb.txt', original)
    const error = await runError(
      editTool,
      { file_path: file, old_string: 'x = 1\ny = 2', new_string: 'z' },
      env.ctx,
    )
    expect(error.message).toContain('trailing-whitespace matcher found 2 candidate regions')
    expect(await readFile(file, 'utf8')).toBe(original)
  })

  it('shows the closest region when nothing matches', async () => {
    const file = await seed(
      'c.ts',
      'import x from "x"\n\nfunction add(a, b) {\n  return a + b\n}\n\nfunction sub(a, b) {\n  return a - b\n}\n',
    )
    const error = await runError(
      editTool,
      { file_path: file, old_string: 'function sub(a, c) {\n  return a - c\n}', new_string: 'gone' },
      env.ctx,
    )
    expect(error.category).toBe('not_found')
    expect(error.message).toContain('old_string was not found in c.ts.')
    expect(error.message).toContain('lines 7–9')
    expect(error.message).toContain('     7\tfunction sub(a, b) {\n     8\t  return a - b\n     9\t}')
  })

  it('creates a missing file when old_string is empty', async () => {
    const file = join(env.workspace, 'new', 'made.txt')
    const result = await run(editTool, { file_path: file, old_string: '', new_string: 'hi\n' }, env.ctx)
    expect(await readFile(file, 'utf8')).toBe('hi\n')
    expect(result.display).toMatchObject({ kind: 'diff', created: true, added: 1 })
    const missing = await runError(
      editTool,
      { file_path: join(env.workspace, 'nope.txt'), old_string: 'a', new_string: 'b' },
      env.ctx,
    )
    expect(missing.category).toBe('not_found')
  })

  it('refuses an empty old_string on a non-empty file', async () => {
    const file = await seed('full.txt', 'content\n')
    const error = await runError(editTool, { file_path: file, old_string: '', new_string: 'x' }, env.ctx)
    expect(error.message).toContain('old_string is empty')
  })

  it('previews the diff of the planned edit', async () => {
    const file = join(env.workspace, 'p.txt')
    await writeFile(file, 'keep\nchange me\n')
    const preview = await editTool.preview(
      { file_path: file, old_string: 'change me', new_string: 'changed' },
      env.ctx,
    )
    if (preview.kind !== 'diff') throw new Error('expected a diff preview')
    expect(preview.diff).toContain('-change me\n+changed\n')
  })
})
