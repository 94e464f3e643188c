import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendMemory, listMemoryFiles } from '../../../source/agent/project-memory.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-tui-memory-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('project memory', () => {
  it('creates .agent-tui/memory.md with a heading, then appends one list item per call', async () => {
    expect(await appendMemory(dir, 'use pnpm, not npm')).toBe(join('.agent-tui', 'memory.md'))
    await appendMemory(dir, '  tests live\nin test/   ')
    const text = await readFile(join(dir, '.agent-tui', 'memory.md'), 'utf8')
    expect(text).toBe('# Project memory\n\n- use pnpm, not npm\n- tests live in test/\n')
    // Written through a temp file and a rename: nothing else is left in the directory.
    expect(await readdir(join(dir, '.agent-tui'))).toEqual(['memory.md'])
  })

  it('keeps what a person wrote, adding the missing final newline before the new item', async () => {
    await mkdir(join(dir, '.agent-tui'))
    await writeFile(join(dir, '.agent-tui', 'memory.md'), 'Notes by hand\n- keep me')
    await appendMemory(dir, 'and me')
    expect(await readFile(join(dir, '.agent-tui', 'memory.md'), 'utf8')).toBe(
      'Notes by hand\n- keep me\n- and me\n',
    )
  })

  it('never writes through a link a repository or a sandboxed command put there', async () => {
    await mkdir(join(dir, 'home'))
    const bashrc = join(dir, 'home', '.bashrc')
    await writeFile(bashrc, 'export PS1=ok\n')
    const ws = join(dir, 'ws')
    await mkdir(join(ws, '.agent-tui'), { recursive: true })
    await symlink(bashrc, join(ws, '.agent-tui', 'memory.md'))
    await expect(appendMemory(ws, 'a note')).rejects.toThrow(/memory\.md is a symbolic link/)
    await rm(join(ws, '.agent-tui'), { recursive: true })
    await symlink(join(dir, 'home'), join(ws, '.agent-tui'))
    await expect(appendMemory(ws, 'a note')).rejects.toThrow(/\.agent-tui is a symbolic link/)
    expect(await readFile(bashrc, 'utf8')).toBe('export PS1=ok\n')
    expect(await readdir(join(dir, 'home'))).toEqual(['.bashrc'])
    expect((await lstat(join(ws, '.agent-tui'))).isSymbolicLink()).toBe(true)
  })

  it('refuses an empty note and leaves no file behind', async () => {
    await expect(appendMemory(dir, '   ')).rejects.toThrow('nothing to remember')
    expect(await readdir(dir)).toEqual([])
  })

  it('lists the instruction files the system prompt reads, with line counts, missing ones as null', async () => {
    await writeFile(join(dir, 'AGENTS.md'), '# Agents\n\nrun npm test\n')
    expect(await listMemoryFiles(dir)).toEqual([
      { path: 'AGENTS.md', lines: 3 },
      { path: 'CLAUDE.md', lines: null },
      { path: join('.agent-tui', 'memory.md'), lines: null },
    ])
  })
})
