import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resolveTarget } from '../../../source/permissions/real-path.js'
import type { PermissionTarget } from '../../../source/permissions/target.js'
import { atomicWriteFile, PathMovedError } from '../../../source/tools/atomic-write.js'
import { editTool } from '../../../source/tools/edit.js'
import { notebookEditTool } from '../../../source/tools/notebook-edit.js'
import type { ToolContext } from '../../../source/tools/types.js'
import { writeTool } from '../../../source/tools/write.js'
import { createReadTool } from '../../../source/tools/read.js'
import { createTestEnv, readIfExists, run, runError, type TestEnv } from './helpers.js'

let env: TestEnv
let outside: string

beforeEach(async () => {
  env = await createTestEnv()
  outside = join(env.root, 'outside')
  await mkdir(outside)
  await writeFile(join(outside, 'secret.txt'), 'secret\n')
})

afterEach(async () => {
  await env.cleanup()
})

/** What the executor does: resolve the target once, then hand it to the tool with the call. */
async function judged(path: string): Promise<ToolContext> {
  const target: PermissionTarget = await resolveTarget(
    { kind: 'path', path: join(env.workspace, path), access: 'write' },
    { workspace: env.workspace, home: env.root },
  )
  return { ...env.ctx, permission: target }
}

describe('a symlink swapped in after the permission check is refused', () => {
  it('Write: the file became a link to a file outside', async () => {
    const file = join(env.workspace, 'a.txt')
    await writeFile(file, 'hello\n')
    await run(createReadTool(), { file_path: file }, env.ctx)
    const ctx = await judged('a.txt')
    await rm(file)
    await symlink(join(outside, 'secret.txt'), file)
    const error = await runError(writeTool, { file_path: file, content: 'pwned\n' }, ctx)
    expect(error.category).toBe('permission')
    expect(error.message).toContain(`now resolves to ${join(outside, 'secret.txt')}`)
    expect(error.message).toContain('nothing was written')
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('secret\n')
  })

  it('Write of a new file: its directory became a link to .git', async () => {
    await mkdir(join(env.workspace, '.git', 'hooks'), { recursive: true })
    await mkdir(join(env.workspace, 'dir'))
    const ctx = await judged('dir/pre-commit')
    await rm(join(env.workspace, 'dir'), { recursive: true })
    await symlink(join(env.workspace, '.git', 'hooks'), join(env.workspace, 'dir'))
    const error = await runError(writeTool, { file_path: 'dir/pre-commit', content: '#!/bin/sh\n' }, ctx)
    expect(error.category).toBe('permission')
    expect(await readIfExists(join(env.workspace, '.git', 'hooks', 'pre-commit'))).toBeUndefined()
  })

  it('Edit that creates a file: refused the same way', async () => {
    await mkdir(join(env.workspace, 'dir'))
    const ctx = await judged('dir/new.txt')
    await rm(join(env.workspace, 'dir'), { recursive: true })
    await symlink(outside, join(env.workspace, 'dir'))
    const error = await runError(editTool, { file_path: 'dir/new.txt', old_string: '', new_string: 'x' }, ctx)
    expect(error.category).toBe('permission')
    expect(await readIfExists(join(outside, 'new.txt'))).toBeUndefined()
  })

  it('NotebookEdit: the notebook became a link', async () => {
    const nb = join(env.workspace, 'a.ipynb')
    const notebook = {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [{ cell_type: 'code', id: 'c1', metadata: {}, source: 'x', outputs: [], execution_count: null }],
    }
    await writeFile(nb, JSON.stringify(notebook))
    await writeFile(join(outside, 'b.ipynb'), JSON.stringify(notebook))
    await run(createReadTool(), { file_path: nb }, env.ctx)
    const ctx = await judged('a.ipynb')
    await rm(nb)
    await symlink(join(outside, 'b.ipynb'), nb)
    const error = await runError(notebookEditTool, { notebook_path: nb, cell_id: 'c1', new_source: 'y' }, ctx)
    expect(error.category).toBe('permission')
    expect(JSON.parse(await readFile(join(outside, 'b.ipynb'), 'utf8')).cells[0].source).toBe('x')
  })

  it('a link that was there when judged is written through, as before', async () => {
    await symlink(join(outside, 'secret.txt'), join(env.workspace, 'link.txt'))
    await run(createReadTool(), { file_path: 'link.txt' }, env.ctx)
    const ctx = await judged('link.txt')
    await run(writeTool, { file_path: 'link.txt', content: 'approved\n' }, ctx)
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('approved\n')
  })
})

describe('atomicWriteFile', () => {
  it('refuses when the path resolves elsewhere than expected, writing nothing', async () => {
    const file = join(env.workspace, 'x.txt')
    await symlink(join(outside, 'secret.txt'), file)
    await expect(atomicWriteFile(file, 'pwned', { expectedRealPath: file })).rejects.toBeInstanceOf(
      PathMovedError,
    )
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('secret\n')
  })
})
