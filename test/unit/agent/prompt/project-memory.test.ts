import { execFileSync } from 'node:child_process'
import {
  lstat,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  symlink,
  writeFile,
  mkdir,
} from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendMemory, listMemoryFiles } from '../../../../source/agent/prompt/project-memory.js'
import type { InstructionReader } from '../../../../source/tools/instruction-file.js'
import { testReader } from '../../../support/instruction-reader.ts'

let dir: string
let read: InstructionReader
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-memory-')))
  read = testReader(dir)
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('project memory', () => {
  it('creates .agent-tui/memory.md with a heading, then appends one list item per call', async () => {
    expect(await appendMemory(dir, 'use pnpm, not npm', read)).toBe(join('.agent-tui', 'memory.md'))
    await appendMemory(dir, '  tests live\nin test/   ', read)
    const text = await readFile(join(dir, '.agent-tui', 'memory.md'), 'utf8')
    expect(text).toBe('# Project memory\n\n- use pnpm, not npm\n- tests live in test/\n')
    // Written through a temp file and a rename: nothing else is left in the directory.
    expect(await readdir(join(dir, '.agent-tui'))).toEqual(['memory.md'])
  })

  it('keeps what a person wrote, adding the missing final newline before the new item', async () => {
    await mkdir(join(dir, '.agent-tui'))
    await writeFile(join(dir, '.agent-tui', 'memory.md'), 'Notes by hand\n- keep me')
    await appendMemory(dir, 'and me', read)
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
    // Read as the system prompt reads it (the link leads out of the workspace), and written below the
    // workspace without following a link, whichever check comes first.
    const wsRead = testReader(ws)
    await expect(appendMemory(ws, 'a note', wsRead)).rejects.toThrow(/memory\.md/)
    await rm(join(ws, '.agent-tui'), { recursive: true })
    await symlink(join(dir, 'home'), join(ws, '.agent-tui'))
    await expect(appendMemory(ws, 'a note', wsRead)).rejects.toThrow(/\.agent-tui|folder/)
    // Inside the reader's boundary the read passes, and the write still refuses the link.
    await rm(join(ws, '.agent-tui'))
    await mkdir(join(ws, '.agent-tui'))
    await writeFile(join(ws, 'inside.md'), 'inside\n')
    await symlink(join(ws, 'inside.md'), join(ws, '.agent-tui', 'memory.md'))
    await expect(appendMemory(ws, 'a note', wsRead)).resolves.toBeDefined()
    expect(await readFile(join(ws, 'inside.md'), 'utf8')).toBe('inside\n')
    expect((await lstat(join(ws, '.agent-tui', 'memory.md'))).isSymbolicLink()).toBe(false)
    expect(await readFile(bashrc, 'utf8')).toBe('export PS1=ok\n')
    expect(await readdir(join(dir, 'home'))).toEqual(['.bashrc'])
  })

  it('refuses an empty note and leaves no file behind', async () => {
    await expect(appendMemory(dir, '   ', read)).rejects.toThrow('nothing to remember')
    expect(await readdir(dir)).toEqual([])
  })

  it('lists the instruction files the system prompt reads, with line counts, missing ones as null', async () => {
    await writeFile(join(dir, 'AGENTS.md'), '# Agents\n\nrun npm test\n')
    expect(await listMemoryFiles(dir, read)).toEqual([
      { path: 'AGENTS.md', lines: 3 },
      { path: 'CLAUDE.md', lines: null },
      { path: join('.agent-tui', 'memory.md'), lines: null },
    ])
  })

  it('says which files the read boundary leaves out, and never copies a linked file into the notes', async () => {
    await mkdir(join(dir, '.agent-tui'))
    await symlink('/proc/self/environ', join(dir, '.agent-tui', 'memory.md'))
    execFileSync('mkfifo', [join(dir, 'CLAUDE.md')])
    const listed = await listMemoryFiles(dir, read)
    expect(listed[1]).toEqual({ path: 'CLAUDE.md', lines: null, leftOut: expect.stringMatching(/FIFO/) })
    expect(listed[2]).toEqual({
      path: join('.agent-tui', 'memory.md'),
      lines: null,
      leftOut: expect.stringMatching(/resolves to \/proc\/\d+\/environ/),
    })
    await expect(appendMemory(dir, 'more', read)).rejects.toThrow(
      /cannot add to .*memory\.md: it resolves to/,
    )
    // The link is left as it was: nothing was written through or over it.
    expect((await lstat(join(dir, '.agent-tui', 'memory.md'))).isSymbolicLink()).toBe(true)
    expect(await readlink(join(dir, '.agent-tui', 'memory.md'))).toBe('/proc/self/environ')
  })

  it('never writes through a .agent-tui folder that is a link out of the workspace', async () => {
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-memory-outside-')))
    try {
      await symlink(outside, join(dir, '.agent-tui'))
      await expect(appendMemory(dir, 'note', read)).rejects.toThrow(/its folder: reads outside the workspace/)
      expect(await readdir(outside)).toEqual([])
    } finally {
      await rm(outside, { recursive: true, force: true })
    }
  })
})
