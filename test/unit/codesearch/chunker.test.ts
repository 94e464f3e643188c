import { describe, expect, it } from 'vitest'
import { chunkText, hasSyntax } from '../../../source/codesearch/chunker.ts'

const small = { maxLines: 80, maxChars: 3000, overlap: 10, joinUnderLines: 1 }

describe('chunkText', () => {
  it('starts a TypeScript piece at each top-level declaration, its comment included', () => {
    const text = [
      "import { x } from './x.js'",
      '',
      '/** Adds. */',
      'export function add(a: number, b: number) {',
      '  return a + b',
      '}',
      '',
      '// A class.',
      'export class Box {',
      '  method() {}',
      '}',
    ].join('\n')
    const chunks = chunkText('a.ts', text, small)
    expect(chunks.map((c) => [c.startLine, c.endLine])).toEqual([
      [1, 2],
      [3, 7],
      [8, 11],
    ])
    expect(chunks[1]?.text.startsWith('/** Adds. */\nexport function add')).toBe(true)
  })

  it.each([
    [
      'a.py',
      ['import os', '', '@cache', 'def f():', '    return 1', '', 'class C:', '    pass'],
      [
        [1, 2],
        [3, 6],
        [7, 8],
      ],
    ],
    [
      'a.go',
      ['package a', '', 'func F() {', '}', '', 'type T struct{}'],
      [
        [1, 2],
        [3, 5],
        [6, 6],
      ],
    ],
    [
      'a.rs',
      ['use std::io;', '', 'pub fn f() {}', '', 'impl T {', '}'],
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
    ],
    [
      'a.md',
      ['# Title', 'intro', '## Part', 'text', '### Sub', 'more'],
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
    ],
  ])('%s is cut at its declarations', (path, lines, ranges) => {
    expect(chunkText(path, lines.join('\n'), small).map((c) => [c.startLine, c.endLine])).toEqual(ranges)
  })

  it('joins short neighbours while the result stays under joinUnderLines', () => {
    const text = ['const a = 1', 'const b = 2', 'const c = 3', 'function f() {', '}'].join('\n')
    expect(chunkText('a.js', text).map((c) => [c.startLine, c.endLine])).toEqual([[1, 5]])
  })

  it('a nested function stays in its parent piece', () => {
    const text = ['function outer() {', '  function inner() {}', '}'].join('\n')
    expect(chunkText('a.ts', text, small)).toHaveLength(1)
  })

  it('cuts a file without declaration patterns into overlapping windows', () => {
    const text = Array.from({ length: 25 }, (_, i) => `line ${i + 1}`).join('\n')
    const limits = { maxLines: 10, maxChars: 3000, overlap: 2, joinUnderLines: 30 }
    expect(hasSyntax('notes.txt')).toBe(false)
    expect(chunkText('notes.txt', text, limits).map((c) => [c.startLine, c.endLine])).toEqual([
      [1, 10],
      [9, 18],
      [17, 25],
    ])
  })

  it('cuts a long declaration into windows too, and by characters', () => {
    const body = Array.from({ length: 30 }, () => `  x += ${'9'.repeat(90)}`)
    const text = ['function big() {', ...body, '}'].join('\n')
    const chunks = chunkText('a.ts', text, { maxLines: 80, maxChars: 1000, overlap: 1, joinUnderLines: 1 })
    expect(chunks.length).toBeGreaterThan(2)
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(1000)
    expect(chunks.at(-1)?.endLine).toBe(32)
    expect(chunks[1]?.startLine).toBe(chunks[0]?.endLine ?? 0)
  })

  it('an empty or blank file has no chunks', () => {
    expect(chunkText('a.ts', '')).toEqual([])
    expect(chunkText('a.ts', '\n\n  \n')).toEqual([])
  })
})

describe('lines that made the declaration patterns backtrack', () => {
  // Took ~11 s with the C pattern's `(static\s+)*` group before; the test would time out.
  it.each([
    ['evil.c', 'static '.repeat(8000)],
    ['evil.cpp', `${'static inline '.repeat(20)}x`],
    ['evil.c', `${'static '.repeat(40)}int f(`],
    ['evil.ts', `${'export '.repeat(5000)}function`],
    ['evil.rs', `${'pub '.repeat(5000)}fn`],
  ])('%s with a pathological line is chunked', (path, line) => {
    const chunks = chunkText(path, `${line}\nint main(void) {\n  return 0;\n}\n`)
    expect(chunks.length).toBeGreaterThan(0)
    expect(chunks.map((c) => c.text).join('\n')).toContain('int main(void)')
  })

  it('a C function still starts a chunk', () => {
    const filler = Array.from({ length: 40 }, (_, i) => `int x${i} = ${i};\n`).join('')
    const text = `${filler}\nstatic inline int add(int a, int b) {\n  return a + b;\n}\n`
    const chunks = chunkText('a.c', text, small)
    expect(chunks.some((c) => c.text.startsWith('static inline int add('))).toBe(true)
  })
})
