import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { staleReason } from '../../../scripts/build-if-stale.mjs'
import { startArgs } from '../../../scripts/start-args.mjs'

describe('npm start: which folder agent-tui opens', () => {
  const root = '/home/u/agent-tui'
  it.each<[string, string[], string | undefined, string[], boolean]>([
    [
      'the folder npm was started from',
      ['--model', 'm'],
      '/home/u/app',
      ['--cwd', '/home/u/app', '--model', 'm'],
      false,
    ],
    ['--cwd given wins over INIT_CWD', ['--cwd', '/srv/x'], '/home/u/app', ['--cwd', '/srv/x'], false],
    ['--cwd= given', ['--cwd=/srv/x'], '/home/u/app', ['--cwd=/srv/x'], false],
    [
      '"--cwd" inside the prompt after -- is a prompt',
      ['--', '--cwd'],
      '/home/u/app',
      ['--cwd', '/home/u/app', '--', '--cwd'],
      false,
    ],
    ['started in the clone: the clone, with a hint', [], root, [], true],
    ['started in the clone with a trailing slash', [], `${root}/`, [], true],
    ['started in the clone for --version: no hint', ['--version'], root, ['--version'], false],
    ['no folder known: as given', [], undefined, [], false],
  ])('%s', (_name, args, initCwd, expected, hinted) => {
    const start = startArgs(args, initCwd, root)
    expect(start.args).toEqual(expected)
    expect(start.hint !== null).toBe(hinted)
    if (hinted) expect(start.hint).toContain('npm start -- --cwd PATH')
  })
})

describe('build-if-stale: dist/ is rebuilt only when an input changed', () => {
  let base: string
  const past = Date.now() / 1000 - 3600
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'agent-tui-stale-'))
    mkdirSync(join(base, 'source', 'ui'), { recursive: true })
    mkdirSync(join(base, 'dist'))
    for (const file of ['source/cli.ts', 'source/ui/app.tsx', 'package.json', 'dist/cli.js']) {
      writeFileSync(join(base, file), 'x')
    }
    for (const path of ['source/cli.ts', 'source/ui/app.tsx', 'source/ui', 'source', 'package.json']) {
      utimesSync(join(base, path), past, past)
    }
    writeFileSync(join(base, 'dist', '.build-stamp.json'), JSON.stringify({ startedAt: Date.now() - 1000 }))
  })
  afterEach(() => rmSync(base, { recursive: true, force: true }))

  it('is current when every input is older than the last build', () => {
    expect(staleReason(base)).toBeNull()
  })

  it('names a source edited since', () => {
    utimesSync(join(base, 'source', 'ui', 'app.tsx'), new Date(), new Date())
    expect(staleReason(base)).toBe('source/ui/app.tsx changed')
  })

  it('notices a source deleted since (its folder changed)', () => {
    rmSync(join(base, 'source', 'cli.ts'))
    expect(staleReason(base)).toBe('source changed')
  })

  it('rebuilds without a stamp (a build of an older version) or without dist/cli.js', () => {
    rmSync(join(base, 'dist', 'cli.js'))
    expect(staleReason(base)).toBe('dist/cli.js is missing')
    rmSync(join(base, 'dist', '.build-stamp.json'))
    expect(staleReason(base)).toMatch(/not built by this version/)
  })
})
