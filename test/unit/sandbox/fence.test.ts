import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { planFence } from '../../../source/sandbox/fence.js'

let root: string
let ws: string
let out: string

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'agent-tui-fence-')))
  ws = join(root, 'ws')
  out = join(root, 'state', 'outputs', 's1')
  mkdirSync(ws)
  mkdirSync(out, { recursive: true })
})
afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'ignore' })

describe('planFence', () => {
  it('a plain folder: the workspace and outputs are writable; .git, .agent-tui and .mcp.json are reserved', () => {
    expect(planFence({ projectRoots: [ws], scratchRoots: [out] })).toEqual({
      writable: [ws, out],
      readOnly: [],
      reserved: [join(ws, '.git'), join(ws, '.agent-tui'), join(ws, '.mcp.json')],
    })
  })

  it('a repository: its .git, an existing .agent-tui and .mcp.json are read-only', () => {
    git(ws, 'init', '-q')
    mkdirSync(join(ws, '.agent-tui'))
    writeFileSync(join(ws, '.mcp.json'), '{"mcpServers": {}}\n')
    expect(planFence({ projectRoots: [ws], scratchRoots: [out] })).toEqual({
      writable: [ws, out],
      readOnly: [join(ws, '.git'), join(ws, '.agent-tui'), join(ws, '.mcp.json')],
      reserved: [],
    })
  })

  it('the outputs dir gets no protection of its own (it is agent-tui’s scratch space)', () => {
    const fence = planFence({ projectRoots: [], scratchRoots: [out] })
    expect(fence).toEqual({ writable: [out], readOnly: [], reserved: [] })
  })

  it('a linked worktree: its .git file, and the git dirs it names when they are writable', () => {
    const main = join(root, 'main')
    mkdirSync(main)
    git(main, 'init', '-q')
    git(main, '-c', 'user.email=a@b', '-c', 'user.name=n', 'commit', '-q', '--allow-empty', '-m', 'x')
    const wt = join(root, 'wt')
    git(main, 'worktree', 'add', '-q', wt)
    // Only the worktree is writable: the main repository's .git is read-only anyway.
    expect(planFence({ projectRoots: [wt], scratchRoots: [] }).readOnly).toEqual([join(wt, '.git')])
    // With the main repository added as a writable directory, its git dirs are protected too.
    const both = planFence({ projectRoots: [wt, main], scratchRoots: [] })
    expect(both.readOnly).toEqual([
      join(wt, '.git'),
      join(main, '.git', 'worktrees', 'wt'),
      join(main, '.git'),
    ])
    expect(both.reserved).toEqual([
      join(wt, '.agent-tui'),
      join(wt, '.mcp.json'),
      join(main, '.agent-tui'),
      join(main, '.mcp.json'),
    ])
  })

  it('submodules: the .git file of each path in .gitmodules is read-only', () => {
    git(ws, 'init', '-q')
    mkdirSync(join(ws, 'lib', 'dep'), { recursive: true })
    writeFileSync(join(ws, 'lib', 'dep', '.git'), 'gitdir: ../../.git/modules/dep\n')
    writeFileSync(
      join(ws, '.gitmodules'),
      '[submodule "dep"]\n\tpath = lib/dep\n\turl = https://example.invalid/dep\n[submodule "gone"]\n\tpath = gone\n[submodule "out"]\n\tpath = ../escape\n',
    )
    expect(planFence({ projectRoots: [ws], scratchRoots: [] }).readOnly).toEqual([
      join(ws, '.git'),
      join(ws, 'lib', 'dep', '.git'),
    ])
  })

  it('a symlinked .git: its target stays read-only', () => {
    mkdirSync(join(ws, 'real-git'))
    symlinkSync(join(ws, 'real-git'), join(ws, '.git'))
    expect(planFence({ projectRoots: [ws], scratchRoots: [] }).readOnly).toEqual([join(ws, 'real-git')])
  })

  it('resolves symlinked roots to their real paths', () => {
    const link = join(root, 'link')
    symlinkSync(ws, link)
    expect(planFence({ projectRoots: [link], scratchRoots: [] }).writable).toEqual([ws])
  })

  it('hides the secret stores it is given that exist, by real path', () => {
    const home = join(root, 'home')
    mkdirSync(join(home, '.ssh'), { recursive: true })
    writeFileSync(join(home, '.netrc'), 'machine x password y\n')
    mkdirSync(join(home, 'real-aws'))
    symlinkSync(join(home, 'real-aws'), join(home, '.aws'))
    const fence = planFence({
      projectRoots: [ws],
      scratchRoots: [out],
      hidden: [join(home, '.ssh'), join(home, '.netrc'), join(home, '.aws'), join(home, '.gnupg')],
    })
    expect(fence.hidden).toEqual([
      { path: join(home, '.ssh'), kind: 'dir' },
      { path: join(home, '.netrc'), kind: 'file' },
      // A symlink is hidden where it leads.
      { path: join(home, 'real-aws'), kind: 'dir' },
    ])
  })

  it('hides a store that holds a writable root (the state dir holds the outputs), not one that is the workspace', () => {
    const state = join(root, 'state')
    mkdirSync(join(state, 'sessions'), { recursive: true })
    writeFileSync(join(state, 'sessions', 'other.jsonl'), '{}\n')
    expect(
      planFence({ projectRoots: [ws], scratchRoots: [out], hidden: [state, ws, join(ws, 'nope')] }).hidden,
    ).toEqual([{ path: state, kind: 'dir' }])
  })

  it('leaves out a store already inside a hidden dir, unless a writable root lies between', () => {
    const state = join(root, 'state')
    writeFileSync(join(state, 'mcp-oauth.json'), '{}\n')
    writeFileSync(join(out, '.netrc'), 'x\n')
    const fence = planFence({
      projectRoots: [ws],
      scratchRoots: [out],
      hidden: [state, join(state, 'mcp-oauth.json'), join(out, '.netrc')],
    })
    expect(fence.hidden).toEqual([
      { path: state, kind: 'dir' },
      // Inside the outputs dir, which the sandbox shows again inside the hidden state dir.
      { path: join(out, '.netrc'), kind: 'file' },
    ])
  })
})
