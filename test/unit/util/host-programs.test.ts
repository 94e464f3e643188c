import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHostPrograms, findHostProgram, safePath } from '../../../source/util/host-programs.js'

let root: string
let ws: string
let sys: string

const program = (dir: string, name: string, mode = 0o755) => {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, name), '#!/bin/sh\necho planted\n')
  chmodSync(join(dir, name), mode)
  return join(dir, name)
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'agent-tui-programs-')))
  ws = join(root, 'ws')
  sys = join(root, 'usr', 'bin')
  mkdirSync(ws)
  program(sys, 'git')
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

describe('programs agent-tui runs itself are never found in the workspace', () => {
  it('a workspace folder first on PATH is passed over', () => {
    program(join(ws, 'bin'), 'git')
    program(join(ws, 'node_modules', '.bin'), 'git')
    const path = [join(ws, 'bin'), join(ws, 'node_modules', '.bin'), sys].join(':')
    expect(findHostProgram('git', { path, unsafe: [ws] })).toBe(join(sys, 'git'))
  })

  it('relative and empty entries (the current directory) are passed over', () => {
    program(join(ws, 'bin'), 'git')
    program(ws, 'git')
    for (const path of [`bin:${sys}`, `.:${sys}`, `:${sys}`, `${sys}::`, `./bin:${sys}`]) {
      expect(findHostProgram('git', { path, unsafe: [] })).toBe(join(sys, 'git'))
    }
  })

  it('a PATH folder that is a symlink into the workspace, or a program that links there, is passed over', () => {
    program(join(ws, 'tools'), 'git')
    symlinkSync(join(ws, 'tools'), join(root, 'linked-bin'))
    const elsewhere = join(root, 'opt', 'bin')
    mkdirSync(elsewhere, { recursive: true })
    symlinkSync(join(ws, 'tools', 'git'), join(elsewhere, 'git'))
    const path = [join(root, 'linked-bin'), elsewhere, sys].join(':')
    expect(findHostProgram('git', { path, unsafe: [ws] })).toBe(join(sys, 'git'))
  })

  it('a file that is not executable, a folder, and a name with a slash are not programs', () => {
    program(join(root, 'a'), 'git', 0o644)
    mkdirSync(join(root, 'b', 'git'), { recursive: true })
    const path = [join(root, 'a'), join(root, 'b'), sys].join(':')
    expect(findHostProgram('git', { path, unsafe: [] })).toBe(join(sys, 'git'))
    expect(findHostProgram('./git', { path, unsafe: [] })).toBeUndefined()
    expect(findHostProgram('git', { path: join(ws, 'nothing'), unsafe: [] })).toBeUndefined()
  })

  it('found once per session: a program planted later on an earlier PATH entry is not picked up', () => {
    const later = join(root, 'later')
    mkdirSync(later)
    const programs = createHostPrograms({ path: `${later}:${sys}`, unsafe: [ws] })
    expect(programs.find('git')).toBe(join(sys, 'git'))
    program(later, 'git')
    expect(programs.find('git')).toBe(join(sys, 'git'))
    expect(programs.shell()).toBe('/bin/bash')
  })
})

describe('PATH for what agent-tui starts through a shell (the editor, the browser)', () => {
  it('keeps absolute entries outside the workspace only', () => {
    mkdirSync(join(ws, 'node_modules', '.bin'), { recursive: true })
    symlinkSync(join(ws, 'node_modules', '.bin'), join(root, 'linked'))
    const path = [
      '',
      '.',
      'bin',
      join(ws, 'node_modules', '.bin'),
      join(root, 'linked'),
      sys,
      '/usr/bin',
    ].join(':')
    expect(safePath(path, [ws])).toBe(`${sys}:/usr/bin`)
  })
})
