import stringWidth from 'string-width'

/**
 * Transcript search over rendered lines, pure: what a query matches, where, and how to step through the
 * matches. A match never spans two rows: the transcript searches what it shows, row by row, so a phrase
 * that a wrap cuts in two is found by any part of it that stays on one row.
 */

/** A compiled query: smart case (case-sensitive only when the query has a capital letter, as in vim). */
export interface Needle {
  text: string
  caseSensitive: boolean
}

/** A match in one row: `start`/`end` index the row's plain text (UTF-16), `column`/`width` are display cells. */
export interface LineMatch {
  line: number
  start: number
  end: number
  column: number
  width: number
}

/** Null for an empty query: nothing to search, nothing highlighted. */
export function compileQuery(query: string): Needle | null {
  if (query === '') return null
  const caseSensitive = query !== query.toLowerCase()
  return { text: caseSensitive ? query : foldCase(query), caseSensitive }
}

/**
 * Lower case with the same length as the input, so an index in the folded text is an index in the
 * original: a character whose lower case is longer (`İ` → `i̇`) is kept as it is.
 */
export function foldCase(text: string): string {
  const lower = text.toLowerCase()
  if (lower.length === text.length) return lower
  let out = ''
  for (const char of text) {
    const folded = char.toLowerCase()
    out += folded.length === char.length ? folded : char
  }
  return out
}

/** CSI (SGR included), OSC (ended by BEL or ST) and two-character escapes: what can sit in a rendered row. */
export const ESCAPE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g

/** A rendered row as text: its ANSI styling taken out (the same escapes `highlightLine` steps over). */
export function plainText(line: string): string {
  return line.includes('\x1b') ? line.replace(ESCAPE, '') : line
}

/** Non-overlapping `[start, end)` ranges of the needle in a plain row, left to right. */
export function findInText(text: string, folded: string, needle: Needle): Array<[number, number]> {
  const haystack = needle.caseSensitive ? text : folded
  const out: Array<[number, number]> = []
  const n = needle.text.length
  for (let at = haystack.indexOf(needle.text); at >= 0; at = haystack.indexOf(needle.text, at + n)) {
    out.push([at, at + n])
  }
  return out
}

/** Every match of `query` in rendered (ANSI-styled) rows, in reading order, with display columns. */
export function findMatches(lines: readonly string[], query: string): LineMatch[] {
  const needle = compileQuery(query)
  if (!needle) return []
  const out: LineMatch[] = []
  lines.forEach((line, index) => {
    const text = plainText(line)
    for (const [start, end] of findInText(text, foldCase(text), needle)) {
      const column = stringWidth(text.slice(0, start))
      out.push({ line: index, start, end, column, width: stringWidth(text.slice(start, end)) })
    }
  })
  return out
}

/** The next (`1`) or previous (`-1`) match, wrapping around at both ends; -1 when there are none. */
export function stepMatch(current: number, count: number, direction: 1 | -1): number {
  if (count <= 0) return -1
  if (current < 0 || current >= count) return direction === 1 ? 0 : count - 1
  return (current + direction + count) % count
}

/** "match 3 of 17", "no matches", or what to do with an empty field. */
export function matchLabel(query: string, current: number, count: number): string {
  if (query === '') return 'type to search'
  if (count === 0) return 'no matches'
  return current < 0 ? `${count} match${count === 1 ? '' : 'es'}` : `match ${current + 1} of ${count}`
}
