import { existsSync } from 'node:fs'
import { lstat, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resolveTarget } from '../../../source/permissions/real-path.js'
import { deleteFileTool } from '../../../source/tools/delete-file.js'
import { createReadTool } from '../../../source/tools/read.js'
import type { ToolContext } from '../../../source/tools/types.js'
import { createTestEnv, run, runError, type TestEnv } from './helpers.js'

let env: TestEnv
const read = createReadTool()
beforeEach(async () => {
  env = await createTestEnv()
})
afterEach(async () => {
  await env.cleanup()
})

async function judged(path: string): Promise<ToolContext> {
  const target = await resolveTarget(await deleteFileTool.permissionTarget({ file_path: path }, env.ctx), {
    workspace: env.workspace,
    home: env.root,
  })
  return { ...env.ctx, permission: target }
}

describe('DeleteFile', () => {
  it('deletes a file read in this session and shows every line it had', async () => {
    const file = join(env.workspace, 'a.txt')
    await writeFile(file, 'one\ntwo\n')
    await run(read, { file_path: file }, env.ctx)
    const preview = await deleteFileTool.preview({ file_path: 'a.txt' }, env.ctx)
    expect(preview).toMatchObject({
      kind: 'diffs',
      files: [{ path: 'a.txt', change: 'deleted', removed: 2 }],
    })
    const result = await run(deleteFileTool, { file_path: 'a.txt' }, await judged('a.txt'))
    expect(existsSync(file)).toBe(false)
    expect(result.forModel).toBe('Deleted a.txt. It had 2 lines.')
  })

  it('judges the name itself: a link is not followed', async () => {
    expect(deleteFileTool.permissionTarget({ file_path: 'l' }, env.ctx)).toEqual({
      kind: 'path',
      path: join(env.workspace, 'l'),
      access: 'write',
      noFollow: true,
    })
    const outside = join(env.root, 'outside.txt')
    await writeFile(outside, 'kept\n')
    await symlink(outside, join(env.workspace, 'l'))
    const ctx = await judged('l')
    expect(ctx.permission).toMatchObject({ real: join(env.workspace, 'l') })
    const result = await run(deleteFileTool, { file_path: 'l' }, ctx)
    expect(result.forModel).toContain('the symbolic link l')
    await expect(lstat(join(env.workspace, 'l'))).rejects.toThrow()
    expect(await readFile(outside, 'utf8')).toBe('kept\n')
  })

  it('refuses a directory', async () => {
    await mkdir(join(env.workspace, 'dir'))
    await writeFile(join(env.workspace, 'dir', 'x'), 'x')
    const error = await runError(deleteFileTool, { file_path: 'dir' }, env.ctx)
    expect(error.message).toBe('dir is a directory; DeleteFile deletes files only. Nothing was deleted.')
    expect(existsSync(join(env.workspace, 'dir', 'x'))).toBe(true)
  })

  it('refuses a file outside the workspace, and one through a linked folder that leads outside', async () => {
    const outside = join(env.root, 'outside.txt')
    await writeFile(outside, 'kept\n')
    await run(read, { file_path: outside }, env.ctx)
    const error = await runError(deleteFileTool, { file_path: outside }, env.ctx)
    expect(error.category).toBe('permission')
    expect(error.message).toContain('outside the workspace')
    await symlink(env.root, join(env.workspace, 'up'))
    const through = await runError(deleteFileTool, { file_path: 'up/outside.txt' }, env.ctx)
    expect(through.message).toContain('outside the workspace')
    expect(existsSync(outside)).toBe(true)
  })

  it('refuses a file not read in this session, or changed since', async () => {
    const file = join(env.workspace, 'a.txt')
    await writeFile(file, 'a\n')
    expect((await runError(deleteFileTool, { file_path: 'a.txt' }, env.ctx)).message).toContain(
      'has not been read',
    )
    await run(read, { file_path: file }, env.ctx)
    await writeFile(file, 'a\nchanged\n')
    expect((await runError(deleteFileTool, { file_path: 'a.txt' }, env.ctx)).message).toMatch(
      /modified|changed/,
    )
    expect(existsSync(file)).toBe(true)
  })

  it('refuses when the folder was swapped for a link after the check', async () => {
    await mkdir(join(env.workspace, 'src'))
    const file = join(env.workspace, 'src', 'a.txt')
    await writeFile(file, 'a\n')
    await run(read, { file_path: file }, env.ctx)
    const ctx = await judged('src/a.txt')
    const elsewhere = join(env.workspace, 'elsewhere')
    await mkdir(elsewhere)
    await writeFile(join(elsewhere, 'a.txt'), 'other\n')
    await rm(join(env.workspace, 'src'), { recursive: true })
    await symlink(elsewhere, join(env.workspace, 'src'))
    const error = await runError(deleteFileTool, { file_path: 'src/a.txt' }, ctx)
    expect(error.category).toBe('permission')
    expect(await readFile(join(elsewhere, 'a.txt'), 'utf8')).toBe('other\n')
  })

  it('a missing file is not_found', async () => {
    expect((await runError(deleteFileTool, { file_path: 'nope.txt' }, env.ctx)).category).toBe('not_found')
  })
})
