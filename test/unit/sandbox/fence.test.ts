import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { NESTED_NAMES, PROTECTED_NAMES, planFence } from '../../../source/sandbox/fence.js'
import { createNestedFinder } from '../../../source/sandbox/nested-protected.js'

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
  it('a plain folder: the workspace and outputs are writable; .git, .agent-tui, .mcp.json and .claude are reserved', () => {
    expect(planFence({ projectRoots: [ws], scratchRoots: [out] })).toEqual({
      writable: [ws, out],
      readOnly: [],
      reserved: [join(ws, '.git'), join(ws, '.agent-tui'), join(ws, '.mcp.json'), join(ws, '.claude')],
    })
  })

  it('a repository: its .git, an existing .agent-tui and .mcp.json are read-only', () => {
    git(ws, 'init', '-q')
    mkdirSync(join(ws, '.agent-tui'))
    mkdirSync(join(ws, '.claude'))
    writeFileSync(join(ws, '.mcp.json'), '{"mcpServers": {}}\n')
    writeFileSync(join(ws, 'AGENTS.md'), '# agents\n')
    expect(planFence({ projectRoots: [ws], scratchRoots: [out] })).toEqual({
      writable: [ws, out],
      readOnly: [
        join(ws, '.git'),
        join(ws, '.agent-tui'),
        join(ws, '.mcp.json'),
        join(ws, '.claude'),
        join(ws, 'AGENTS.md'),
      ],
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
      join(wt, '.claude'),
      join(main, '.agent-tui'),
      join(main, '.mcp.json'),
      join(main, '.claude'),
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

describe('protected names below the top of a root', () => {
  const nestedFence = (finder = createNestedFinder({ names: NESTED_NAMES })) =>
    planFence({ projectRoots: [ws], scratchRoots: [out], nested: finder.find([ws]).paths })

  it('existing ones at any depth are read-only; missing ones are not reserved there', () => {
    mkdirSync(join(ws, 'sub', '.agent-tui'), { recursive: true })
    writeFileSync(join(ws, 'sub', '.mcp.json'), '{}\n')
    mkdirSync(join(ws, 'a', 'b', 'c', '.claude'), { recursive: true })
    // Instruction files below the top are left to the policy (one bind each per command is too dear).
    writeFileSync(join(ws, 'a', 'b', 'CLAUDE.local.md'), 'x\n')
    git(join(ws, 'a'), 'init', '-q')
    // Inside a protected directory nothing more is looked for: it is read-only as a whole.
    mkdirSync(join(ws, 'sub', '.agent-tui', 'x', '.git'), { recursive: true })
    const fence = nestedFence()
    expect(fence.readOnly.sort()).toEqual(
      [
        join(ws, 'sub', '.agent-tui'),
        join(ws, 'sub', '.mcp.json'),
        join(ws, 'a', '.git'),
        join(ws, 'a', 'b', 'c', '.claude'),
      ].sort(),
    )
    expect(fence.reserved).not.toContain(join(ws, 'sub', '.git'))
  })

  it('an ignore file hides nothing; installed dependencies and caches are not walked into', () => {
    mkdirSync(join(ws, 'hidden'))
    writeFileSync(join(ws, '.gitignore'), 'hidden/\n.mcp.json\n')
    writeFileSync(join(ws, 'hidden', '.mcp.json'), 'x\n')
    mkdirSync(join(ws, 'node_modules', 'pkg', '.git'), { recursive: true })
    mkdirSync(join(ws, '.venv', 'lib'), { recursive: true })
    writeFileSync(join(ws, '.venv', 'pyvenv.cfg'), 'home = /usr\n')
    writeFileSync(join(ws, '.venv', 'lib', '.mcp.json'), 'x\n')
    mkdirSync(join(ws, 'target', 'debug', '.claude'), { recursive: true })
    writeFileSync(join(ws, 'target', 'CACHEDIR.TAG'), 'Signature: 8a477f597d28d172789f06886806bc55\n')
    expect(nestedFence().readOnly).toEqual([join(ws, 'hidden', '.mcp.json')])
  })

  it('a symlinked directory is not followed; a symlinked protected name is bound where it leads', () => {
    mkdirSync(join(root, 'elsewhere'))
    writeFileSync(join(root, 'elsewhere', '.mcp.json'), '{}\n')
    symlinkSync(join(root, 'elsewhere'), join(ws, 'link'))
    mkdirSync(join(ws, 'sub'))
    writeFileSync(join(ws, 'real.json'), '{}\n')
    symlinkSync(join(ws, 'real.json'), join(ws, 'sub', '.mcp.json'))
    expect(nestedFence().readOnly).toEqual([join(ws, 'real.json')])
  })

  it('a later plan sees what was added since, and forgets what was removed', () => {
    // Directories changed within the last second are read again each time (a change in the same clock
    // tick would keep their ctime), so this holds however fast the steps follow each other.
    const finder = createNestedFinder({ names: NESTED_NAMES })
    mkdirSync(join(ws, 'p', 'q'), { recursive: true })
    expect(nestedFence(finder).readOnly).toEqual([])
    writeFileSync(join(ws, 'p', 'q', '.mcp.json'), 'x\n')
    expect(nestedFence(finder).readOnly).toEqual([join(ws, 'p', 'q', '.mcp.json')])
    rmSync(join(ws, 'p', 'q', '.mcp.json'))
    expect(nestedFence(finder).readOnly).toEqual([])
  })

  it('a background walk finds the same, and warms the next walk', async () => {
    mkdirSync(join(ws, 'x', 'y'), { recursive: true })
    writeFileSync(join(ws, 'x', 'y', '.mcp.json'), '{}\n')
    writeFileSync(join(ws, 'x', 'AGENTS.md'), 'x\n')
    const finder = createNestedFinder({ names: PROTECTED_NAMES })
    const walked = await finder.refresh([ws])
    expect(walked).toEqual({
      paths: [join(ws, 'x', 'AGENTS.md'), join(ws, 'x', 'y', '.mcp.json')],
      capped: false,
    })
    expect(finder.find([ws])).toEqual(walked)
  })

  it('a file removed since the walk is not bound (bubblewrap cannot bind what is gone)', () => {
    writeFileSync(join(ws, 'gone.md'), 'x\n')
    expect(
      planFence({ projectRoots: [ws], scratchRoots: [], nested: [join(ws, 'a', 'CLAUDE.md')] }).readOnly,
    ).toEqual([])
  })

  it('the walk is bounded by a directory and a depth cap, shallow entries first', async () => {
    let deep = ws
    for (let i = 0; i < 6; i++) {
      deep = join(deep, `d${i}`)
      mkdirSync(deep)
      writeFileSync(join(deep, 'CLAUDE.md'), 'x\n')
    }
    const shallow = createNestedFinder({ names: PROTECTED_NAMES, maxDepth: 3 }).find([ws])
    expect(shallow.capped).toBe(true)
    expect(shallow.paths).toHaveLength(3)
    const few = createNestedFinder({ names: PROTECTED_NAMES, maxDirs: 2 }).find([ws])
    expect(few).toEqual({ paths: [join(ws, 'd0', 'CLAUDE.md')], capped: true })
    expect(await createNestedFinder({ names: PROTECTED_NAMES, maxDirs: 2 }).refresh([ws])).toEqual(few)
    expect(createNestedFinder({ names: PROTECTED_NAMES }).find([ws])).toMatchObject({ capped: false })
  })
})
