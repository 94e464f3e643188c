import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  isBroadFolder,
  matchTrust,
  parseTrustStore,
  readTrustStore,
  type TrustEntry,
  updateTrustStore,
} from '../../../source/config/trust-store.js'

const HOME = '/home/ada'
const entry = (path: string, trusted: boolean): TrustEntry => ({ path, trusted })

describe('matchTrust: the longest stored path that contains the folder decides', () => {
  it.each<[string, TrustEntry[], string, boolean | undefined]>([
    ['no entries: never asked', [], '/home/ada/code/app', undefined],
    ['the folder itself', [entry('/home/ada/code/app', true)], '/home/ada/code/app', true],
    ['a trusted parent covers a child', [entry('/home/ada/code', true)], '/home/ada/code/app/sub', true],
    [
      'a deeper "do not trust" wins over a trusted parent',
      [entry('/home/ada/code', true), entry('/home/ada/code/evil', false)],
      '/home/ada/code/evil/src',
      false,
    ],
    [
      'a deeper trust wins over a distrusted parent',
      [entry('/home/ada/code', false), entry('/home/ada/code/mine', true)],
      '/home/ada/code/mine',
      true,
    ],
    [
      'the order in the file does not matter',
      [entry('/home/ada/code/evil', false), entry('/home/ada/code', true)],
      '/home/ada/code/evil',
      false,
    ],
    [
      'a sibling with a common prefix is not a child',
      [entry('/home/ada/code/app', true)],
      '/home/ada/code/app2',
      undefined,
    ],
    [
      'the parent of a trusted folder is not trusted',
      [entry('/home/ada/code/app', true)],
      '/home/ada/code',
      undefined,
    ],
    ['the home folder covers only itself', [entry(HOME, true)], '/home/ada/code/app', undefined],
    ['… but itself it does', [entry(HOME, true)], HOME, true],
    ['/ covers only itself', [entry('/', true)], '/srv/app', undefined],
    ['an ancestor of home covers only itself', [entry('/home', true)], '/home/bob/app', undefined],
    ['a folder beside home is an ordinary parent', [entry('/srv', true)], '/srv/app', true],
  ])('%s', (_name, entries, folder, expected) => {
    expect(matchTrust(entries, folder, HOME)?.trusted).toBe(expected)
  })

  it.each([
    ['/', true],
    [HOME, true],
    ['/home', true],
    ['/home/ada/code', false],
    ['/home/adam', false],
    ['/srv', false],
  ])('isBroadFolder(%s) is %s', (path, broad) => {
    expect(isBroadFolder(path, HOME)).toBe(broad)
  })
})

describe('parseTrustStore', () => {
  it('reads entries', () => {
    const text = JSON.stringify({
      version: 1,
      folders: { '/a': { trusted: true, at: '2025-01-01T00:00:00.000Z' }, '/b': { trusted: false } },
    })
    expect(parseTrustStore(text, 'f')).toEqual({
      entries: [
        { path: '/a', trusted: true, at: '2025-01-01T00:00:00.000Z' },
        { path: '/b', trusted: false },
      ],
      corrupt: false,
    })
  })

  it.each([
    ['invalid JSON', '{"folders": {', /f is not valid JSON .*every folder counts as untrusted/],
    ['a list', '[]', /expected \{"folders": \{…\}\} shape/],
    ['no folders', '{"version": 1}', /expected \{"folders": \{…\}\} shape/],
  ])('%s: no entries (untrusted) and a warning', (_name, text, warning) => {
    const parsed = parseTrustStore(text, 'f')
    expect(parsed.entries).toEqual([])
    expect(parsed.corrupt).toBe(true)
    expect(parsed.warning).toMatch(warning)
  })

  it('skips unreadable entries and names them, keeping the rest', () => {
    const text = JSON.stringify({
      folders: { '/ok': { trusted: true }, relative: { trusted: true }, '/yes': 'TRUST_FOLDER' },
    })
    const parsed = parseTrustStore(text, 'f')
    expect(parsed.entries).toEqual([{ path: '/ok', trusted: true }])
    expect(parsed.corrupt).toBe(false)
    expect(parsed.warning).toBe('f: ignored unreadable entries for "relative", "/yes"')
  })
})

describe('the store file', () => {
  let dir: string
  let file: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tui-trust-store-'))
    file = join(dir, 'state', 'trusted-folders.json')
  })
  afterEach(() => rm(dir, { recursive: true, force: true }))

  it('a missing file is an empty store without a warning', async () => {
    expect(await readTrustStore(file)).toEqual({ entries: [], corrupt: false })
  })

  it('writes atomically, readable by the owner only, and leaves no temp file', async () => {
    await updateTrustStore(file, (entries) => [...entries, entry('/a', true)])
    await updateTrustStore(file, (entries) => [...entries, entry('/b', false)])
    expect((await readTrustStore(file)).entries).toEqual([entry('/a', true), entry('/b', false)])
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect(await readdir(join(dir, 'state'))).toEqual(['trusted-folders.json'])
  })

  it('reads the file again before writing, so an answer given by another agent-tui is kept', async () => {
    await updateTrustStore(file, () => [entry('/a', true)])
    const seen: TrustEntry[][] = []
    await updateTrustStore(file, (entries) => {
      seen.push(entries)
      return [...entries, entry('/b', true)]
    })
    expect(seen).toEqual([[entry('/a', true)]])
  })

  it('keeps a corrupt file aside before replacing it', async () => {
    await mkdir(join(dir, 'state'))
    await writeFile(file, '{ not json')
    const result = await updateTrustStore(
      file,
      (entries) => [...entries, entry('/a', true)],
      () => 42,
    )
    expect(result.keptCorruptAs).toBe(`${file}.corrupt-42`)
    expect(await readFile(`${file}.corrupt-42`, 'utf8')).toBe('{ not json')
    expect((await readTrustStore(file)).entries).toEqual([entry('/a', true)])
  })

  it('a failed write leaves what was there and no temp file behind', async () => {
    // A directory where the file should be: the rename over it fails.
    await mkdir(file, { recursive: true })
    await writeFile(join(file, 'keep'), 'x')
    await expect(updateTrustStore(file, () => [entry('/a', true)])).rejects.toThrow(/cannot write/)
    expect(await readdir(join(dir, 'state'))).toEqual(['trusted-folders.json'])
    expect(await readFile(join(file, 'keep'), 'utf8')).toBe('x')
  })
})

describe('the trust store file where something was planted', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tui-trust-planted-'))
  })
  afterEach(() => rm(dir, { recursive: true, force: true }))

  it('a link at its name is read as no answers and replaced by the next write, its target untouched', async () => {
    const { symlink, lstat } = await import('node:fs/promises')
    const other = join(dir, 'other.json')
    await writeFile(other, '{"version":1,"folders":{"/":true}}\n')
    const file = join(dir, 'trusted-folders.json')
    await symlink(other, file)
    const read = await readTrustStore(file)
    expect(read.entries).toEqual([])
    expect(read.warning).toMatch(/is a symbolic link.*every folder counts as untrusted/)
    await updateTrustStore(file, () => [entry('/work/app', true)])
    expect((await lstat(file)).isFile()).toBe(true)
    expect(await readFile(other, 'utf8')).toBe('{"version":1,"folders":{"/":true}}\n')
    expect((await readTrustStore(file)).entries).toEqual([entry('/work/app', true)])
  })

  it('a FIFO at its name does not stall the start', async () => {
    const { execFileSync } = await import('node:child_process')
    const file = join(dir, 'trusted-folders.json')
    execFileSync('mkfifo', [file])
    expect((await readTrustStore(file)).warning).toMatch(/is a FIFO/)
  })
})
