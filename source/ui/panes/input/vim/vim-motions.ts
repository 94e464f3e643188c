/**
 * Vim's motions over the prompt's text: pure functions from (text, cursor, count) to where the cursor
 * goes, and how an operator takes the span (exclusive, inclusive of the last character, or whole lines).
 * Indexes are UTF-16 offsets, as in `editor-state.ts`. The engine passes the text with its chips masked
 * (`vim-chips.ts`), so a chip is one word and one step of `h`/`l`.
 */
import { chipAt, chipClass, nextUnit, prevUnit } from './vim-chips.js'

export interface Target {
  to: number
  /** The character at `to` belongs to the span (`e`, `$`, `f`). */
  inclusive: boolean
  /** Whole lines from the cursor's to the target's (`j`, `k`, `gg`, `G`). */
  linewise: boolean
}

export function lineStart(text: string, i: number): number {
  return text.lastIndexOf('\n', i - 1) + 1
}

export function lineEnd(text: string, i: number): number {
  const end = text.indexOf('\n', i)
  return end === -1 ? text.length : end
}

/** The last character of the line (where normal mode's cursor stops), or its start when it is empty. */
export function lastChar(text: string, i: number): number {
  const start = lineStart(text, i)
  return Math.max(start, lineEnd(text, i) - 1)
}

/** Normal mode's cursor is always on a character: never past the end of a non-empty line. */
export function clampNormal(text: string, i: number): number {
  return Math.min(Math.max(0, i), lastChar(text, Math.min(i, text.length)))
}

export function firstNonBlank(text: string, i: number): number {
  let j = lineStart(text, i)
  const end = lineEnd(text, i)
  while (j < end && (text[j] === ' ' || text[j] === '\t')) j++
  return j === end && j > lineStart(text, i) ? j - 1 : j
}

/** Start of the line `n` lines below (negative: above), clamped to the text. */
export function lineStartAt(text: string, i: number, n: number): number {
  let start = lineStart(text, i)
  for (let k = 0; k < n; k++) {
    const end = lineEnd(text, start)
    if (end >= text.length) break
    start = end + 1
  }
  for (let k = 0; k > n; k--) {
    if (start === 0) break
    start = lineStart(text, start - 1)
  }
  return start
}

export function lineIndex(text: string, i: number): number {
  let n = 0
  for (let j = text.indexOf('\n'); j !== -1 && j < i; j = text.indexOf('\n', j + 1)) n++
  return n
}

export function lineCount(text: string): number {
  return lineIndex(text, text.length) + 1
}

type CharClass = 0 | 1 | 2 | 3 | 4
const KEYWORD = /[\p{L}\p{N}_]/u

/**
 * 0 blank, 1 keyword character, 2 other punctuation, 3 and 4 a chip (its own word; two chips side by side
 * are two); for WORDs (`W`) every non-blank is 1.
 */
function charClass(ch: string | undefined, bigWord: boolean): CharClass {
  if (ch === undefined || ch === ' ' || ch === '\t' || ch === '\n') return 0
  if (bigWord) return 1
  const chip = chipClass(ch)
  if (chip) return (2 + chip) as CharClass
  return KEYWORD.test(ch) ? 1 : 2
}

function isEmptyLine(text: string, i: number): boolean {
  return text[i] === '\n' && (i === 0 || text[i - 1] === '\n')
}

/** `w`/`W`: the start of the next word; an empty line counts as a word. */
export function nextWordStart(text: string, i: number, bigWord: boolean): number {
  const n = text.length
  if (i >= n) return n
  const cls = charClass(text[i], bigWord)
  let j = i
  if (cls !== 0) while (j < n && charClass(text[j], bigWord) === cls) j++
  while (j < n && charClass(text[j], bigWord) === 0) {
    if (j > i && isEmptyLine(text, j)) return j
    j++
  }
  return j
}

/** `b`/`B`: the start of this word, or of the one before. */
export function prevWordStart(text: string, i: number, bigWord: boolean): number {
  let j = i - 1
  while (j > 0 && charClass(text[j], bigWord) === 0 && !isEmptyLine(text, j)) j--
  if (j <= 0) return 0
  if (isEmptyLine(text, j)) return j
  const cls = charClass(text[j], bigWord)
  while (j > 0 && charClass(text[j - 1], bigWord) === cls) j--
  return j
}

/** `e`/`E`: the end of this word, or of the next one. */
export function wordEnd(text: string, i: number, bigWord: boolean): number {
  const n = text.length
  // On a chip the cursor is at its start, which is also its end: `e` goes on to the next word.
  let j = chipAt(text, i) ? nextUnit(text, i) : i + 1
  while (j < n && charClass(text[j], bigWord) === 0) j++
  if (j >= n) return Math.max(0, n - 1)
  const cls = charClass(text[j], bigWord)
  while (j + 1 < n && charClass(text[j + 1], bigWord) === cls) j++
  return j
}

/**
 * Where `cw` stops: the end of the word under the cursor (vim's `ce`, but on a word's last character, or a
 * chip, that character alone), then `count - 1` word ends further.
 */
export function changeWordEnd(text: string, i: number, bigWord: boolean, count: number): number {
  let to = wordEnd(text, i - 1, bigWord)
  for (let k = 1; k < count; k++) to = wordEnd(text, to, bigWord)
  return to
}

export type FindKind = 'f' | 'F' | 't' | 'T'

/** `f`/`F`/`t`/`T` on the cursor's line; null when the character is not there `count` times. */
export function findChar(
  text: string,
  i: number,
  kind: FindKind,
  char: string,
  count: number,
  repeat = false,
): number | null {
  const start = lineStart(text, i)
  const end = lineEnd(text, i)
  const forward = kind === 'f' || kind === 't'
  // `;` after `t` would find the character it stands before again: look one further.
  let j = i + (repeat && kind === 't' ? 1 : repeat && kind === 'T' ? -1 : 0)
  for (let found = 0; found < count; ) {
    j += forward ? 1 : -1
    if (j < start || j >= end) return null
    if (text[j] === char) found++
  }
  if (kind === 't') return j - 1
  if (kind === 'T') return j + 1
  return j
}

/** A motion key (with the character of `f`/`t`) at the cursor; null when it cannot move (a missing `f` char). */
export function motionTarget(
  text: string,
  cursor: number,
  motion: string,
  count: number | null,
  arg?: string,
): Target | null {
  const n = count ?? 1
  const exclusive = (to: number): Target => ({ to, inclusive: false, linewise: false })
  switch (motion) {
    case 'h':
    case '<bs>': {
      const start = lineStart(text, cursor)
      let to = cursor
      for (let k = 0; k < n && to > start; k++) to = prevUnit(text, to)
      return exclusive(Math.max(start, to))
    }
    case 'l':
    case ' ': {
      const end = lineEnd(text, cursor)
      let to = cursor
      for (let k = 0; k < n && to < end; k++) to = nextUnit(text, to)
      return exclusive(Math.min(end, to))
    }
    case '0':
      return exclusive(lineStart(text, cursor))
    case '^':
      return exclusive(firstNonBlank(text, cursor))
    case '$': {
      const start = lineStartAt(text, cursor, n - 1)
      return { to: Math.max(start, lineEnd(text, start) - 1), inclusive: true, linewise: false }
    }
    case 'j':
    case 'k': {
      const column = cursor - lineStart(text, cursor)
      const start = lineStartAt(text, cursor, motion === 'j' ? n : -n)
      return { to: Math.min(start + column, lastChar(text, start)), inclusive: false, linewise: true }
    }
    case 'gg':
    case 'G': {
      const line = count ?? (motion === 'gg' ? 1 : lineCount(text))
      const start = lineStartAt(text, 0, Math.max(0, line - 1))
      return { to: firstNonBlank(text, start), inclusive: false, linewise: true }
    }
    case 'w':
    case 'W': {
      let to = cursor
      for (let k = 0; k < n; k++) to = nextWordStart(text, to, motion === 'W')
      return exclusive(to)
    }
    case 'b':
    case 'B': {
      let to = cursor
      for (let k = 0; k < n; k++) to = prevWordStart(text, to, motion === 'B')
      return exclusive(to)
    }
    case 'e':
    case 'E': {
      let to = cursor
      for (let k = 0; k < n; k++) to = wordEnd(text, to, motion === 'E')
      return { to, inclusive: true, linewise: false }
    }
    case 'f':
    case 'F':
    case 't':
    case 'T': {
      if (arg === undefined) return null
      const to = findChar(text, cursor, motion, arg, n)
      return to === null ? null : { to, inclusive: motion === 'f' || motion === 't', linewise: false }
    }
    default:
      return null
  }
}

export const MOTION_KEYS: ReadonlySet<string> = new Set([
  'h',
  'l',
  'j',
  'k',
  ' ',
  '<bs>',
  '0',
  '^',
  '$',
  'w',
  'W',
  'b',
  'B',
  'e',
  'E',
  'G',
])
