import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readSession } from '../../../source/session/read-session.js'
import { cutTornTail, openSessionLog, SESSION_FORMAT } from '../../../source/session/session-log.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'session-log-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const header = `{"type":"header","format":${SESSION_FORMAT},"id":"s1","cwd":"/w","createdAt":1}\n`
const user = (text: string) =>
  `{"type":"user/submitted","id":"${text}","content":"${text}","text":"${text}"}\n`
const long = 'x'.repeat(200_000)

describe('cutTornTail', () => {
  it.each([
    ['a whole log', header + user('a'), header + user('a'), null],
    ['an empty file', '', '', null],
    ['a torn last line', `${header + user('a')}{"type":"tool/fin`, header + user('a'), '{"type":"tool/fin\n'],
    ['a torn line longer than a read block', `${header}{"t":"${long}`, header, `{"t":"${long}\n`],
    [
      'a long whole line before the torn one',
      `${header}${user(long)}{"ty`,
      `${header}${user(long)}`,
      '{"ty\n',
    ],
    ['a file without any newline', '{"type":"hea', '', '{"type":"hea\n'],
  ])('%s', async (_what, content, after, side) => {
    const path = join(dir, 's1.jsonl')
    await writeFile(path, content)
    const cut = cutTornTail(path)
    expect(await readFile(path, 'utf8')).toBe(after)
    if (side === null) {
      expect(cut).toBeNull()
      expect(existsSync(`${path}.torn`)).toBe(false)
    } else {
      expect(cut).toEqual({ bytes: Buffer.byteLength(side) - 1, path: `${path}.torn` })
      expect(await readFile(`${path}.torn`, 'utf8')).toBe(side)
    }
  })

  it('returns null for a log that does not exist yet', () => {
    expect(cutTornTail(join(dir, 'missing.jsonl'))).toBeNull()
  })

  it('keeps every fragment when torn tails happen more than once', async () => {
    const path = join(dir, 's1.jsonl')
    await writeFile(path, `${header}{"first`)
    cutTornTail(path)
    await writeFile(path, `${header}{"second`)
    cutTornTail(path)
    expect(await readFile(`${path}.torn`, 'utf8')).toBe('{"first\n{"second\n')
  })
})

describe('openSessionLog', () => {
  it('appends the next event on a clean line after a torn tail, so a later read keeps it', async () => {
    const path = join(dir, 's1.jsonl')
    await writeFile(path, `${header}${user('one')}{"type":"assistant/sett`)
    const log = openSessionLog(path)
    expect(log.tornTail).toEqual({ bytes: 23, path: `${path}.torn` })
    log.append({ type: 'user/submitted', id: 'two', content: 'two', text: 'two' })
    log.close()
    const loaded = await readSession(path)
    expect(loaded.warnings).toEqual([])
    expect(loaded.actions.map((a) => (a.type === 'user/submitted' ? a.text : a.type))).toEqual(['one', 'two'])
  })

  it('never cuts a new log (a header is given)', async () => {
    const path = join(dir, 'new.jsonl')
    const log = openSessionLog(path, {
      type: 'header',
      format: SESSION_FORMAT,
      id: 'n',
      cwd: '/w',
      createdAt: 1,
    })
    expect(log.tornTail).toBeNull()
    log.close()
    expect((await readFile(path, 'utf8')).endsWith('\n')).toBe(true)
  })
})

describe('session logs where something was planted', () => {
  const setUp = async () => {
    const { mkdir } = await import('node:fs/promises')
    await mkdir(join(dir, 'home'))
    const bashrc = join(dir, 'home', '.bashrc')
    await writeFile(bashrc, 'export PS1=ok\n')
    return bashrc
  }
  const newHeader = { type: 'header' as const, format: SESSION_FORMAT, id: 'n', cwd: '/w', createdAt: 1 }

  it('a link at a new log’s name: refused, never written through', async () => {
    const bashrc = await setUp()
    const { symlink } = await import('node:fs/promises')
    await symlink(bashrc, join(dir, 'new.jsonl'))
    expect(() => openSessionLog(join(dir, 'new.jsonl'), newHeader)).toThrow(
      /new\.jsonl already exists, and agent-tui did not make it/,
    )
    expect(await readFile(bashrc, 'utf8')).toBe('export PS1=ok\n')
  })

  it('a resumed log that is a link, or whose torn-tail file is one: refused, the targets untouched', async () => {
    const bashrc = await setUp()
    const { symlink } = await import('node:fs/promises')
    await symlink(bashrc, join(dir, 'linked.jsonl'))
    expect(() => openSessionLog(join(dir, 'linked.jsonl'))).toThrow(/linked\.jsonl is a symbolic link/)
    const path = join(dir, 's1.jsonl')
    await writeFile(path, `${header}{"torn`)
    await symlink(bashrc, `${path}.torn`)
    expect(() => cutTornTail(path)).toThrow(/s1\.jsonl\.torn (is a symbolic link|already exists)/)
    expect(await readFile(bashrc, 'utf8')).toBe('export PS1=ok\n')
    // Nothing was cut: the fragment is still in the log.
    expect(await readFile(path, 'utf8')).toBe(`${header}{"torn`)
  })
})
