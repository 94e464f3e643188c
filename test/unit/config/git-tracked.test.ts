import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isTrackedByGit } from '../../../source/config/git-tracked.js'

let repo: string
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, stdio: 'pipe' })

beforeEach(async () => {
  repo = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-tracked-')))
  git('init', '-q')
})
afterEach(async () => {
  await rm(repo, { recursive: true, force: true })
})

const LOCAL = '.agent-tui/settings.local.json'

describe('isTrackedByGit: whether the repository brought a file', () => {
  it('a committed file is tracked; an untracked one is not', async () => {
    await mkdir(join(repo, '.agent-tui'))
    await writeFile(join(repo, LOCAL), '{}')
    expect(await isTrackedByGit(repo, LOCAL)).toBe(false)
    git('add', '-f', LOCAL)
    expect(await isTrackedByGit(repo, LOCAL)).toBe(true)
  })

  it('a file reached through a committed symlinked directory is tracked', async () => {
    await mkdir(join(repo, 'cfg'))
    await writeFile(join(repo, 'cfg', 'settings.local.json'), '{}')
    await symlink('cfg', join(repo, '.agent-tui'))
    git('add', '-A')
    expect(await isTrackedByGit(repo, LOCAL)).toBe(true)
  })

  it('a committed file reached through an untracked symlink is tracked', async () => {
    await mkdir(join(repo, 'cfg'))
    await writeFile(join(repo, 'cfg', 'settings.local.json'), '{}')
    git('add', '-A')
    await symlink('cfg', join(repo, '.agent-tui'))
    expect(await isTrackedByGit(repo, LOCAL)).toBe(true)
  })

  it('an untracked symlink to an untracked file is the user’s', async () => {
    await mkdir(join(repo, 'mine'))
    await writeFile(join(repo, 'mine', 'settings.local.json'), '{}')
    await symlink('mine', join(repo, '.agent-tui'))
    expect(await isTrackedByGit(repo, LOCAL)).toBe(false)
  })
})
