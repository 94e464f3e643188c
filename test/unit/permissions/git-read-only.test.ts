import { execFileSync, spawnSync } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type GitConfigFacts,
  gitConfigObjection,
  programSettings,
  readOnlyGitEnv,
  withGitConfig,
} from '../../../source/permissions/git-read-only.js'
import { withGitSafety } from '../../../source/tools/shell-process.js'

/**
 * A "read-only" git command in a repository whose own config names programs: with the settings the
 * Bash tool fixes for read-only commands, none of them runs (real git, a real hostile repository).
 */

let root: string
let repo: string
let marker: string
let base: NodeJS.ProcessEnv

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'git-read-only-')))
  repo = join(root, 'repo')
  marker = join(root, 'marker')
  await mkdir(join(root, 'home'))
  base = { PATH: process.env.PATH, HOME: join(root, 'home'), GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C' }
  const script = join(root, 'ran.sh')
  // Records that it ran, then behaves like cat so git gets an answer.
  await writeFile(script, `#!/bin/sh\necho "$0 $*" >> '${marker}'\nexit 1\n`)
  await chmod(script, 0o755)
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: base })
  await mkdir(repo)
  git('init', '-q')
  await writeFile(join(repo, 'a.txt'), 'hello\n')
  git('add', '.')
  git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'one')
  await writeFile(join(repo, 'a.txt'), 'hello\nchanged\n')
  // The settings that can be turned off (the scan covers the others: git-config-scan.test.ts).
  for (const [key, value] of [
    ['core.fsmonitor', script],
    ['core.pager', script],
    ['status.submoduleSummary', 'true'],
  ])
    git('config', key!, value!)
  // A hook in the repository's own hooks folder: status rewrites the index, which runs it.
  await writeFile(join(repo, '.git', 'hooks', 'post-index-change'), `#!/bin/sh\n${script} hook\n`)
  await chmod(join(repo, '.git', 'hooks', 'post-index-change'), 0o755)
})

afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

const COMMANDS = [
  ['status'],
  ['diff'],
  ['diff', 'HEAD'],
  ['log', '-1'],
  ['log', '-p', '-1'],
  ['show'],
  ['blame', 'a.txt'],
  ['ls-files'],
  ['grep', 'hello'],
  ['describe', '--dirty', '--always'],
  ['diff-files'],
  ['diff-index', 'HEAD'],
]

async function ran(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ programs: string; status: number | null }> {
  await rm(marker, { force: true })
  const result = spawnSync('git', args, { cwd: repo, env, encoding: 'utf8' })
  const programs = await readFile(marker, 'utf8').catch(() => '')
  return { programs, status: result.status }
}

describe('read-only git under a hostile repository config', () => {
  it('without the fixed settings the repository’s programs do run (the repository is hostile)', async () => {
    for (const args of [['status'], ['diff'], ['ls-files']])
      expect((await ran(args, withGitSafety(base))).programs).not.toBe('')
  })

  it.each(COMMANDS)('git %s runs none of them with the read-only settings, and works', async (...args) => {
    expect(await ran(args, withGitSafety(base, { readOnly: true }))).toEqual({ programs: '', status: 0 })
  })
})

describe('withGitConfig', () => {
  it('adds after the command-line entries already in the environment', () => {
    const env = withGitConfig(
      { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'user.name', GIT_CONFIG_VALUE_0: 'me' },
      [['core.fsmonitor', 'false']],
    )
    expect(env).toMatchObject({
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'user.name',
      GIT_CONFIG_KEY_1: 'core.fsmonitor',
      GIT_CONFIG_VALUE_1: 'false',
    })
    expect(readOnlyGitEnv({}).GIT_OPTIONAL_LOCKS).toBe('0')
  })
})

describe('programSettings', () => {
  const entry = (scope: string, origin: string, key: string, value?: string) =>
    `${scope}\0file:${origin}\0${value === undefined ? key : `${key}\n${value}`}\0`
  it.each<[string, string, string[]]>([
    ['a diff driver', entry('local', '.git/config', 'diff.evil.textconv', './x'), ['diff.evil.textconv']],
    ['a diff command', entry('local', '.git/config', 'diff.Evil.command', 'x'), ['diff.evil.command']],
    ['diff.external', entry('local', '.git/config', 'diff.external', './x'), ['diff.external']],
    ['a signing program', entry('local', '.git/config', 'gpg.ssh.program', './x'), ['gpg.ssh.program']],
    ['the user’s diff.external', entry('global', '/home/u/.gitconfig', 'diff.external', 'difft'), []],
    ['a clean filter', entry('local', 'inc.cfg', 'filter.f.clean', 'x'), ['filter.f.clean']],
    [
      'a process filter',
      entry('worktree', '.git/config.worktree', 'filter.f.process', 'x'),
      ['filter.f.process'],
    ],
    [
      'a promisor remote',
      entry('local', '.git/config', 'remote.origin.promisor', 'true'),
      ['remote.origin.promisor'],
    ],
    ['a promisor set to false', entry('local', '.git/config', 'remote.origin.promisor', 'false'), []],
    ['the user’s own driver', entry('global', '/home/u/.gitconfig', 'diff.pdf.textconv', 'pdftotext'), []],
    ['a system filter', entry('system', '/etc/gitconfig', 'filter.lfs.clean', 'git-lfs clean'), []],
    ['an emptied driver', entry('local', '.git/config', 'diff.evil.textconv', ''), []],
    ['a fixed setting', entry('local', '.git/config', 'core.fsmonitor', './x'), []],
    ['a value-less key', entry('local', '.git/config', 'filter.f.clean'), ['filter.f.clean']],
  ])('%s', (_name, listing, keys) => {
    expect(programSettings(listing).map((r) => r.key)).toEqual(keys)
  })

  it('reads submodule ignore settings from .gitmodules', () => {
    const gitmodules = 'submodule.a.path\na\0submodule.a.ignore\nnone\0submodule.b.ignore\ndirty\0'
    expect(programSettings('', gitmodules)).toEqual([{ key: 'submodule.a.ignore', origin: '.gitmodules' }])
  })
})

describe('gitConfigObjection', () => {
  const boundary = { workspace: '/w', additionalDirs: [], trustedReadDirs: [] }
  const shown = (p: string) => p.replace(/^\/w\//, '')
  const clean: GitConfigFacts = { ok: true, runs: [], workTree: '/w' }
  it.each<[string, string[] | undefined, Record<string, GitConfigFacts>, RegExp | undefined]>([
    ['a clean repository', ['/w'], { '/w': clean }, undefined],
    ['no git call', [], {}, undefined],
    ['a folder known only when it runs', undefined, {}, /only known when it runs/],
    ['a folder not looked at', ['/w/sub'], { '/w': clean }, /was not checked/],
    [
      'a config git could not read',
      ['/w'],
      { '/w': { ok: false, reason: 'bad config line 3' } },
      /cannot be checked \(bad config line 3\)/,
    ],
    [
      'a driver',
      ['/w'],
      { '/w': { ok: true, runs: [{ key: 'diff.evil.textconv', origin: '/w/.git/config' }] } },
      /git config \(\.git\/config\) sets diff\.evil\.textconv, a program git runs/,
    ],
    [
      'a submodule looked into',
      ['/w'],
      { '/w': { ok: true, runs: [{ key: 'submodule.a.ignore', origin: '.gitmodules' }] } },
      /\.gitmodules sets submodule\.a\.ignore/,
    ],
    [
      'a file blame would quote from, outside',
      ['/w'],
      { '/w': { ok: true, runs: [], reads: [{ key: 'blame.ignorerevsfile', path: '/home/u/.env' }] } },
      /sets blame\.ignorerevsfile to \/home\/u\/\.env, which git would quote from \(reads outside/,
    ],
    [
      'the usual ignore-revs file in the work tree',
      ['/w'],
      {
        '/w': {
          ok: true,
          runs: [],
          reads: [{ key: 'blame.ignorerevsfile', path: '/w/.git-blame-ignore-revs' }],
        },
      },
      undefined,
    ],
    [
      'a work tree outside',
      ['/w'],
      { '/w': { ok: true, runs: [], workTree: '/home/u' } },
      /points its work tree at \/home\/u \(reads outside the workspace need consent\)/,
    ],
    ['a work tree below', ['/w/sm'], { '/w/sm': { ok: true, runs: [], workTree: '/w/sm' } }, undefined],
  ])('%s', (_name, dirs, facts, want) => {
    const objection = gitConfigObjection(dirs, facts, boundary, shown)
    if (want === undefined) expect(objection).toBeUndefined()
    else expect(objection).toMatch(want)
  })
})
