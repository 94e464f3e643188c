import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { realPathOf, resolveStartUpPaths, resolveTarget } from '../../../source/permissions/real-path.js'

let root: string
let ws: string

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-real-')))
  ws = join(root, 'ws')
  await mkdir(join(ws, '.git', 'hooks'), { recursive: true })
  await mkdir(join(root, 'outside'))
  await writeFile(join(ws, '.git', 'config'), '')
  await writeFile(join(root, 'outside', 'secret.txt'), 'x')
  await symlink('.git', join(ws, 'gitlink'))
  await symlink('../outside', join(ws, 'link'))
  await symlink('.env', join(ws, 'innocuous.txt'))
  await symlink(join(root, 'outside', 'secret.txt'), join(ws, 'notes.md'))
  await symlink('loop-b', join(ws, 'loop-a'))
  await symlink('loop-a', join(ws, 'loop-b'))
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

describe('realPathOf', () => {
  it.each<[string, string]>([
    ['gitlink/config', 'ws/.git/config'],
    ['gitlink/hooks/pre-commit', 'ws/.git/hooks/pre-commit'],
    ['link/f', 'outside/f'],
    ['link/new/dir/f', 'outside/new/dir/f'],
    ['notes.md', 'outside/secret.txt'],
    ['innocuous.txt', 'ws/.env'],
    ['plain/new.txt', 'ws/plain/new.txt'],
    ['loop-a', 'ws/loop-a'],
    // `..` leaves from where a symlink leads (root/outside), not from the link's own directory.
    ['link/../outside/secret.txt', 'outside/secret.txt'],
    ['link/../new.txt', 'new.txt'],
    ['gitlink/hooks/../config', 'ws/.git/config'],
    ['plain/../x', 'ws/x'],
  ])('%s → %s', async (path, expected) => {
    expect(await realPathOf(`${ws}/${path}`)).toBe(join(root, expected))
  })
})

describe('resolveTarget', () => {
  const opts = () => ({ workspace: ws, home: join(root, 'home') })

  it('fills in the real path of a path target', async () => {
    const target = await resolveTarget(
      { kind: 'path', path: join(ws, 'gitlink/config'), access: 'write' },
      opts(),
    )
    expect(target).toEqual({
      kind: 'path',
      path: join(ws, 'gitlink/config'),
      access: 'write',
      real: join(ws, '.git/config'),
    })
  })

  it('resolves every path a command names, against its cwd', async () => {
    const target = await resolveTarget(
      { kind: 'command', command: 'rm -rf gitlink ../ws/link/f; cat innocuous.txt > out.txt', cwd: ws },
      opts(),
    )
    expect(target.kind === 'command' && target.real).toEqual({
      [join(ws, 'gitlink')]: join(ws, '.git'),
      // Keyed by the path as the kernel walks it: `..` is not folded before the links are followed.
      [`${ws}/../ws/link/f`]: join(root, 'outside/f'),
      [join(ws, 'innocuous.txt')]: join(ws, '.env'),
      [join(ws, 'out.txt')]: join(ws, 'out.txt'),
    })
  })

  it('follows a symlink before the `..` after it', async () => {
    const target = await resolveTarget(
      { kind: 'command', command: 'cat link/../secret.txt', cwd: ws },
      opts(),
    )
    expect(target.kind === 'command' && target.real).toEqual({
      [`${ws}/link/../secret.txt`]: join(root, 'secret.txt'),
    })
  })

  it('leaves a command without paths or git alone', async () => {
    const target = { kind: 'command', command: 'npm test', cwd: ws } as const
    expect(await resolveTarget(target, opts())).toBe(target)
  })

  it('asks git what config its read-only calls would read, where they run', async () => {
    execFileSync('git', ['init', '-q', join(root, 'repo')])
    await writeFile(join(root, 'repo', '.git', 'config'), '[diff "evil"]\n\ttextconv = ./x\n', { flag: 'a' })
    const target = await resolveTarget(
      { kind: 'command', command: 'git -C ../repo diff && git commit -m x', cwd: ws },
      opts(),
    )
    expect(target.kind === 'command' && target.gitConfig).toEqual({
      [`${ws}/../repo`]: {
        ok: true,
        runs: [{ key: 'diff.evil.textconv', origin: join(root, 'repo', '.git', 'config') }],
        workTree: join(root, 'repo'),
      },
    })
  })
})

describe('resolveStartUpPaths', () => {
  it('adds where each start-up entry really leads: a dotfiles repository, a linked config home, a dangling link, a loop', async () => {
    const home = join(root, 'home')
    const dot = join(root, 'dotfiles')
    await mkdir(home)
    await mkdir(join(dot, 'config'), { recursive: true })
    await writeFile(join(dot, 'bashrc'), '')
    await symlink(join(dot, 'bashrc'), join(home, '.bashrc'))
    await symlink(join(dot, 'profile'), join(home, '.profile'))
    await symlink(join(dot, 'config'), join(home, '.config'))
    await symlink('.zshrc', join(home, '.zshrc'))
    const resolved = resolveStartUpPaths(home, {}).filter((p) => p.path.startsWith(dot))
    expect(resolved.map((p) => [p.path, p.shown])).toEqual(
      expect.arrayContaining([
        [join(dot, 'bashrc'), `${join(dot, 'bashrc')} (where ~/.bashrc leads)`],
        [join(dot, 'profile'), `${join(dot, 'profile')} (where ~/.profile leads)`],
        [join(dot, 'config', 'fish'), `${join(dot, 'config', 'fish')} (where ~/.config/fish leads)`],
      ]),
    )
    // The lexical ones stay, and nothing else is added for a home without links.
    expect(
      resolveStartUpPaths(join(root, 'outside'), {}).every((p) => p.path.startsWith(join(root, 'outside'))),
    ).toBe(true)
    expect(resolveStartUpPaths(join(root, 'outside'), {})).toHaveLength(
      resolveStartUpPaths(home, {}).length - resolved.length,
    )
  })
})
