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

// The matching cases (exact, tolerant, ambiguous, not found…) are golden folders: edit-golden.test.ts.

/** Creates a file and reads it, as the model must before editing. */
async function seed(name: string, content: string | Buffer): Promise<string> {
  const file = join(env.workspace, name)
  await writeFile(file, content)
  await run(readTool, { file_path: file }, env.ctx)
  return file
}

describe('Edit', () => {
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

  it('reports the change as a diff card, and keeps the mode bits and CRLF line ends with no temp file left', async () => {
    const file = await seed('win.txt', 'one\r\ntwo\r\nthree\r\n')
    await chmod(file, 0o640)
    await run(readTool, { file_path: file }, env.ctx)
    const result = await run(
      editTool,
      { file_path: file, old_string: 'one\ntwo', new_string: 'uno\ndos\ndos-bis' },
      env.ctx,
    )
    expect(result.display).toMatchObject({
      kind: 'diff',
      path: 'win.txt',
      added: 3,
      removed: 2,
      created: false,
    })
    expect((await stat(file)).mode & 0o777).toBe(0o640)
    expect(await readdir(env.workspace)).toEqual(['win.txt'])
    const created = await run(
      editTool,
      { file_path: join(env.workspace, 'made.txt'), old_string: '', new_string: 'hi\n' },
      env.ctx,
    )
    expect(created.display).toMatchObject({ kind: 'diff', created: true, added: 1 })
  })
})
