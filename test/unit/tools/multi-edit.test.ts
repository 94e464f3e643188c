import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { multiEditTool } from '../../../source/tools/multi-edit.js'
import { createReadTool } from '../../../source/tools/read.js'
import { createTestEnv, readIfExists, run, runError, type TestEnv } from './helpers.js'

let env: TestEnv
let file: string
const read = createReadTool()
beforeEach(async () => {
  env = await createTestEnv()
  file = join(env.workspace, 'a.ts')
})
afterEach(async () => {
  await env.cleanup()
})

async function seed(text: string): Promise<void> {
  await writeFile(file, text)
  await run(read, { file_path: file }, env.ctx)
}

describe('MultiEdit', () => {
  it('applies the edits in order, each to the result of the ones before', async () => {
    await seed('const a = 1\nconst b = a\n')
    const result = await run(
      multiEditTool,
      {
        file_path: file,
        edits: [
          { old_string: 'const a = 1', new_string: 'const alpha = 1' },
          // Sees the first edit's result: `a` is gone from line 1, so this one place is unique.
          { old_string: 'const b = a', new_string: 'const b = alpha' },
          { old_string: 'alpha', new_string: 'first', replace_all: true },
        ],
      },
      env.ctx,
    )
    expect(await readFile(file, 'utf8')).toBe('const first = 1\nconst b = first\n')
    expect(result.forModel).toMatch(/^Edited a\.ts: 3 edits, 4 replacements \(\+2 −2 lines\)\./)
    expect(result.display).toMatchObject({ kind: 'diff', path: 'a.ts', added: 2, removed: 2 })
  })

  it('applies none when a later edit fails, naming it', async () => {
    await seed('one\ntwo\n')
    const error = await runError(
      multiEditTool,
      {
        file_path: file,
        edits: [
          { old_string: 'one', new_string: 'ONE' },
          { old_string: 'three', new_string: 'THREE' },
        ],
      },
      env.ctx,
    )
    expect(error.category).toBe('not_found')
    expect(error.message).toMatch(/^edits\[1\] \(edit 2 of 2\): old_string was not found in a\.ts\./)
    expect(error.message).toContain('No edit was applied.')
    expect(await readFile(file, 'utf8')).toBe('one\ntwo\n')
  })

  it('an edit that an earlier one made ambiguous fails, and nothing is written', async () => {
    await seed('x = 1\ny = 2\n')
    const error = await runError(
      multiEditTool,
      {
        file_path: file,
        edits: [
          { old_string: 'y = 2', new_string: 'x = 1' },
          { old_string: 'x = 1', new_string: 'z = 3' },
        ],
      },
      env.ctx,
    )
    expect(error.message).toContain('occurs 2 times')
    expect(error.message).toContain('as the edits before it left it')
    expect(await readFile(file, 'utf8')).toBe('x = 1\ny = 2\n')
  })

  it('refuses identical strings', async () => {
    await seed('a\n')
    const error = await runError(
      multiEditTool,
      { file_path: file, edits: [{ old_string: 'a', new_string: 'a' }] },
      env.ctx,
    )
    expect(error.message).toContain('identical')
  })

  it('is read-first and refuses a file changed on disk since, as Edit', async () => {
    await writeFile(file, 'a\n')
    const unread = await runError(
      multiEditTool,
      { file_path: file, edits: [{ old_string: 'a', new_string: 'b' }] },
      env.ctx,
    )
    expect(unread.message).toContain('has not been read')
    await run(read, { file_path: file }, env.ctx)
    await writeFile(file, 'a\nmore\n')
    const stale = await runError(
      multiEditTool,
      { file_path: file, edits: [{ old_string: 'a', new_string: 'b' }] },
      env.ctx,
    )
    expect(stale.message).toMatch(/modified|changed/)
    expect(await readFile(file, 'utf8')).toBe('a\nmore\n')
  })

  it('creates a missing file from an empty first old_string, then edits it further', async () => {
    const created = join(env.workspace, 'new.txt')
    await run(
      multiEditTool,
      {
        file_path: created,
        edits: [
          { old_string: '', new_string: 'hello world\n' },
          { old_string: 'world', new_string: 'there' },
        ],
      },
      env.ctx,
    )
    expect(await readIfExists(created)).toBe('hello there\n')
  })

  it('keeps CRLF line endings', async () => {
    await seed('one\r\ntwo\r\n')
    await run(
      multiEditTool,
      { file_path: file, edits: [{ old_string: 'one\r\ntwo', new_string: '1\r\n2' }] },
      env.ctx,
    )
    expect(await readFile(file, 'utf8')).toBe('1\r\n2\r\n')
  })

  it('previews one diff of all the edits together', async () => {
    await seed('a\nb\nc\n')
    const preview = await multiEditTool.preview(
      {
        file_path: file,
        edits: [
          { old_string: 'a', new_string: 'A' },
          { old_string: 'c', new_string: 'C' },
        ],
      },
      env.ctx,
    )
    expect(preview.kind).toBe('diff')
    if (preview.kind === 'diff') expect(preview.diff).toContain('-a\n+A\n b\n-c\n+C')
  })
})
