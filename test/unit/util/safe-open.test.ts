import { execFileSync } from 'node:child_process'
import {
  closeSync,
  fstatSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  openOwnFileForAppend,
  readOwnFile,
  replaceInDir,
  replaceOwnFile,
} from '../../../source/util/safe-files.js'
import {
  createFresh,
  createNew,
  openExisting,
  openSafeDir,
  reopen,
  UnsafePathError,
} from '../../../source/util/safe-open.js'
import { makeTempDir } from '../tasks/helpers.js'

let dir: string
let cleanup: () => Promise<void>
let root: string
/** A file outside the root that a planted link points at: it must never change. */
let bashrc: string

beforeEach(async () => {
  ;({ dir, cleanup } = await makeTempDir())
  root = join(dir, 'outputs')
  mkdirSync(join(root, 'tasks'), { recursive: true })
  mkdirSync(join(dir, 'home'))
  bashrc = join(dir, 'home', '.bashrc')
  writeFileSync(bashrc, 'export PS1=ok\n')
})
afterEach(() => cleanup())

const mkfifo = (path: string) => execFileSync('mkfifo', [path])
const untouched = () => expect(readFileSync(bashrc, 'utf8')).toBe('export PS1=ok\n')

describe('openSafeDir', () => {
  it('walks to a directory below the root and makes missing ones private', () => {
    const d = openSafeDir(root, join(root, 'run-1', 'tasks'), { create: 0o700 })
    try {
      expect(d.path).toBe(join(root, 'run-1', 'tasks'))
      closeSync(createNew(d, 'b1.log', { mode: 0o600 }))
      expect(readdirSync(join(root, 'run-1', 'tasks'))).toEqual(['b1.log'])
      expect(fstatMode(join(root, 'run-1'))).toBe(0o700)
    } finally {
      d.close()
    }
  })

  // Both walks: through /proc (Linux) and by path with lstat (without /proc, macOS).
  it.each([false, true])(
    'refuses a component that is a symlink, also when it would create (by path: %s)',
    (byPath) => {
      symlinkSync(join(dir, 'home'), join(root, 'run-2'))
      for (const create of [undefined, 0o700]) {
        expect(() =>
          openSafeDir(root, join(root, 'run-2', 'tasks'), { byPath, ...(create ? { create } : {}) }),
        ).toThrow(new UnsafePathError(join(root, 'run-2'), 'is a symbolic link'))
      }
      expect(readdirSync(join(dir, 'home'))).toEqual(['.bashrc'])
    },
  )

  it.each([false, true])(
    'refuses a component that is a file, and a path outside the root (by path: %s)',
    (byPath) => {
      writeFileSync(join(root, 'plain'), '')
      expect(() => openSafeDir(root, join(root, 'plain', 'x'), { byPath })).toThrow(
        /plain is not a directory/,
      )
      expect(() => openSafeDir(root, dir, { byPath })).toThrow(/is not inside/)
    },
  )

  it('by path: a planted link at a file name is not followed either', () => {
    symlinkSync(bashrc, join(root, 'tasks', 'b1.log'))
    const d = openSafeDir(root, join(root, 'tasks'), { byPath: true })
    const { fd, name } = createFresh(d, 'b1.log', { mode: 0o600 })
    writeSync(fd, 'PWNED\n')
    closeSync(fd)
    expect(() => openExisting(d, 'b1.log', 'write')).toThrow(/is a symbolic link/)
    d.close()
    expect(name).not.toBe('b1.log')
    untouched()
  })

  it('takes the root itself as named: a root that is a link is the user’s choice', () => {
    symlinkSync(root, join(dir, 'linked-root'))
    const d = openSafeDir(join(dir, 'linked-root'), join(dir, 'linked-root', 'tasks'))
    closeSync(createNew(d, 'ok.log', { mode: 0o600 }))
    d.close()
    expect(readdirSync(join(root, 'tasks'))).toEqual(['ok.log'])
  })

  it.runIf(process.platform === 'linux')(
    'a parent swapped for a link after the directory was opened changes nothing (the race)',
    () => {
      const d = openSafeDir(root, join(root, 'tasks'))
      try {
        renameSync(join(root, 'tasks'), join(root, 'moved'))
        symlinkSync(join(dir, 'home'), join(root, 'tasks'))
        closeSync(createNew(d, '.bashrc.new', { mode: 0o600 }))
        const { fd, name } = createFresh(d, '.bashrc', { mode: 0o600 })
        writeSync(fd, 'job output\n')
        closeSync(fd)
        expect(name).toBe('.bashrc')
        // Both landed in the directory that was opened, not where the link points.
        expect(readdirSync(join(root, 'moved')).sort()).toEqual(['.bashrc', '.bashrc.new'])
        untouched()
        expect(readdirSync(join(dir, 'home'))).toEqual(['.bashrc'])
      } finally {
        d.close()
      }
    },
  )

  it.runIf(process.platform === 'linux')(
    'a subdirectory of the root, opened from it, is held too: a swap after the open changes nothing',
    () => {
      const top = openSafeDir(root)
      const d = top.sub('tasks')
      top.close()
      try {
        renameSync(join(root, 'tasks'), join(root, 'moved'))
        symlinkSync(join(dir, 'home'), join(root, 'tasks'))
        closeSync(createNew(d, 'b1.log', { mode: 0o600 }))
        expect(readdirSync(join(root, 'moved'))).toEqual(['b1.log'])
        expect(readdirSync(join(dir, 'home'))).toEqual(['.bashrc'])
        expect(() => openSafeDir(root).sub('tasks')).toThrow(/tasks is a symbolic link/)
      } finally {
        d.close()
      }
    },
  )

  it('names must be plain file names', () => {
    const d = openSafeDir(root)
    expect(() => d.at('../x')).toThrow(/not a plain file name/)
    expect(() => d.at('..')).toThrow(/not a plain file name/)
    d.close()
  })
})

describe('creating a file where something was planted', () => {
  it('a symlink at the name: createNew fails, createFresh takes a fresh name, the target is untouched', () => {
    symlinkSync(bashrc, join(root, 'tasks', 'b2.log'))
    const d = openSafeDir(root, join(root, 'tasks'))
    expect(() => createNew(d, 'b2.log', { mode: 0o600 })).toThrow(expect.objectContaining({ code: 'EEXIST' }))
    const { fd, name } = createFresh(d, 'b2.log', { mode: 0o600 })
    writeSync(fd, 'PWNED\n')
    closeSync(fd)
    d.close()
    expect(name).toMatch(/^b2\.[0-9a-f]{12}\.log$/)
    expect(readFileSync(join(root, 'tasks', name), 'utf8')).toBe('PWNED\n')
    untouched()
  })

  it('a dangling symlink at the name is not followed to create its target', () => {
    const target = join(dir, 'home', '.profile')
    symlinkSync(target, join(root, 'spill.txt'))
    const d = openSafeDir(root)
    const { fd } = createFresh(d, 'spill.txt', { mode: 0o600 })
    closeSync(fd)
    d.close()
    expect(readdirSync(join(dir, 'home'))).toEqual(['.bashrc'])
  })

  it('a planted regular file or FIFO at the name: a fresh name, the planted one is not reused', () => {
    writeFileSync(join(root, 'a.log'), 'planted\n')
    mkfifo(join(root, 'b.log'))
    const d = openSafeDir(root)
    for (const planted of ['a.log', 'b.log']) {
      const { fd, name } = createFresh(d, planted, { mode: 0o600 })
      closeSync(fd)
      expect(name).not.toBe(planted)
    }
    d.close()
    expect(readFileSync(join(root, 'a.log'), 'utf8')).toBe('planted\n')
  })

  it('a folder full of planted names still yields a fresh one', () => {
    for (let i = 0; i < 200; i++) symlinkSync(bashrc, join(root, `b${i}.log`))
    const d = openSafeDir(root)
    const { fd, name } = createFresh(d, 'b7.log', { mode: 0o600 })
    closeSync(fd)
    d.close()
    expect(name).toMatch(/^b7\.[0-9a-f]{12}\.log$/)
    untouched()
  })
})

describe('opening an existing file', () => {
  it('refuses a symlink, a FIFO (without blocking, for reading and for writing), a hard link', () => {
    symlinkSync(bashrc, join(root, 'link'))
    mkfifo(join(root, 'fifo'))
    writeFileSync(join(root, 'own'), 'x')
    linkSync(join(root, 'own'), join(root, 'second-name'))
    const d = openSafeDir(root)
    expect(() => openExisting(d, 'link', 'write', { append: true })).toThrow(/link is a symbolic link/)
    expect(() => openExisting(d, 'fifo', 'read')).toThrow(/fifo is a FIFO, not a regular file/)
    expect(() => openExisting(d, 'fifo', 'write')).toThrow(/fifo is a FIFO or a socket/)
    expect(() => openExisting(d, 'own', 'read')).toThrow(/has 1 other hard link/)
    expect(openExisting(d, 'missing', 'read')).toBeUndefined()
    d.close()
    untouched()
  })

  it('reopen gives a second description of the very file, even after its name was swapped', () => {
    const d = openSafeDir(root)
    const fd = createNew(d, 'job.log', { mode: 0o600, append: true })
    writeSync(fd, 'hello\n')
    if (process.platform === 'linux') {
      renameSync(join(root, 'job.log'), join(root, 'job.moved'))
      symlinkSync(bashrc, join(root, 'job.log'))
      const again = reopen(fd, d, 'job.log', 'read-write')
      const buf = Buffer.alloc(6)
      readSync(again, buf, 0, 6, 0)
      expect(buf.toString()).toBe('hello\n')
      expect(fstatSync(again).ino).toBe(fstatSync(fd).ino)
      closeSync(again)
    }
    closeSync(fd)
    d.close()
    untouched()
  })
})

describe('safe-files', () => {
  it('readOwnFile: missing reads as undefined, a link or FIFO is refused at once', () => {
    expect(readOwnFile(root, join(root, 'none.json'))).toBeUndefined()
    expect(readOwnFile(root, join(root, 'no-dir', 'none.json'))).toBeUndefined()
    symlinkSync(bashrc, join(root, 'pids.json'))
    mkfifo(join(root, 'trust.json'))
    expect(() => readOwnFile(root, join(root, 'pids.json'))).toThrow(UnsafePathError)
    expect(() => readOwnFile(root, join(root, 'trust.json'))).toThrow(/is a FIFO/)
    writeFileSync(join(root, 'ok.json'), '{}')
    expect(readOwnFile(root, join(root, 'ok.json'))?.toString()).toBe('{}')
  })

  it('replaceOwnFile replaces a planted link itself, never its target, and leaves no temp file', () => {
    symlinkSync(bashrc, join(root, 'pids.json'))
    replaceOwnFile(root, join(root, 'pids.json'), '{"version":1}\n', { mode: 0o600 })
    expect(readFileSync(join(root, 'pids.json'), 'utf8')).toBe('{"version":1}\n')
    expect(readdirSync(root).sort()).toEqual(['pids.json', 'tasks'])
    untouched()
  })

  it('replaceInDir sets an exact mode when asked', () => {
    writeFileSync(join(root, 'tokens.json'), '{}', { mode: 0o644 })
    const d = openSafeDir(root)
    replaceInDir(d, 'tokens.json', '{"t":1}', { mode: 0o600, exactMode: true })
    d.close()
    expect(fstatMode(join(root, 'tokens.json'))).toBe(0o600)
  })

  it('openOwnFileForAppend appends to its own file and refuses a planted link', () => {
    const path = join(root, 'session.jsonl.torn')
    const fd = openOwnFileForAppend(root, path, { mode: 0o600 })
    writeSync(fd, 'a\n')
    closeSync(fd)
    const again = openOwnFileForAppend(root, path, { mode: 0o600 })
    writeSync(again, 'b\n')
    closeSync(again)
    expect(readFileSync(path, 'utf8')).toBe('a\nb\n')
    symlinkSync(bashrc, join(root, 'other.torn'))
    expect(() => openOwnFileForAppend(root, join(root, 'other.torn'), { mode: 0o600 })).toThrow(
      /is a symbolic link/,
    )
    untouched()
  })
})

function fstatMode(path: string): number {
  return statSync(path).mode & 0o777
}
