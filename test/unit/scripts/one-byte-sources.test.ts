import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs build script without types
import { beyondLatin1 } from '../../../scripts/one-byte-sources.mjs'

let dir: string | undefined

afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('beyondLatin1 (the build keeps every chunk one byte per character)', () => {
  it('names a chunk whose regular expression holds an ellipsis, and passes escaped and Latin-1 text', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tui-one-byte-'))
    await mkdir(join(dir, 'chunks'))
    await writeFile(join(dir, 'chunks', 'a.js'), 'var r=/… (\\d+) chars/;')
    await writeFile(join(dir, 'chunks', 'b.js'), 'var r=/\\u2026 (\\d+) chars/, s="caf\\xe9 ·";')
    await writeFile(join(dir, 'chunks', 'c.js.map'), '{"sourcesContent":["…"]}')
    await writeFile(join(dir, 'cli.js'), 'var s="naïve · ±";')
    const found: string[] = await beyondLatin1(dir)
    expect(found).toHaveLength(1)
    expect(found[0]).toMatch(/^chunks\/a\.js: "var r=\/… /)
  })
})
