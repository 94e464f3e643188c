import { describe, expect, it } from 'vitest'
import { createFreshness } from '../../../source/codesearch/freshness.ts'
import { createFileStateTracker } from '../../../source/tools/file-state.ts'

const knows =
  (...paths: string[]) =>
  (p: string) =>
    paths.includes(p)

describe('when a query brings the index up to date', () => {
  it('walks the workspace at most once per re-check interval', () => {
    const f = createFreshness(30_000)
    f.fullStarted(0)
    expect(f.next(10_000, knows())).toEqual({ kind: 'none' })
    expect(f.next(30_000, knows())).toEqual({ kind: 'full' })
    expect(f.next(31_000, knows())).toEqual({ kind: 'none' })
  })

  it('takes written files the listing knows at once, each once', () => {
    const f = createFreshness(30_000)
    f.fullStarted(0)
    f.written('a.ts')
    f.written('b.ts')
    expect(f.next(1, knows('a.ts', 'b.ts'))).toEqual({ kind: 'paths', paths: new Set(['a.ts', 'b.ts']) })
    expect(f.next(2, knows('a.ts', 'b.ts'))).toEqual({ kind: 'none' })
  })

  it('walks for a written file the listing does not know (only the walk applies .gitignore)', () => {
    const f = createFreshness(30_000)
    f.fullStarted(0)
    f.written('new.ts')
    expect(f.next(1, knows('a.ts'))).toEqual({ kind: 'full' })
    // The walk covered it, and restarted the interval.
    expect(f.next(29_000, knows('a.ts'))).toEqual({ kind: 'none' })
  })

  it('a file written while a walk runs is still taken after it', () => {
    const f = createFreshness(30_000)
    f.fullStarted(0)
    f.written('a.ts')
    expect(f.next(5, knows('a.ts'))).toMatchObject({ kind: 'paths' })
  })
})

describe("the session's file tools report what they write", () => {
  it('each recorded write reaches onWrite (CodeSearch updates the file before its next query)', () => {
    const written: string[] = []
    const files = createFileStateTracker({ onWrite: (p) => written.push(p) })
    files.recordRead('/w/a.ts', { mtimeMs: 1, size: 1 })
    files.recordWrite('/w/b.ts', { mtimeMs: 2, size: 2 })
    expect(written).toEqual(['/w/b.ts'])
    expect(files.get('/w/b.ts')).toEqual({ mtimeMs: 2, size: 2 })
  })
})
