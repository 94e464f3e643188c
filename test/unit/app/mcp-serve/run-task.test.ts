import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { progressOf, tooBroadRoot } from '../../../../source/app/mcp-serve/serve.js'
import { taskFolder } from '../../../../source/app/mcp-serve/run-task.js'

let dir: string
let root: string
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-serve-')))
  root = join(dir, 'root')
  await mkdir(join(root, 'sub', 'deeper'), { recursive: true })
  for (const config of ['.claude/hooks', '.agent-tui', '.git/hooks', '.vscode', 'sub/.Claude'])
    await mkdir(join(root, config), { recursive: true })
  await symlink(join(root, '.claude'), join(root, 'plain-name'))
  await mkdir(join(dir, 'outside'))
  await mkdir(join(dir, 'root-sibling'))
  await writeFile(join(root, 'file.txt'), 'x')
  await symlink(join(dir, 'outside'), join(root, 'escape'))
  await symlink(join(root, 'sub'), join(dir, 'outside', 'back-in'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

describe("a task's folder", () => {
  it.each([
    [undefined, ''],
    ['.', ''],
    ['sub', 'sub'],
    ['sub/deeper/..', 'sub'],
    ['./sub/deeper', 'sub/deeper'],
  ])('cwd %j is %j under the root', async (cwd, rel) => {
    expect(await taskFolder(root, cwd)).toEqual({ ok: true, path: rel ? join(root, rel) : root })
  })

  it('an absolute path inside the root, also through a link from outside', async () => {
    expect(await taskFolder(root, join(root, 'sub'))).toEqual({ ok: true, path: join(root, 'sub') })
    expect(await taskFolder(root, join(dir, 'outside', 'back-in'))).toEqual({
      ok: true,
      path: join(root, 'sub'),
    })
  })

  it.each([
    ['..', 'is outside the folder this server was started in'],
    ['../root-sibling', 'is outside the folder'],
    ['escape', 'is outside the folder'],
    ['/', 'is outside the folder'],
    ['missing', 'no such directory'],
    ['file.txt', 'not a directory'],
    // Protected relative to the workspace only: a task there would write hooks as ordinary files.
    ['.claude', 'inside .claude/, a protected folder'],
    ['.claude/hooks', 'inside .claude/'],
    ['.agent-tui', 'inside .agent-tui/'],
    ['.git/hooks', 'inside .git/'],
    ['.vscode', 'inside .vscode/'],
    ['sub/.Claude', 'inside .claude/'],
    ['plain-name', 'inside .claude/'],
  ])('cwd %j is refused: %s', async (cwd, message) => {
    const found = await taskFolder(root, cwd)
    expect(found.ok).toBe(false)
    if (!found.ok) expect(found.message).toContain(message)
  })
})

describe('progress notifications', () => {
  it('a line per tool call and per step, none for the rest', () => {
    expect(progressOf({ type: 'step/started', step: 2 })).toBe('step 2')
    expect(
      progressOf({ type: 'tool/started', callId: 'c1', name: 'Bash', summary: 'Bash npm test', at: 0 }),
    ).toBe('Bash npm test')
    expect(progressOf({ type: 'phase/changed', phase: 'streaming' })).toBeNull()
  })
})

describe('a server started too high up', () => {
  it.each([
    ['/', '/'],
    ['home', 'your home folder'],
    ['parent of home', 'a parent of your home folder'],
    ['a project in home', null],
    ['a sibling of home', null],
  ])('%s', async (where, named) => {
    const home = join(dir, 'home', 'me')
    await mkdir(join(home, 'code'), { recursive: true })
    await mkdir(join(dir, 'home', 'other'), { recursive: true })
    const root = {
      '/': '/',
      home,
      'parent of home': join(dir, 'home'),
      'a project in home': join(home, 'code'),
      'a sibling of home': join(dir, 'home', 'other'),
    }[where]!
    const found = await tooBroadRoot(root, home)
    if (named === null) expect(found).toBeNull()
    else expect(found).toContain(named)
  })
})
