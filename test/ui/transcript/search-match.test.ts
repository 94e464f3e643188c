import stringWidth from 'string-width'
import stripAnsi from 'strip-ansi'
import { describe, expect, it } from 'vitest'
import { createTheme } from '../../../source/ui/components/theme.js'
import { renderItemLines } from '../../../source/ui/panes/transcript/item-lines.js'
import { searchBar } from '../../../source/ui/panes/transcript/search-bar.js'
import { highlightLine, searchStyles } from '../../../source/ui/panes/transcript/search-highlight.js'
import {
  compileQuery,
  findMatches,
  foldCase,
  matchLabel,
  plainText,
  stepMatch,
} from '../../../source/ui/panes/transcript/search-match.js'
import {
  reduceSearch,
  SEARCH_CLOSED,
  type SearchState,
} from '../../../source/ui/panes/transcript/search-model.js'

const color = createTheme({ level: 1 })
const plainTheme = createTheme({ level: 0 })

describe('compileQuery (smart case)', () => {
  it.each([
    ['', null],
    ['apple', { text: 'apple', caseSensitive: false }],
    ['Apple', { text: 'Apple', caseSensitive: true }],
    ['APPLE pie', { text: 'APPLE pie', caseSensitive: true }],
    ['日本', { text: '日本', caseSensitive: false }],
    ['123', { text: '123', caseSensitive: false }],
  ])('%j → %j', (query, needle) => {
    expect(compileQuery(query)).toEqual(needle)
  })
})

describe('findMatches', () => {
  const cases: Array<[string, string[], string, Array<[number, number, number, number]>]> = [
    // [name, rows, query, [line, start, column, width] per match]
    ['empty query', ['apple'], '', []],
    ['no matches', ['apple', 'pear'], 'plum', []],
    [
      'lower case matches any case',
      ['Apple apple APPLE'],
      'apple',
      [
        [0, 0, 0, 5],
        [0, 6, 6, 5],
        [0, 12, 12, 5],
      ],
    ],
    ['a capital makes it exact', ['Apple apple APPLE'], 'Apple', [[0, 0, 0, 5]]],
    [
      'non-overlapping, left to right',
      ['aaaa'],
      'aa',
      [
        [0, 0, 0, 2],
        [0, 2, 2, 2],
      ],
    ],
    [
      'several rows',
      ['one fox', 'two', 'fox fox'],
      'fox',
      [
        [0, 4, 4, 3],
        [2, 0, 0, 3],
        [2, 4, 4, 3],
      ],
    ],
    // A CJK character takes two cells: the column counts cells, the start counts characters.
    ['wide characters before a match', ['日本語 apple'], 'apple', [[0, 4, 7, 5]]],
    ['a wide match', ['ab日本c'], '日本', [[0, 2, 2, 4]]],
    ['emoji (two UTF-16 units)', ['🍎 apple'], 'apple', [[0, 3, 3, 5]]],
    ['ANSI styling is not text', ['\x1b[33mapp\x1b[39mle'], 'apple', [[0, 0, 0, 5]]],
    ['escape codes never match', ['\x1b[33mred\x1b[39m'], '33m', []],
  ]
  it.each(cases)('%s', (_name, rows, query, expected) => {
    expect(findMatches(rows, query).map((m) => [m.line, m.start, m.column, m.width])).toEqual(expected)
  })

  it('finds matches on the rows a long paragraph wraps into, each on its own row', () => {
    const text = 'apple '.repeat(30).trim()
    const rows = renderItemLines({ kind: 'user', id: 'u', text, images: 0 }, 40, {
      expanded: false,
      theme: color,
    })
    expect(rows.length).toBeGreaterThan(3)
    const matches = findMatches(rows, 'apple')
    // Each row is searched as shown: every word the wrap left whole, at its column on that row.
    expect(matches).toHaveLength(30)
    for (const m of matches) {
      expect(stripAnsi(rows[m.line] ?? '').slice(m.start, m.end)).toBe('apple')
    }
    expect(new Set(matches.map((m) => m.line)).size).toBe(rows.length)
    // A phrase cut by the wrap is found by the part on one row, not across the two.
    expect(findMatches(rows, 'apple apple apple apple apple apple apple').length).toBe(0)
  })
})

describe('stepMatch wraps around at both ends', () => {
  it.each([
    [0, 3, 1, 1],
    [2, 3, 1, 0],
    [0, 3, -1, 2],
    [1, 3, -1, 0],
    [-1, 3, 1, 0],
    [-1, 3, -1, 2],
    [5, 3, 1, 0],
    [0, 0, 1, -1],
    [0, 1, 1, 0],
  ] as const)('from %i of %i by %i → %i', (current, count, direction, next) => {
    expect(stepMatch(current, count, direction)).toBe(next)
  })
})

describe('foldCase keeps indices', () => {
  it.each(['Apple', 'İstanbul', 'ẞtraße', 'plain'])('%s', (text) => {
    expect(foldCase(text)).toHaveLength(text.length)
  })
})

describe('matchLabel', () => {
  it.each([
    ['', -1, 0, 'type to search'],
    ['x', -1, 0, 'no matches'],
    ['x', 2, 17, 'match 3 of 17'],
    ['x', -1, 1, '1 match'],
  ] as const)('%j %i %i → %s', (query, current, count, label) => {
    expect(matchLabel(query, current, count)).toBe(label)
  })
})

describe('highlightLine', () => {
  const styles = searchStyles(color)
  it('marks each range, the current one in its own colours, and keeps the text and the row styling', () => {
    const row = `${color.bold('bold apple')} and ${color.chalk.green('green apple here')}`
    const out = highlightLine(
      row,
      [
        [5, 10],
        [21, 26],
      ],
      1,
      styles,
    )
    expect(plainText(out)).toBe(plainText(row))
    expect(out).toContain(`${styles.match}apple`)
    expect(out).toContain(`${styles.current}apple`)
    // After the second match the row's green is replayed, so " here" stays green.
    const tail = out.slice(out.lastIndexOf('apple') + 'apple'.length)
    expect(tail).toMatch(/^\x1b\[0m.*\x1b\[32m.* here/)
  })

  it('reopens the highlight after a style change inside a match', () => {
    const row = `ap${color.chalk.yellow('pl')}e`
    const out = highlightLine(row, [[0, 5]], 0, styles)
    expect(plainText(out)).toBe('apple')
    expect(out.split(styles.current).length - 1).toBeGreaterThanOrEqual(3)
  })

  it('marks touching ranges and wide characters', () => {
    const out = highlightLine(
      '日本日本',
      [
        [0, 2],
        [2, 4],
      ],
      0,
      styles,
    )
    expect(out).toBe(`${styles.current}日本\x1b[0m${styles.match}日本\x1b[0m`)
  })

  it('leaves a row without ranges as it is', () => {
    expect(highlightLine('apple', [], -1, styles)).toBe('apple')
  })

  it('still shows matches without colour: inverse for the current one, underline for the others', () => {
    expect(searchStyles(plainTheme)).toEqual({ current: '\x1b[7m', match: '\x1b[4m' })
  })
})

describe('reduceSearch', () => {
  const open: SearchState = { phase: 'field', query: 'ap', current: 1 }
  it.each([
    [
      'open from closed starts empty in the field',
      SEARCH_CLOSED,
      { type: 'open' },
      { phase: 'field', query: '', current: -1 },
    ],
    ['open from the transcript keeps the query', { ...open, phase: 'transcript' }, { type: 'open' }, open],
    [
      'typing appends and drops the current match',
      open,
      { type: 'input', text: 'p' },
      { ...open, query: 'app', current: -1 },
    ],
    [
      'a paste searches its first line, without control characters',
      open,
      { type: 'input', text: 'p\x1bl\nrest' },
      { ...open, query: 'appl', current: -1 },
    ],
    [
      'backspace takes a whole character',
      { ...open, query: 'a日' },
      { type: 'backspace' },
      { ...open, query: 'a', current: -1 },
    ],
    ['clear', open, { type: 'clear' }, { ...open, query: '', current: -1 }],
    [
      'tab moves the keys to the transcript',
      open,
      { type: 'toggle-focus' },
      { ...open, phase: 'transcript' },
    ],
    ['and back', { ...open, phase: 'transcript' }, { type: 'toggle-focus' }, open],
    ['step wraps', open, { type: 'step', direction: 1, count: 2 }, { ...open, current: 0 }],
    [
      'step back wraps',
      { ...open, current: 0 },
      { type: 'step', direction: -1, count: 2 },
      { ...open, current: 1 },
    ],
    ['pick', open, { type: 'pick', current: 0 }, { ...open, current: 0 }],
    ['close forgets everything', open, { type: 'close' }, SEARCH_CLOSED],
    ['closed ignores typing', SEARCH_CLOSED, { type: 'input', text: 'x' }, SEARCH_CLOSED],
  ] as const)('%s', (_name, state, event, next) => {
    expect(reduceSearch(state as SearchState, event)).toEqual(next)
  })
})

describe('searchBar', () => {
  const state = { phase: 'field', query: 'apple h', current: 0, count: 2, opened: 1 } as const
  it.each([
    [120, 'match 1 of 2 · 1 folded block opened · Enter/↓ next · ↑ previous · Tab n/N · Esc close'],
    [80, 'match 1 of 2 · 1 folded block opened · Esc close'],
    [40, 'match 1 of 2 · Esc close'],
    [24, 'match 1 of 2'],
  ])('at %i columns keeps what fits, Esc last of the keys', (width, tail) => {
    const row = searchBar(state, width, color)
    expect(stringWidth(row)).toBeLessThanOrEqual(width)
    // At 24 columns the query keeps its end.
    expect(stripAnsi(row)).toBe(` / ${width === 24 ? '…ple h' : 'apple h'}   ${tail}`)
  })

  it('keeps the end of a long query, and says so when nothing matches', () => {
    const row = stripAnsi(searchBar({ ...state, query: 'x'.repeat(100), count: 0, opened: 0 }, 60, color))
    expect(stringWidth(row)).toBeLessThanOrEqual(60)
    expect(row).toMatch(/^ \/ …x+ {3}no matches · Esc close$/)
  })

  it('shows the query without the cursor when the transcript has the keys', () => {
    const row = stripAnsi(searchBar({ ...state, phase: 'transcript', opened: 0 }, 100, color))
    expect(row).toBe(' / apple h  match 1 of 2 · n/N next/previous · / edit · Esc close')
  })
})
