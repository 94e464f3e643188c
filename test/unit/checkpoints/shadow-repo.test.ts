import { existsSync } from 'node:fs'
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { GitUnavailableError } from '../../../source/checkpoints/git.js'
import { ShadowRepo, WorkspaceLimitError } from '../../../source/checkpoints/shadow-repo.js'
import { fingerprint, GIT, makeWorkspace, projectGit, type Workspace } from './helpers.js'

let ws: Workspace
beforeEach(async () => {
  ws = await makeWorkspace()
})
afterEach(async () => {
  await ws.cleanup()
})

function repo(
  opts: { maxFileBytes?: number; maxFiles?: number; projectExclude?: string; git?: string } = {},
) {
  return new ShadowRepo({
    gitDir: join(ws.state, 'shadow'),
    workTree: ws.dir,
    git: opts.git ?? GIT,
    maxFileBytes: opts.maxFileBytes ?? 2 * 1024 * 1024,
    maxFiles: opts.maxFiles ?? 100_000,
    ...(opts.projectExclude ? { projectExclude: opts.projectExclude } : {}),
  })
}

/** Puts the workspace back as `tree` had it, the way a rewind does: changed files written, new ones deleted. */
async function restoreAll(shadow: ShadowRepo, tree: string) {
  const now = await shadow.snapshot()
  const changes = await shadow.diff(tree, now.tree)
  const remove = changes.filter((c) => !c.before).map((c) => c.path)
  const restore = changes.filter((c) => c.before).map((c) => c.path)
  const refused = [...(await shadow.remove(remove)), ...(await shadow.writeFrom(tree, restore))]
  return { changes, refused }
}

describe('ShadowRepo', () => {
  it('snapshots, diffs and restores: edits, deletions, new files (and their new directories), modes, symlinks', async () => {
    await ws.write('a.txt', 'alpha\n')
    await ws.write('src/b.txt', 'bravo\n')
    await ws.write('run.sh', '#!/bin/sh\necho hi\n')
    await symlink('a.txt', join(ws.dir, 'link'))
    const shadow = repo()
    const before = await shadow.snapshot()

    await ws.write('a.txt', 'ALPHA\n')
    await rm(join(ws.dir, 'src/b.txt'))
    await ws.write('new/deep/c.txt', 'new\n')
    await chmod(join(ws.dir, 'run.sh'), 0o755)
    await rm(join(ws.dir, 'link'))
    await symlink('run.sh', join(ws.dir, 'link'))

    const after = await shadow.snapshot()
    const changes = await shadow.diff(before.tree, after.tree)
    expect(changes.map((c) => [c.path, c.before ? 'before' : '-', c.after ? 'after' : '-'])).toEqual([
      ['a.txt', 'before', 'after'],
      ['link', 'before', 'after'],
      ['new/deep/c.txt', '-', 'after'],
      ['run.sh', 'before', 'after'],
      ['src/b.txt', 'before', '-'],
    ])

    const { refused } = await restoreAll(shadow, before.tree)
    expect(refused).toEqual([])
    expect(await ws.read('a.txt')).toBe('alpha\n')
    expect(await ws.read('src/b.txt')).toBe('bravo\n')
    expect(existsSync(join(ws.dir, 'new'))).toBe(false)
    expect((await stat(join(ws.dir, 'run.sh'))).mode & 0o111).toBe(0)
    expect(await readlink(join(ws.dir, 'link'))).toBe('a.txt')
    expect((await shadow.snapshot()).tree).toBe(before.tree)
  })

  it('honours the project’s .gitignore and .git/info/exclude, and never records .git', async () => {
    projectGit(ws.dir, ['init', '-q'])
    await ws.write('.gitignore', 'node_modules/\n*.log\n')
    await ws.write('node_modules/pkg/index.js', 'x')
    await ws.write('debug.log', 'x')
    await ws.write('secret.env', 'x')
    await ws.write('kept.txt', 'x')
    const shadow = repo({ projectExclude: 'secret.env\n' })
    const snap = await shadow.snapshot()
    const paths = (await shadow.diff('4b825dc642cb6eb9a060e54bf8d69288fbee4904', snap.tree)).map(
      (c) => c.path,
    )
    expect(paths).toEqual(['.gitignore', 'kept.txt'])
  })

  it('leaves files over the size cap out, says which, and takes them back once they shrink', async () => {
    await ws.write('small.txt', 'x')
    await ws.write('grows.bin', 'tiny')
    const shadow = repo({ maxFileBytes: 1000 })
    const first = await shadow.snapshot()
    expect(first.skipped).toEqual([])

    await ws.write('huge.bin', Buffer.alloc(5000))
    await ws.write('grows.bin', Buffer.alloc(2000))
    const second = await shadow.snapshot()
    expect(second.skipped).toEqual([
      { path: 'grows.bin', bytes: 2000 },
      { path: 'huge.bin', bytes: 5000 },
    ])
    const paths = (await shadow.diff(first.tree, second.tree)).map((c) => [c.path, c.after ? 'in' : 'out'])
    // grows.bin is no longer in the snapshot (its content is not stored); huge.bin never was.
    expect(paths).toEqual([['grows.bin', 'out']])

    // A later session reads the list back from the shadow repository.
    const later = repo({ maxFileBytes: 1000 })
    await ws.write('grows.bin', 'small again')
    const third = await later.snapshot()
    expect(third.skipped).toEqual([{ path: 'huge.bin', bytes: 5000 }])
    expect((await later.diff(first.tree, third.tree)).map((c) => c.path)).toEqual(['grows.bin'])
  })

  it('refuses a workspace with more files than the limit, before storing anything', async () => {
    for (let i = 0; i < 6; i++) await ws.write(`f${i}.txt`, String(i))
    const shadow = repo({ maxFiles: 5 })
    await expect(shadow.snapshot()).rejects.toThrow(WorkspaceLimitError)
    await expect(shadow.snapshot()).rejects.toThrow('over 5 files that .gitignore does not exclude')
    expect(await shadow.indexEntries()).toBe(0)
  })

  it('keeps bytes exact whatever the project’s .gitattributes say (no line-ending conversion, no filters)', async () => {
    await ws.write('.gitattributes', '* text=auto eol=crlf\n*.dat filter=lfs\n')
    await ws.write('lf.txt', 'one\ntwo\n')
    await ws.write('crlf.txt', 'one\r\ntwo\r\n')
    const shadow = repo()
    const snap = await shadow.snapshot()
    await ws.write('lf.txt', 'changed')
    await ws.write('crlf.txt', 'changed')
    await restoreAll(shadow, snap.tree)
    expect(await ws.read('lf.txt')).toBe('one\ntwo\n')
    expect(await ws.read('crlf.txt')).toBe('one\r\ntwo\r\n')
  })

  it('does not write through a directory that became a symlink, nor replace what is now in a file’s way', async () => {
    await ws.write('dir/file.txt', 'inside\n')
    await ws.write('other.txt', 'other\n')
    const outside = join(ws.root, 'outside')
    await mkdir(outside)
    await writeFile(join(outside, 'file.txt'), 'not yours\n')
    const shadow = repo()
    const snap = await shadow.snapshot()

    await rm(join(ws.dir, 'dir'), { recursive: true })
    await symlink(outside, join(ws.dir, 'dir'))
    await rm(join(ws.dir, 'other.txt'))
    await mkdir(join(ws.dir, 'other.txt'))
    await writeFile(join(ws.dir, 'other.txt', 'mine'), 'keep me\n')

    expect(await shadow.writeFrom(snap.tree, ['dir/file.txt', 'other.txt'])).toEqual([
      'dir/file.txt',
      'other.txt',
    ])
    expect(await shadow.remove(['dir/file.txt'])).toEqual(['dir/file.txt'])
    expect(await ws.read('other.txt/mine')).toBe('keep me\n')
    expect((await lstat(join(ws.dir, 'dir'))).isSymbolicLink()).toBe(true)
    expect(await ws.read('dir/file.txt')).toBe('not yours\n')
  })

  it('snapshots a workspace where a directory became a symlink (its old files recorded as gone)', async () => {
    await ws.write('dir/file.txt', 'inside\n')
    await ws.write('dir/sub/deep.txt', 'deep\n')
    const outside = join(ws.root, 'outside')
    await mkdir(outside)
    const shadow = repo()
    const before = await shadow.snapshot()

    await rm(join(ws.dir, 'dir'), { recursive: true })
    await symlink(outside, join(ws.dir, 'dir'))

    const after = await shadow.snapshot()
    const changes = await shadow.diff(before.tree, after.tree)
    expect(changes.map((c) => [c.path, c.before ? 'before' : '-', c.after?.mode ?? '-'])).toEqual([
      ['dir', '-', '120000'],
      ['dir/file.txt', 'before', '-'],
      ['dir/sub/deep.txt', 'before', '-'],
    ])
    // And back: the link goes, the directory and its files return.
    await rm(join(ws.dir, 'dir'))
    await ws.write('dir/file.txt', 'inside\n')
    await ws.write('dir/sub/deep.txt', 'deep\n')
    expect((await shadow.snapshot()).tree).toBe(before.tree)
  })
  it('marks a nested repository as such instead of snapshotting its files', async () => {
    await ws.write('top.txt', 'x')
    const shadow = repo()
    const before = await shadow.snapshot()
    await ws.write('vendor/lib/a.txt', 'a')
    projectGit(join(ws.dir, 'vendor/lib'), ['init', '-q'])
    projectGit(join(ws.dir, 'vendor/lib'), ['add', '.'])
    projectGit(join(ws.dir, 'vendor/lib'), ['commit', '-qm', 'x'])
    const after = await shadow.snapshot()
    const changes = await shadow.diff(before.tree, after.tree)
    expect(changes.map((c) => [c.path, c.nested])).toEqual([['vendor/lib', true]])
  })

  it('a nested repository git cannot record (no commit yet) is left out; the rest is snapshotted', async () => {
    await ws.write('top.txt', 'x')
    const shadow = repo()
    const before = await shadow.snapshot()
    // A hostile repository (or a sandboxed command) plants these to switch checkpoints off.
    await ws.write('vendor/empty/a.txt', 'a')
    projectGit(join(ws.dir, 'vendor/empty'), ['init', '-q'])
    // A `.git` file naming nothing is no repository: its folder's files are recorded as files.
    await ws.write('vendor/broken/.git', 'gitdir: /nowhere\n')
    await ws.write('vendor/broken/b.txt', 'b')
    await ws.write('vendor/lib/c.txt', 'c')
    projectGit(join(ws.dir, 'vendor/lib'), ['init', '-q'])
    projectGit(join(ws.dir, 'vendor/lib'), ['add', '.'])
    projectGit(join(ws.dir, 'vendor/lib'), ['commit', '-qm', 'x'])
    await ws.write('top.txt', 'changed')
    const after = await shadow.snapshot()
    const changes = await shadow.diff(before.tree, after.tree)
    expect(changes.map((c) => [c.path, c.nested])).toEqual([
      ['top.txt', false],
      ['vendor/broken/b.txt', false],
      ['vendor/lib', true],
    ])
    // A repository once recorded that loses its commits does not stop later snapshots either.
    await rm(join(ws.dir, 'vendor/lib/.git'), { recursive: true })
    projectGit(join(ws.dir, 'vendor/lib'), ['init', '-q'])
    await ws.write('top.txt', 'again')
    const later = await shadow.snapshot()
    expect((await shadow.diff(after.tree, later.tree)).map((c) => c.path)).toContain('top.txt')
  })

  it('fails with GitUnavailableError when git cannot be started', async () => {
    await expect(repo({ git: join(ws.root, 'no-such-bin', 'git') }).snapshot()).rejects.toThrow(
      GitUnavailableError,
    )
  })
})

describe('ShadowRepo and the project’s own repository', () => {
  it('leaves .git, its index and its stash exactly as they were', async () => {
    projectGit(ws.dir, ['init', '-q'])
    await ws.write('a.txt', 'committed\n')
    await ws.write('b.txt', 'committed\n')
    projectGit(ws.dir, ['add', '.'])
    projectGit(ws.dir, ['commit', '-qm', 'one'])
    await ws.write('a.txt', 'stashed\n')
    projectGit(ws.dir, ['stash', '-q'])
    await ws.write('b.txt', 'staged\n')
    projectGit(ws.dir, ['add', 'b.txt'])
    await ws.write('c.txt', 'untracked\n')
    const before = await fingerprint(join(ws.dir, '.git'))
    const stashes = projectGit(ws.dir, ['stash', 'list'])

    const shadow = repo()
    const snap = await shadow.snapshot()
    await ws.write('a.txt', 'agent\n')
    await ws.write('d.txt', 'agent\n')
    await restoreAll(shadow, snap.tree)

    expect(await fingerprint(join(ws.dir, '.git'))).toEqual(before)
    expect(projectGit(ws.dir, ['stash', 'list'])).toBe(stashes)
    expect(projectGit(ws.dir, ['status', '--porcelain'], { GIT_OPTIONAL_LOCKS: '0' })).toBe(
      'M  b.txt\n?? c.txt\n',
    )
  })

  it('runs nothing a hostile repository configures (fsmonitor, hooks, filters)', async () => {
    const marker = join(ws.root, 'pwned')
    projectGit(ws.dir, ['init', '-q'])
    await ws.write('.gitattributes', '* filter=evil\n')
    await ws.write('a.txt', 'x\n')
    await writeFile(
      join(ws.dir, '.git', 'config'),
      [
        '[core]',
        `\tfsmonitor = touch ${marker}-fsmonitor; false`,
        `\thooksPath = ${join(ws.root, 'hooks')}`,
        '[filter "evil"]',
        `\tclean = touch ${marker}-filter; cat`,
        `\tsmudge = touch ${marker}-filter; cat`,
        '',
      ].join('\n'),
    )
    // The trap is real: git run in the project itself springs it.
    projectGit(ws.dir, ['add', 'a.txt'])
    projectGit(ws.dir, ['status'])
    expect(existsSync(`${marker}-filter`)).toBe(true)
    expect(existsSync(`${marker}-fsmonitor`)).toBe(true)
    await rm(`${marker}-filter`, { force: true })
    await rm(`${marker}-fsmonitor`, { force: true })

    const shadow = repo()
    const snap = await shadow.snapshot()
    await ws.write('a.txt', 'changed\n')
    await shadow.snapshot()
    await restoreAll(shadow, snap.tree)
    expect(await ws.read('a.txt')).toBe('x\n')
    expect(existsSync(`${marker}-fsmonitor`)).toBe(false)
    expect(existsSync(`${marker}-filter`)).toBe(false)
  })

  it('runs nothing the user’s config, agent-tui’s environment or a nested repository configures', async () => {
    const marker = join(ws.root, 'pwned')
    const trap = (what: string) => `touch ${marker}-${what}; cat`
    const filters = (name: string, what: string) =>
      `[filter "${name}"]\n\tclean = ${trap(what)}\n\tsmudge = ${trap(what)}\n\tprocess = ${trap(what)}\n`
    // The user's global config (as git-lfs installs its filter there) and XDG attributes naming it.
    const xdg = join(ws.root, 'xdg')
    await mkdir(join(xdg, 'git'), { recursive: true })
    await writeFile(join(xdg, 'git', 'config'), filters('user', 'global'))
    await writeFile(join(xdg, 'git', 'attributes'), '* filter=user\n')
    await writeFile(join(ws.root, '.gitconfig'), filters('user', 'home'))
    // A nested repository in the work tree, with its own hostile config and attributes.
    projectGit(ws.dir, ['init', '-q', 'vendor/lib'])
    await ws.write('vendor/lib/.gitattributes', '* filter=nested\n')
    await ws.write('vendor/lib/x.txt', 'x\n')
    projectGit(join(ws.dir, 'vendor/lib'), ['add', '.'])
    projectGit(join(ws.dir, 'vendor/lib'), ['commit', '-qm', 'nested'])
    await writeFile(
      join(ws.dir, 'vendor/lib/.git/config'),
      `[core]\n\tfsmonitor = ${trap('nested-fsmonitor')}\n${filters('nested', 'nested')}`,
      { flag: 'a' },
    )
    // The work tree's .gitmodules asks git to look into the nested repository's work tree.
    await ws.write('.gitmodules', '[submodule "lib"]\n\tpath = vendor/lib\n\turl = ./x\n\tignore = none\n')
    await ws.write('.gitattributes', '* filter=user diff=user\n')
    await ws.write('a.txt', 'x\n')
    const saved = { ...process.env }
    Object.assign(process.env, {
      HOME: ws.root,
      XDG_CONFIG_HOME: xdg,
      // Command-line config agent-tui itself was started with (from a git hook, say).
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'filter.user.clean',
      GIT_CONFIG_VALUE_0: trap('env'),
      GIT_CONFIG_PARAMETERS: `'filter.user.smudge'='${trap('params')}'`,
    })
    try {
      const shadow = repo()
      const snap = await shadow.snapshot()
      await ws.write('a.txt', 'changed\n')
      await ws.write('vendor/lib/x.txt', 'changed\n')
      await shadow.snapshot()
      await restoreAll(shadow, snap.tree)
      expect(await ws.read('a.txt')).toBe('x\n')
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
      Object.assign(process.env, saved)
    }
    const sprung = (await readdir(ws.root)).filter((name) => name.startsWith('pwned'))
    expect(sprung).toEqual([])
  })
})

describe('the shadow repository’s own files', () => {
  it('are never written through a link: a linked info/ is refused, a linked file is replaced', async () => {
    const outside = join(ws.state, 'outside')
    await mkdir(outside, { recursive: true })
    await writeFile(join(outside, 'attributes'), 'kept\n')
    const shadow = repo()
    await shadow.init()
    const info = join(ws.state, 'shadow', 'info')
    await rm(info, { recursive: true })
    await symlink(outside, info)
    await rm(join(ws.state, 'shadow', 'HEAD'))
    const again = repo()
    await expect(again.init()).rejects.toThrow(/info is a symbolic link/)
    expect(await readFile(join(outside, 'attributes'), 'utf8')).toBe('kept\n')
    await rm(info)
    await mkdir(info)
    await symlink(join(outside, 'attributes'), join(info, 'attributes'))
    await repo().init()
    expect((await lstat(join(info, 'attributes'))).isFile()).toBe(true)
    expect(await readFile(join(outside, 'attributes'), 'utf8')).toBe('kept\n')
  })
})
