/**
 * Read reads, and Grep's ripgrep searches, what the permission check judged, not whatever its path leads to
 * a moment later: a link swapped between the check and the open (by a sandboxed background job, say) is
 * refused. source/tools/judged-open.ts
 */
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resolveTarget } from '../../../source/permissions/real-path.js'
import { globTool } from '../../../source/tools/glob.js'
import { grepTool } from '../../../source/tools/grep.js'
import { readTool } from '../../../source/tools/read.js'
import type { AnyTool } from '../../../source/tools/types.js'
import type { ToolContext } from '../../../source/tools/types.js'
import { createTestEnv, run, runError, type TestEnv } from './helpers.js'

let env: TestEnv
beforeEach(async () => {
  env = await createTestEnv()
})
afterEach(async () => {
  await env.cleanup()
})

/** The context the pipeline hands `execute`: the target as the gate judged it (links resolved). */
async function judged(filePath: string, tool: AnyTool = readTool): Promise<ToolContext> {
  const args =
    tool === readTool
      ? { file_path: filePath }
      : tool === globTool
        ? { pattern: '*', path: filePath }
        : { pattern: 'x', path: filePath }
  const target = await resolveTarget(await tool.permissionTarget(args as never, env.ctx), {
    workspace: env.workspace,
    home: env.root,
  })
  return { ...env.ctx, permission: target }
}

describe('Read after the permission check', () => {
  it('refuses a link swapped after the check to a file outside, and reads nothing of it', async () => {
    const secret = join(env.root, 'secret.txt')
    await writeFile(secret, 'PRIVATE KEY MATERIAL\n')
    await writeFile(join(env.workspace, 'decoy.txt'), 'decoy\n')
    const link = join(env.workspace, 'link')
    await symlink(join(env.workspace, 'decoy.txt'), link)
    const ctx = await judged('link')
    // The swap, after the check and before the read.
    await rm(link)
    await symlink(secret, link)
    const error = await runError(readTool, { file_path: 'link' }, ctx)
    expect(error.category).toBe('permission')
    expect(error.message).toContain('changed between the permission check and the read')
    expect(error.message).not.toContain('PRIVATE')
  })

  it('refuses a folder on the way swapped for a link after the check', async () => {
    await mkdir(join(env.root, 'elsewhere'))
    await writeFile(join(env.root, 'elsewhere', 'notes.txt'), 'outside notes\n')
    await mkdir(join(env.workspace, 'dir'))
    await writeFile(join(env.workspace, 'dir', 'notes.txt'), 'inside notes\n')
    const ctx = await judged('dir/notes.txt')
    await rm(join(env.workspace, 'dir'), { recursive: true })
    await symlink(join(env.root, 'elsewhere'), join(env.workspace, 'dir'))
    const error = await runError(readTool, { file_path: 'dir/notes.txt' }, ctx)
    expect(error.message).toContain('changed between the permission check and the read')
  })

  it('reads through a link that still leads where it was judged', async () => {
    await writeFile(join(env.workspace, 'real.txt'), 'through the link\n')
    await symlink(join(env.workspace, 'real.txt'), join(env.workspace, 'alias.txt'))
    const result = await run(readTool, { file_path: 'alias.txt' }, await judged('alias.txt'))
    expect(result.forModel).toContain('through the link')
  })

  it("a spilled output's name (judged to need nothing) may not lead out of the outputs dir", async () => {
    const saved = await env.ctx.spill.spill('saved output\n', 'bash')
    const ctx = await judged(saved)
    expect(ctx.permission).toEqual({ kind: 'none' })
    expect((await run(readTool, { file_path: saved }, ctx)).forModel).toContain('saved output')
    const secret = join(env.root, 'secret.txt')
    await writeFile(secret, 'PRIVATE KEY MATERIAL\n')
    await rm(saved)
    await symlink(secret, saved)
    const error = await runError(readTool, { file_path: saved }, ctx)
    expect(error.message).toContain('changed between the permission check and the read')
  })
})

describe('Grep after the permission check', () => {
  it('refuses a link swapped after the check, and finds nothing behind it', async () => {
    const secret = join(env.root, 'secret.txt')
    await writeFile(secret, 'PRIVATE KEY MATERIAL\n')
    await writeFile(join(env.workspace, 'decoy.txt'), 'decoy\n')
    const link = join(env.workspace, 'link')
    await symlink(join(env.workspace, 'decoy.txt'), link)
    const ctx = await judged('link', grepTool)
    await rm(link)
    await symlink(secret, link)
    const error = await runError(grepTool, { pattern: 'PRIVATE', path: 'link', output_mode: 'content' }, ctx)
    expect(error.message).toContain('changed between the permission check and the search')
  })

  it('searches a judged folder and reports its paths as named', async () => {
    await mkdir(join(env.workspace, 'src'))
    await writeFile(join(env.workspace, 'src', 'a.ts'), 'const needle = 1\n')
    const ctx = await judged('src', grepTool)
    const content = await run(grepTool, { pattern: 'needle', path: 'src', output_mode: 'content' }, ctx)
    expect(content.forModel).toContain('src/a.ts:1:const needle = 1')
    const files = await run(grepTool, { pattern: 'needle', path: 'src' }, ctx)
    expect(files.forModel).toContain('src/a.ts')
    expect(files.forModel).not.toContain('/proc/')
    const count = await run(grepTool, { pattern: 'needle', path: 'src', output_mode: 'count' }, ctx)
    expect(count.forModel).toContain('src/a.ts:1')
  })

  it('still leaves secrets files and .git/ out of a search of the held-open folder', async () => {
    await writeFile(join(env.workspace, '.env'), 'OPENAI_API_KEY=sk-live-needle\n')
    await mkdir(join(env.workspace, '.git'))
    await writeFile(join(env.workspace, '.git', 'config'), 'needle in git\n')
    await mkdir(join(env.workspace, 'src'))
    await writeFile(join(env.workspace, 'src', 'a.ts'), 'needle\n')
    const ctx = await judged('.', grepTool)
    const all = await run(grepTool, { pattern: 'needle', path: '.', output_mode: 'content' }, ctx)
    expect(all.forModel).toContain('src/a.ts:1:needle')
    expect(all.forModel).not.toMatch(/sk-live|needle in git|\/proc\//)
  })
})

describe('Glob after the permission check', () => {
  it("refuses a folder swapped for a link after the check, and lists nothing of the other's", async () => {
    await mkdir(join(env.root, 'keys'))
    await writeFile(join(env.root, 'keys', 'id_secret'), 'x\n')
    await mkdir(join(env.workspace, 'dir'))
    await writeFile(join(env.workspace, 'dir', 'mine.txt'), 'x\n')
    const ctx = await judged('dir', globTool)
    expect((await run(globTool, { pattern: '*', path: 'dir' }, ctx)).forModel).toContain('mine.txt')
    await rm(join(env.workspace, 'dir'), { recursive: true })
    await symlink(join(env.root, 'keys'), join(env.workspace, 'dir'))
    const error = await runError(globTool, { pattern: '*', path: 'dir' }, ctx)
    expect(error.message).toContain('changed between the permission check and the search')
    expect(error.message).not.toContain('id_secret')
  })
})
