import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { findImports, resolveImport } from '../../../../source/agent/prompt/instruction-imports.ts'
import { loadInstructions, type InstructionRoot } from '../../../../source/agent/prompt/instructions.ts'
import { instructionRoots, shownPath } from '../../../../source/agent/prompt/project-memory.ts'
import { instructionReader } from '../../../../source/tools/instruction-file.ts'

describe('findImports: what Claude Code reads as an @path import', () => {
  it.each([
    ['one at the start of a line', '@docs/guide.md', ['docs/guide.md']],
    [
      'after a space, sentence punctuation dropped',
      'See @README.md. And @a/b.md, then',
      ['README.md', 'a/b.md'],
    ],
    ['~/ and absolute', '- @~/.claude/mine.md\n- @/etc/team.md', ['~/.claude/mine.md', '/etc/team.md']],
    ['each once, in order', '@a.md @b.md @a.md', ['a.md', 'b.md']],
    ['an escaped space stays in the name', '@my\\ notes.md', ['my notes.md']],
    ['not an e-mail address', 'mail dev@example.com', []],
    ['not inside a code span', 'run `npm i @scope/pkg` then @x.md', ['x.md']],
    ['not inside a fenced block', '```\n@inside.md\n```\n@outside.md', ['outside.md']],
    ['a ~~~ fence closes only with ~~~', '~~~\n```\n@in.md\n~~~\n@out.md', ['out.md']],
    ['not in indented code', '    @code.md\n@real.md', ['real.md']],
    ['@ alone, @@ and punctuation are no imports', '@ and @@x and @...', []],
  ])('%s', (_what, text, expected) => {
    expect(findImports(text)).toEqual(expected)
  })
})

describe('resolveImport', () => {
  it.each([
    ['beside the importing file', 'guide.md', '/ws/docs/CLAUDE.md', '/ws/docs/guide.md'],
    ['a parent', '../README.md', '/ws/docs/CLAUDE.md', '/ws/README.md'],
    ['./', './x.md', '/ws/CLAUDE.md', '/ws/x.md'],
    ['~/ in the home folder', '~/.claude/mine.md', '/ws/CLAUDE.md', '/home/u/.claude/mine.md'],
    ['absolute as it is', '/etc/team.md', '/ws/CLAUDE.md', '/etc/team.md'],
  ])('%s', (_what, path, importer, expected) => {
    expect(resolveImport(path, importer, '/home/u')).toBe(expected)
  })
})

describe('loadInstructions: imports through the read boundary', () => {
  let root: string
  let ws: string
  let home: string
  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'imports-')))
    ws = join(root, 'ws')
    home = join(root, 'home')
    await mkdir(ws, { recursive: true })
    await mkdir(home, { recursive: true })
  })
  afterEach(() => rm(root, { recursive: true, force: true }))

  const put = async (path: string, text: string) => {
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, text)
  }
  const reader = (allowed: string[] = []) =>
    instructionReader(
      { workspace: ws, home, additionalDirs: [], rules: () => ({ allow: [], ask: [], deny: [] }) },
      allowed,
    )
  const label = (path: string) => shownPath(path, ws, home)
  const rootFile = (name: string, read = reader()): InstructionRoot => ({
    path: join(ws, name),
    label: name,
    read,
    imports: true,
  })
  const load = (roots: InstructionRoot[], extra = {}) => loadInstructions(roots, { home, label, ...extra })

  it('relative and ~/ imports come right after the file that names them, depth first', async () => {
    await put(join(ws, 'CLAUDE.md'), 'root @docs/a.md @~/.claude/mine.md')
    await put(join(ws, 'docs/a.md'), 'a @../b.md')
    await put(join(ws, 'b.md'), 'b')
    await put(join(home, '.claude/mine.md'), 'mine')
    const loaded = await load([rootFile('CLAUDE.md', reader([join(home, '.claude')]))])
    expect(loaded.sections.map((s) => [s.label, s.text, s.importedBy])).toEqual([
      ['CLAUDE.md', 'root @docs/a.md @~/.claude/mine.md', undefined],
      ['docs/a.md', 'a @../b.md', 'CLAUDE.md'],
      ['b.md', 'b', 'docs/a.md'],
      ['~/.claude/mine.md', 'mine', 'CLAUDE.md'],
    ])
    expect(loaded.skipped).toEqual([])
  })

  it('stops five files deep: the sixth hop is left out, and says why', async () => {
    await put(join(ws, 'CLAUDE.md'), '@1.md')
    for (let i = 1; i <= 6; i++) await put(join(ws, `${i}.md`), i < 6 ? `${i} @${i + 1}.md` : 'six')
    const loaded = await load([rootFile('CLAUDE.md')])
    expect(loaded.sections.map((s) => s.label)).toEqual(['CLAUDE.md', '1.md', '2.md', '3.md', '4.md', '5.md'])
    expect(loaded.skipped).toEqual([
      { label: '6.md', reason: 'depth', why: 'imports stop 5 files deep', importedBy: '5.md' },
    ])
  })

  it('refuses a cycle, naming it; a file already in (by real path, through a link) is not read twice', async () => {
    await put(join(ws, 'CLAUDE.md'), '@a.md @link.md')
    await put(join(ws, 'a.md'), 'a @b.md')
    await put(join(ws, 'b.md'), 'b @a.md')
    await symlink(join(ws, 'b.md'), join(ws, 'link.md'))
    const loaded = await load([rootFile('CLAUDE.md')])
    expect(loaded.sections.map((s) => s.label)).toEqual(['CLAUDE.md', 'a.md', 'b.md'])
    expect(loaded.skipped.map((s) => [s.label, s.reason, s.why])).toEqual([
      ['a.md', 'cycle', 'an import cycle (CLAUDE.md → a.md → b.md → a.md)'],
      ['link.md', 'duplicate', 'already in the instructions'],
    ])
  })

  it('an import of a secret, or outside the places a file may come from, is refused by the boundary', async () => {
    await put(join(ws, 'CLAUDE.md'), '@.env @~/.ssh/id_ed25519 @~/notes.md @missing.md')
    await put(join(ws, '.env'), 'TOKEN=1')
    await put(join(home, '.ssh/id_ed25519'), 'KEY')
    await put(join(home, 'notes.md'), 'notes')
    const loaded = await load([rootFile('CLAUDE.md')])
    expect(loaded.sections.map((s) => s.label)).toEqual(['CLAUDE.md'])
    expect(loaded.skipped.map((s) => [s.label, s.reason])).toEqual([
      ['.env', 'refused'],
      ['~/.ssh/id_ed25519', 'refused'],
      ['~/notes.md', 'refused'],
      ['missing.md', 'missing'],
    ])
  })

  it('AGENTS.md imports are not followed (not its syntax); without Claude Code, CLAUDE.md imports are not either', async () => {
    await put(join(ws, 'AGENTS.md'), 'agents @x.md')
    await put(join(ws, 'CLAUDE.md'), 'claude @x.md')
    await put(join(ws, 'x.md'), 'x')
    const withClaude = instructionRoots(ws, reader(), {
      userMemory: join(home, '.claude/CLAUDE.md'),
      readUser: reader(),
      home,
    })
    const on = await loadInstructions(withClaude.roots, { home, label: withClaude.label })
    expect(on.sections.map((s) => [s.label, s.importedBy])).toEqual([
      ['AGENTS.md', undefined],
      ['CLAUDE.md', undefined],
      ['x.md', 'CLAUDE.md'],
    ])
    const without = instructionRoots(ws, reader())
    const off = await loadInstructions(without.roots, { home, label: without.label })
    expect(off.sections.map((s) => s.label)).toEqual(['AGENTS.md', 'CLAUDE.md'])
  })

  it('the prompt order: ~/.claude/CLAUDE.md, AGENTS.md, CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md, memory', async () => {
    const { roots } = instructionRoots(ws, reader(), {
      userMemory: join(home, '.claude/CLAUDE.md'),
      readUser: reader(),
      home,
    })
    expect(roots.map((r) => r.label)).toEqual([
      '~/.claude/CLAUDE.md',
      'AGENTS.md',
      'CLAUDE.md',
      '.claude/CLAUDE.md',
      'CLAUDE.local.md',
      '.agent-tui/memory.md',
    ])
  })

  it('over the budget, later files are left out whole, not cut', async () => {
    await put(join(ws, 'CLAUDE.md'), '@a.md @b.md')
    await put(join(ws, 'a.md'), 'a'.repeat(50))
    await put(join(ws, 'b.md'), 'b'.repeat(50))
    const loaded = await load([rootFile('CLAUDE.md')], { budgetChars: 80 })
    expect(loaded.sections.map((s) => s.label)).toEqual(['CLAUDE.md', 'a.md'])
    expect(loaded.skipped.map((s) => [s.label, s.reason])).toEqual([['b.md', 'budget']])
  })
})
