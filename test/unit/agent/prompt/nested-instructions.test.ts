import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  createNestedInstructions,
  nestedCandidates,
  placesOfCall,
} from '../../../../source/agent/prompt/nested-instructions.ts'
import { instructionReader } from '../../../../source/tools/instruction-file.ts'

describe('placesOfCall: where a tool call says the agent works', () => {
  it.each([
    ['Read', { file_path: 'src/a.ts' }, [{ path: 'src/a.ts', file: true }]],
    ['Edit', { file_path: '/w/x/y.md' }, [{ path: '/w/x/y.md', file: true }]],
    ['NotebookEdit', { notebook_path: 'nb/n.ipynb' }, [{ path: 'nb/n.ipynb', file: true }]],
    ['Glob', { pattern: '**/*.ts', path: 'src' }, [{ path: 'src', file: false }]],
    ['Grep', { pattern: 'x', path: 'src/one.ts' }, [{ path: 'src/one.ts', file: true }]],
    ['Grep', { pattern: 'x' }, []],
    ['Bash', { command: 'cd src' }, []],
  ])('%s %j', (name, args, expected) => {
    expect(placesOfCall(name, JSON.stringify(args))).toEqual(expected)
  })
  it('arguments that are not JSON name nothing', () => {
    expect(placesOfCall('Read', '{"file_path": ')).toEqual([])
  })
})

describe('nestedCandidates', () => {
  it.each([
    ['a file two folders down', '/w/src/api/x.ts', true, ['/w/src/CLAUDE.md', '/w/src/api/CLAUDE.md']],
    ['a folder', '/w/src', false, ['/w/src/CLAUDE.md']],
    ['the workspace itself (its CLAUDE.md is in the prompt)', '/w/README.md', true, []],
    ['outside the workspace', '/elsewhere/x/y.ts', true, []],
    ['a parent', '/w/../x.ts', true, []],
  ])('%s', (_what, path, file, expected) => {
    expect(nestedCandidates(path, '/w', file)).toEqual(expected)
  })
})

describe('createNestedInstructions', () => {
  let ws: string
  beforeEach(async () => {
    ws = await realpath(await mkdtemp(join(tmpdir(), 'nested-')))
  })
  afterEach(() => rm(ws, { recursive: true, force: true }))
  const put = async (path: string, text: string) => {
    await mkdir(dirname(join(ws, path)), { recursive: true })
    await writeFile(join(ws, path), text)
  }
  const make = (seen = new Set<string>()) =>
    createNestedInstructions({
      workspace: ws,
      home: '/nonexistent',
      read: instructionReader({
        workspace: ws,
        home: '/nonexistent',
        additionalDirs: [],
        rules: () => ({ allow: [], ask: [], deny: [] }),
      }),
      seen,
    })

  it('one message per first touch, outermost first; each folder once; ready() waits for the reads', async () => {
    await put('src/CLAUDE.md', 'SRC')
    await put('src/api/CLAUDE.md', 'API')
    const nested = make()
    nested.touched([{ path: 'src/api/h.ts', file: true }], ws)
    await nested.ready()
    const [first, ...rest] = nested.take()
    expect(rest).toEqual([])
    expect(first?.content).toContain('The agent started working in src/api/')
    expect(first?.content.indexOf('SRC')).toBeLessThan(first?.content.indexOf('API') ?? 0)
    expect(first?.note).toBe('Read src/CLAUDE.md, src/api/CLAUDE.md (the agent works in src/api/ now)')
    nested.touched([{ path: join(ws, 'src/api/other.ts'), file: true }], ws)
    await nested.ready()
    expect(nested.take()).toEqual([])
  })

  it('a file already in the prompt (imported by the root CLAUDE.md) is not sent again', async () => {
    await put('src/CLAUDE.md', 'SRC')
    const seen = new Set([join(ws, 'src/CLAUDE.md')])
    const nested = make(seen)
    nested.touched([{ path: 'src', file: false }], ws)
    await nested.ready()
    expect(nested.take()).toEqual([])
  })

  it('a folder without CLAUDE.md gives nothing', async () => {
    await put('lib/x.ts', '')
    const nested = make()
    nested.touched([{ path: 'lib/x.ts', file: true }], ws)
    await nested.ready()
    expect(nested.take()).toEqual([])
  })
})
