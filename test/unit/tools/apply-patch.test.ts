import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resolveTarget } from '../../../source/permissions/real-path.js'
import { applyPatchTool } from '../../../source/tools/apply-patch.js'
import { applyChunks, HunkError } from '../../../source/tools/patch/apply-chunks.js'
import { parsePatch } from '../../../source/tools/patch/parse.js'
import { createReadTool } from '../../../source/tools/read.js'
import type { ToolContext } from '../../../source/tools/types.js'
import { createTestEnv, readIfExists, run, runError, type TestEnv } from './helpers.js'

let env: TestEnv
const read = createReadTool()
beforeEach(async () => {
  env = await createTestEnv()
})
afterEach(async () => {
  await env.cleanup()
})

const patch = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n')

/** As the executor does it: the target built and resolved once, then handed to the tool. */
async function judged(input: string): Promise<ToolContext> {
  const target = await resolveTarget(await applyPatchTool.permissionTarget({ input }, env.ctx), {
    workspace: env.workspace,
    home: env.root,
  })
  return { ...env.ctx, permission: target }
}

describe('apply_patch permission target', () => {
  it('names every file: written ones through their links, deleted and moved-away ones by their own name', async () => {
    const target = await applyPatchTool.permissionTarget(
      {
        input: patch(
          '*** Add File: new.txt',
          '+x',
          '*** Delete File: old.txt',
          '*** Update File: a.txt',
          '*** Move to: b.txt',
          '@@',
          '-a',
          '+b',
        ),
      },
      env.ctx,
    )
    expect(target).toEqual({
      kind: 'paths',
      paths: [
        { kind: 'path', path: join(env.workspace, 'new.txt'), access: 'write' },
        { kind: 'path', path: join(env.workspace, 'old.txt'), access: 'write', noFollow: true },
        { kind: 'path', path: join(env.workspace, 'a.txt'), access: 'write', noFollow: true },
        { kind: 'path', path: join(env.workspace, 'b.txt'), access: 'write' },
      ],
    })
  })

  it('an unparsable patch fails before anyone is asked', async () => {
    await expect(applyPatchTool.permissionTarget({ input: 'not a patch' }, env.ctx)).rejects.toThrow(
      /not valid/,
    )
  })
})

describe('apply_patch preview', () => {
  it("shows each file's diff, what happens to it and where it moved from", async () => {
    await writeFile(join(env.workspace, 'a.txt'), 'one\ntwo\n')
    await writeFile(join(env.workspace, 'gone.txt'), 'bye\n')
    const preview = await applyPatchTool.preview(
      {
        input: patch(
          '*** Update File: a.txt',
          '*** Move to: src/a.txt',
          '@@',
          '-two',
          '+2',
          '*** Delete File: gone.txt',
          '*** Add File: n.txt',
          '+n',
        ),
      },
      env.ctx,
    )
    expect(preview.kind).toBe('diffs')
    if (preview.kind !== 'diffs') return
    // In the patch's order; the file moved away is shown at its new place only.
    expect(preview.files.map((f) => [f.path, f.change, f.movedFrom, f.added, f.removed])).toEqual([
      ['src/a.txt', 'updated', 'a.txt', 1, 1],
      ['gone.txt', 'deleted', undefined, 0, 1],
      ['n.txt', 'created', undefined, 1, 0],
    ])
    expect(preview.files[0]?.diff).toContain('-two\n+2')
  })

  it('a patch that will not apply still shows what it asks for', async () => {
    await writeFile(join(env.workspace, 'a.txt'), 'one\n')
    const preview = await applyPatchTool.preview(
      { input: patch('*** Update File: a.txt', '@@ anchor', '-missing', '+new') },
      env.ctx,
    )
    expect(preview).toEqual({
      kind: 'diffs',
      files: [{ path: 'a.txt', change: 'updated', diff: '@@ anchor\n-missing\n+new', added: 0, removed: 0 }],
    })
  })
})

describe('apply_patch refuses', () => {
  it('a file that became a link to a file outside after the check, changing no file of the patch', async () => {
    const outside = join(env.root, 'outside.txt')
    await writeFile(outside, 'secret\n')
    await writeFile(join(env.workspace, 'a.txt'), 'a\n')
    await writeFile(join(env.workspace, 'b.txt'), 'b\n')
    for (const f of ['a.txt', 'b.txt']) await run(read, { file_path: join(env.workspace, f) }, env.ctx)
    const input = patch(
      '*** Update File: a.txt',
      '@@',
      '-a',
      '+A',
      '*** Update File: b.txt',
      '@@',
      '-b',
      '+B',
    )
    const ctx = await judged(input)
    await rm(join(env.workspace, 'b.txt'))
    await symlink(outside, join(env.workspace, 'b.txt'))
    const error = await runError(applyPatchTool, { input }, ctx)
    expect(error.category).toBe('permission')
    expect(await readFile(outside, 'utf8')).toBe('secret\n')
    expect(await readFile(join(env.workspace, 'a.txt'), 'utf8')).toBe('a\n')
  })

  it('two paths of one file (a link and its target) in one patch', async () => {
    await writeFile(join(env.workspace, 'a.txt'), 'a\n')
    await symlink('a.txt', join(env.workspace, 'alias.txt'))
    await run(read, { file_path: join(env.workspace, 'a.txt') }, env.ctx)
    const error = await runError(
      applyPatchTool,
      {
        input: patch(
          '*** Update File: a.txt',
          '@@',
          '-a',
          '+A',
          '*** Update File: alias.txt',
          '@@',
          '-a',
          '+B',
        ),
      },
      env.ctx,
    )
    expect(error.message).toBe(
      'a.txt and alias.txt are the same file (a.txt), so the patch would change it twice. Nothing was changed.',
    )
    expect(await readFile(join(env.workspace, 'a.txt'), 'utf8')).toBe('a\n')
  })

  it('to delete a symbolic link (DeleteFile removes links)', async () => {
    await writeFile(join(env.root, 't.txt'), 't\n')
    await symlink(join(env.root, 't.txt'), join(env.workspace, 'l.txt'))
    const error = await runError(applyPatchTool, { input: patch('*** Delete File: l.txt') }, env.ctx)
    expect(error.message).toContain('is a symbolic link')
    expect(await readFile(join(env.root, 't.txt'), 'utf8')).toBe('t\n')
  })

  it('a binary file', async () => {
    await writeFile(join(env.workspace, 'b.bin'), Buffer.from([0, 1, 2, 0, 255]))
    await run(read, { file_path: join(env.workspace, 'b.bin') }, env.ctx).catch(() => undefined)
    const error = await runError(
      applyPatchTool,
      { input: patch('*** Update File: b.bin', '@@', '-x', '+y') },
      env.ctx,
    )
    expect(error.message).toContain('binary')
  })

  it('a file changed on disk since it was read', async () => {
    const file = join(env.workspace, 'a.txt')
    await writeFile(file, 'a\n')
    await run(read, { file_path: file }, env.ctx)
    await writeFile(file, 'a\nchanged elsewhere\n')
    const error = await runError(
      applyPatchTool,
      { input: patch('*** Update File: a.txt', '@@', '-a', '+A') },
      env.ctx,
    )
    expect(error.message).toMatch(/modified|changed/)
    expect(await readFile(file, 'utf8')).toBe('a\nchanged elsewhere\n')
  })

  it('nothing when a later section fails: an added file and a folder it made are not left behind', async () => {
    await mkdir(join(env.workspace, 'src'))
    const error = await runError(
      applyPatchTool,
      {
        input: patch(
          '*** Add File: made/new.txt',
          '+x',
          '*** Update File: src/missing.txt',
          '@@',
          '-a',
          '+b',
        ),
      },
      env.ctx,
    )
    expect(error.category).toBe('not_found')
    expect(await readIfExists(join(env.workspace, 'made', 'new.txt'))).toBeUndefined()
  })
})

describe('apply_patch applies', () => {
  it('a file updated twice and one added then updated in the same patch, recording the writes', async () => {
    const file = join(env.workspace, 'a.txt')
    await writeFile(file, '1\n2\n3\n')
    await run(read, { file_path: file }, env.ctx)
    const result = await run(
      applyPatchTool,
      {
        input: patch(
          '*** Update File: a.txt',
          '@@',
          '-1',
          '+one',
          '*** Update File: a.txt',
          '@@',
          '-3',
          '+three',
          '*** Add File: b.txt',
          '+b',
          '*** Update File: b.txt',
          '@@',
          '-b',
          '+B',
        ),
      },
      env.ctx,
    )
    expect(await readFile(file, 'utf8')).toBe('one\n2\nthree\n')
    expect(await readFile(join(env.workspace, 'b.txt'), 'utf8')).toBe('B\n')
    expect(result.forModel).toContain('2 files changed')
    // Written by the tool, so a follow-up patch needs no new Read.
    await run(applyPatchTool, { input: patch('*** Update File: b.txt', '@@', '-B', '+bee') }, env.ctx)
    expect(await readFile(join(env.workspace, 'b.txt'), 'utf8')).toBe('bee\n')
  })
})

describe('applyChunks', () => {
  const chunks = (...lines: string[]) => {
    const [section] = parsePatch(patch('*** Update File: f', ...lines))
    if (section?.kind !== 'update') throw new Error('no update section')
    return section.chunks
  }

  it('an @@ line settles lines that fit several places: the first after it', () => {
    const text = 'def a():\n  x = 1\ndef b():\n  x = 1\n'
    expect(applyChunks(text, chunks('@@ def b():', '-  x = 1', '+  x = 2'), 'f').text).toBe(
      'def a():\n  x = 1\ndef b():\n  x = 2\n',
    )
  })

  it('a tolerant match that fits two places is ambiguous, naming the hunk', () => {
    const text = 'a  \nb\n\na\t\nb\n'
    try {
      applyChunks(text, chunks('@@', ' a', '-b', '+B'), 'f')
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(HunkError)
      expect((error as HunkError).reason).toBe('ambiguous')
      expect((error as HunkError).message).toMatch(
        /^f, hunk 1 \(patch line 3\): its lines match 2 places \(lines 1, 4\)/,
      )
    }
  })

  it('re-indents added lines as Edit does when the context matched with other indentation', () => {
    const text = 'if x:\n        call()\n        done()\n'
    expect(applyChunks(text, chunks('@@', '     call()', '-    done()', '+    finish()'), 'f').text).toBe(
      'if x:\n        call()\n        finish()\n',
    )
  })
})
