import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { scanEnv, scanGitConfig } from '../../../source/permissions/git-config-scan.js'

/**
 * What git would read in a directory, asked of real git in real repositories a hostile repository could
 * ship: its own config, what that includes, its worktree config, a `.git` file pointing elsewhere,
 * `core.worktree`, `.gitmodules`. The user's own config is theirs and never counts.
 */

let root: string
let home: string
let env: NodeJS.ProcessEnv

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'git-config-scan-')))
  home = join(root, 'home')
  await mkdir(home)
  env = scanEnv({ PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1' })
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

async function repo(name: string, config = ''): Promise<string> {
  const dir = join(root, name)
  await mkdir(dir, { recursive: true })
  execFileSync('git', ['init', '-q'], { cwd: dir, env })
  if (config) await writeFile(join(dir, '.git', 'config'), config, { flag: 'a' })
  return dir
}

const scan = (dir: string, timeoutMs?: number) =>
  scanGitConfig(dir, { env, ...(timeoutMs === undefined ? {} : { timeoutMs }) })

describe('scanGitConfig', () => {
  it('a clean repository: nothing runs, its work tree is where it is', async () => {
    const dir = await repo('clean')
    await mkdir(join(dir, 'sub'))
    expect(await scan(join(dir, 'sub'))).toEqual({ ok: true, runs: [], workTree: dir })
  })

  it('asks the git it is given, by path; with none outside the workspace the call is not read-only', async () => {
    const dir = await repo('clean-too')
    // A `git` planted on a PATH entry in the workspace: the scan (outside any sandbox) must not run it.
    const planted = join(dir, 'bin', 'git')
    await mkdir(join(dir, 'bin'))
    await writeFile(planted, `#!/bin/sh\ntouch ${join(root, 'pwned')}\n`, { mode: 0o755 })
    const withPlanted = { ...env, PATH: `${join(dir, 'bin')}:${env.PATH}` }
    const host = execFileSync('sh', ['-c', 'command -v git'], { env }).toString().trim()
    expect(await scanGitConfig(dir, { env: withPlanted, program: host })).toEqual({
      ok: true,
      runs: [],
      workTree: dir,
    })
    expect(await scanGitConfig(dir, { env: withPlanted, program: null })).toEqual({
      ok: false,
      reason: 'no git outside the workspace to ask what the repository configures',
    })
    await expect(realpath(join(root, 'pwned'))).rejects.toThrow()
  })

  it('not a repository, or a bare-looking one git refuses: nothing to run', async () => {
    await mkdir(join(root, 'plain'))
    expect(await scan(join(root, 'plain'))).toEqual({ ok: true, runs: [] })
    const bare = join(root, 'bare')
    await mkdir(join(bare, 'objects'), { recursive: true })
    await mkdir(join(bare, 'refs'))
    await writeFile(join(bare, 'HEAD'), 'ref: refs/heads/main\n')
    await writeFile(join(bare, 'config'), '[core]\n\tbare = true\n[diff "x"]\n\ttextconv = ./run\n')
    expect(await scan(bare)).toEqual({ ok: true, runs: [] })
  })

  it('a driver in .git/config, with the file it is in', async () => {
    const dir = await repo('driver', '[diff "evil"]\n\ttextconv = ./run.sh\n')
    expect(await scan(dir)).toMatchObject({
      ok: true,
      runs: [{ key: 'diff.evil.textconv', origin: join(dir, '.git', 'config') }],
    })
  })

  it('a filter in a file the config includes (include.path and includeIf)', async () => {
    const dir = await repo(
      'include',
      `[include]\n\tpath = ../inc.cfg\n[includeIf "gitdir:${root}/"]\n\tpath = ${root}/cond.cfg\n`,
    )
    await writeFile(join(dir, 'inc.cfg'), '[filter "a"]\n\tclean = ./a\n')
    await writeFile(join(root, 'cond.cfg'), '[filter "b"]\n\tprocess = ./b\n')
    const facts = await scan(dir)
    expect(facts.ok && facts.runs).toEqual([
      { key: 'filter.a.clean', origin: join(dir, 'inc.cfg') },
      { key: 'filter.b.process', origin: join(root, 'cond.cfg') },
    ])
  })

  it('the worktree config (extensions.worktreeConfig)', async () => {
    const dir = await repo(
      'wtconfig',
      '[core]\n\trepositoryformatversion = 1\n[extensions]\n\tworktreeConfig = true\n',
    )
    await writeFile(join(dir, '.git', 'config.worktree'), '[diff "w"]\n\tcommand = ./w\n')
    const facts = await scan(dir)
    expect(facts.ok && facts.runs).toEqual([
      { key: 'diff.w.command', origin: join(dir, '.git', 'config.worktree') },
    ])
  })

  it('a .git file pointing at a git dir elsewhere: that config is read', async () => {
    const other = await repo('other', '[filter "o"]\n\tsmudge = ./o\n')
    const dir = join(root, 'pointer')
    await mkdir(dir)
    await writeFile(join(dir, '.git'), `gitdir: ${join(other, '.git')}\n`)
    const facts = await scan(dir)
    expect(facts.ok && facts.runs).toEqual([
      { key: 'filter.o.smudge', origin: join(other, '.git', 'config') },
    ])
  })

  it('core.worktree: the work tree git would read is reported wherever it points', async () => {
    const outside = join(root, 'outside')
    await mkdir(outside)
    const dir = await repo('worktree', `[core]\n\tworktree = ${outside}\n`)
    expect(await scan(dir)).toMatchObject({ ok: true, runs: [], workTree: outside })
  })

  it('a partial clone fetches on a read: its promisor remote counts', async () => {
    const dir = await repo('partial', '[remote "origin"]\n\turl = ./x\n\tpromisor = true\n')
    const facts = await scan(dir)
    expect(facts.ok && facts.runs.map((r) => r.key)).toEqual(['remote.origin.promisor'])
  })

  it("blame's ignore-revs file, resolved from the work tree", async () => {
    const dir = await repo('blame', '[blame]\n\tignoreRevsFile = .git-blame-ignore-revs\n')
    await writeFile(join(dir, '.git-blame-ignore-revs'), '')
    expect(await scan(dir)).toMatchObject({
      reads: [{ key: 'blame.ignorerevsfile', path: join(dir, '.git-blame-ignore-revs') }],
    })
  })

  it('a file the repository includes, which `git config` would print: only the ones git read', async () => {
    await writeFile(join(home, '.pypirc'), '[pypi]\n\tpassword = pypi-secret\n')
    const dir = await repo(
      'includes',
      '[include]\n\tpath = ~/.pypirc\n[include]\n\tpath = ../shared.cfg\n' +
        '[includeIf "gitdir:/nowhere/"]\n\tpath = /etc/never-read.cfg\n',
    )
    await writeFile(join(dir, 'shared.cfg'), '[core]\n\tabbrev = 12\n')
    expect(await scan(dir)).toMatchObject({
      ok: true,
      reads: [
        { key: 'include.path', path: join(home, '.pypirc') },
        { key: 'include.path', path: join(dir, 'shared.cfg') },
      ],
    })
  })

  it('a linked worktree: its repository’s own config is no include', async () => {
    const main = await repo('main')
    execFileSync(
      'git',
      ['-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-q', '--allow-empty', '-m', 'x'],
      {
        cwd: main,
        env,
      },
    )
    execFileSync('git', ['worktree', 'add', '-q', join(root, 'linked')], { cwd: main, env })
    const facts = await scan(join(root, 'linked'))
    expect(facts).toMatchObject({ ok: true, runs: [] })
    expect(facts.ok && facts.reads).toBeUndefined()
  })

  it('.gitmodules asking git to look into a submodule', async () => {
    const dir = await repo('super')
    await writeFile(
      join(dir, '.gitmodules'),
      '[submodule "sm"]\n\tpath = sm\n\turl = ./sm\n\tignore = none\n',
    )
    const facts = await scan(dir)
    expect(facts.ok && facts.runs).toEqual([{ key: 'submodule.sm.ignore', origin: '.gitmodules' }])
  })

  it("the user's own config is theirs", async () => {
    await writeFile(
      join(home, '.gitconfig'),
      '[diff "pdf"]\n\ttextconv = pdftotext\n[filter "lfs"]\n\tclean = git-lfs clean\n',
    )
    const dir = await repo('users')
    expect(await scan(dir)).toMatchObject({ ok: true, runs: [] })
  })

  it('an include that blocks (a FIFO) is given up on, not waited for', async () => {
    const dir = await repo('fifo', `[include]\n\tpath = ${join(root, 'pipe')}\n`)
    execFileSync('mkfifo', [join(root, 'pipe')])
    expect(await scan(dir, 300)).toEqual({ ok: false, reason: 'git did not answer in 300 ms' })
  })

  it('a config git cannot parse cannot be checked', async () => {
    const dir = await repo('broken', '[core\n')
    expect(await scan(dir)).toMatchObject({ ok: false, reason: expect.stringMatching(/bad config line/) })
  })
})
