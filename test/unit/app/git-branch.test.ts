import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { branchOf, readGitBranch } from '../../../source/app/session/git-branch.js'

/** The branch shown in the system prompt comes from the repository's files: only a name or a hash. */

let root: string
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-branch-')))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

describe('branchOf', () => {
  it.each([
    ['ref: refs/heads/main\n', 'main'],
    ['ref: refs/heads/feature/x-1', 'feature/x-1'],
    [`${'a'.repeat(40)}\n`, 'aaaaaaa'],
    ['ref: refs/heads/bad\u001b[2Jname', undefined],
    ['ref: refs/heads/two words', undefined],
    ['-----BEGIN OPENSSH PRIVATE KEY-----', undefined],
    ['', undefined],
  ])('%j → %s', (head, branch) => {
    expect(branchOf(head)).toBe(branch)
  })
})

describe('readGitBranch', () => {
  it('reads a repository, a worktree’s gitdir file, and looks in the parents', async () => {
    await mkdir(join(root, 'repo', '.git'), { recursive: true })
    await writeFile(join(root, 'repo', '.git', 'HEAD'), 'ref: refs/heads/main\n')
    await mkdir(join(root, 'repo', 'sub'))
    expect(readGitBranch(join(root, 'repo', 'sub'))).toBe('main')
    await mkdir(join(root, 'gitdirs', 'wt'), { recursive: true })
    await writeFile(join(root, 'gitdirs', 'wt', 'HEAD'), 'ref: refs/heads/topic\n')
    await mkdir(join(root, 'wt'))
    await writeFile(join(root, 'wt', '.git'), `gitdir: ${join(root, 'gitdirs', 'wt')}\n`)
    expect(readGitBranch(join(root, 'wt'))).toBe('topic')
  })

  it('a HEAD that is a FIFO or a link to a key shows nothing, and does not block', async () => {
    await mkdir(join(root, 'fifo', '.git'), { recursive: true })
    execFileSync('mkfifo', [join(root, 'fifo', '.git', 'HEAD')])
    expect(readGitBranch(join(root, 'fifo'))).toBeUndefined()
    await writeFile(join(root, 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\n')
    await mkdir(join(root, 'key', '.git'), { recursive: true })
    await symlink(join(root, 'id_rsa'), join(root, 'key', '.git', 'HEAD'))
    expect(readGitBranch(join(root, 'key'))).toBeUndefined()
    await mkdir(join(root, 'dev'))
    await writeFile(join(root, 'dev', '.git'), 'gitdir: /dev\n')
    expect(readGitBranch(join(root, 'dev'))).toBeUndefined()
  })
})
