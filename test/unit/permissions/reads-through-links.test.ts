/**
 * Read-only commands that read through symlinks a repository brings: a glob is judged where its matches
 * really lead (`cat *.txt` with `notes.txt -> ~/.ssh/id_rsa` reads outside the workspace, which asks), and a
 * program told to follow every link below (`grep -R`, `find -L`) reads where only running it tells.
 * permissions/glob-escape.ts, permissions/shell-follow.ts
 */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { evaluate, type RuleSet } from '../../../source/permissions/policy.js'
import { resolveTarget } from '../../../source/permissions/real-path.js'
import type { Mode } from '../../../source/store/domain.js'

let root: string
let workspace: string
let home: string
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-glob-')))
  workspace = join(root, 'work')
  home = join(root, 'home')
  await mkdir(workspace)
  await mkdir(join(home, '.ssh'), { recursive: true })
  await writeFile(join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY\n')
  await writeFile(join(workspace, 'README.md'), 'readme\n')
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const NO_RULES: RuleSet = { allow: [], ask: [], deny: [] }

async function decide(command: string, mode: Mode = 'safe') {
  const target = await resolveTarget({ kind: 'command', command, cwd: workspace }, { workspace, home })
  return evaluate({
    mode,
    tool: 'Bash',
    risk: 'exec',
    target,
    readOnly: false,
    rules: NO_RULES,
    workspace,
    home,
  })
}

describe('a glob whose matches lead out through a symlink', () => {
  it('asks for a last-segment match that is a link to a file outside', async () => {
    await symlink(join(home, '.ssh', 'id_rsa'), join(workspace, 'notes.txt'))
    for (const command of ['cat *.txt', 'head n*', 'grep PRIVATE *', 'wc -c ./*']) {
      const result = await decide(command)
      expect(result.decision, command).toBe('ask')
      expect(result.reason, command).toContain('.ssh/id_rsa')
    }
  })

  it('asks for a match below a linked folder', async () => {
    await writeFile(join(home, 'diary.txt'), 'private\n')
    await symlink(home, join(workspace, 'homelink'))
    for (const command of [
      'cat h*/diary.txt',
      'cat ?omelink/diary.txt',
      'cat {homelink,x}/diary.txt',
      'cat ./*/d*',
    ]) {
      const result = await decide(command)
      expect(result.decision, command).toBe('ask')
      expect(result.reason, command).toContain('outside the workspace')
    }
  })

  it('asks for a named file below a glob that is itself a link out', async () => {
    await mkdir(join(workspace, 'sub'))
    await symlink(join(home, '.ssh', 'id_rsa'), join(workspace, 'sub', 'notes.txt'))
    const result = await decide('cat */notes.txt')
    expect(result.decision).toBe('ask')
    expect(result.reason).toContain('.ssh/id_rsa')
  })

  it('still runs a glob whose matches stay inside, links within the workspace included', async () => {
    await mkdir(join(workspace, 'lib'))
    await writeFile(join(workspace, 'lib', 'a.md'), 'a\n')
    await symlink(join(workspace, 'lib', 'a.md'), join(workspace, 'alias.md'))
    expect((await decide('cat *.md')).decision).toBe('allow')
    expect((await decide('cat lib/*')).decision).toBe('allow')
  })
})

describe('a read-only program told to follow every symlink on its way down', () => {
  it('asks: where links below lead is only known when it runs', async () => {
    for (const command of [
      'grep -R PRIVATE',
      'grep -rR PRIVATE .',
      'grep --dereference-recursive PRIVATE src',
      'grep --dereference-r PRIVATE',
      'find -L . -name "id_*"',
      'find . -follow -name x',
      'du -L -a',
      'ls -RL',
      'ls -L --recursive .',
      'tree -l',
      'rg --follow PRIVATE',
      'rg -L PRIVATE',
      'diff -r a b',
      'diff -ru a b',
    ]) {
      const result = await decide(command)
      expect(result.decision, command).toBe('ask')
      expect(result.reason, command).toContain('follows every symlink below')
    }
  })

  it('a program named like an Object property is an unknown program, judged as one', async () => {
    expect((await decide('constructor -R')).decision).toBe('ask')
  })

  it('still runs the same programs when they do not follow links below', async () => {
    for (const command of [
      'grep -r readme',
      'grep -e R README.md',
      'ls -L',
      'ls -R',
      'find . -name L',
      'du -a',
      'rg readme',
    ])
      expect((await decide(command)).decision, command).toBe(
        command.startsWith('constructor') ? 'ask' : 'allow',
      )
  })
})
