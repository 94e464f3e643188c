/**
 * Vim's text objects after an operator (`diw`, `ca"`, `yi(`): the span [from, to) they cover, or null
 * when the cursor is not in one (no quotes on the line, no bracket around it).
 */
import { chipClass } from './vim-chips.js'
import { lineEnd, lineStart } from './vim-motions.js'

export interface Span {
  from: number
  to: number
}

const KEYWORD = /[\p{L}\p{N}_]/u
const isBlank = (ch: string | undefined) => ch === ' ' || ch === '\t'

function wordClass(ch: string | undefined, bigWord: boolean): number {
  if (ch === undefined || ch === '\n') return -1
  if (isBlank(ch)) return 0
  if (bigWord) return 1
  // A chip (masked, see vim-chips.ts) is a word of its own.
  const chip = chipClass(ch)
  if (chip) return 2 + chip
  return KEYWORD.test(ch) ? 1 : 2
}

/** The run of same-class characters (word, punctuation or blanks) at `i`, on its line. */
function runAt(text: string, i: number, bigWord: boolean): Span {
  const cls = wordClass(text[i], bigWord)
  let from = i
  let to = i
  if (cls === -1) return { from: i, to: i }
  while (from > 0 && wordClass(text[from - 1], bigWord) === cls) from--
  while (to < text.length && wordClass(text[to], bigWord) === cls) to++
  return { from, to }
}

/** `iw`/`aw` (and `iW`/`aW`); a count takes that many runs (`aw`: words with their blanks). */
function wordObject(text: string, cursor: number, around: boolean, bigWord: boolean, count: number): Span {
  let { from, to } = runAt(text, cursor, bigWord)
  const end = lineEnd(text, cursor)
  const startedOnBlank = isBlank(text[cursor])
  for (let k = 0; k < count; k++) {
    if (k > 0) {
      if (to >= end) break
      to = runAt(text, to, bigWord).to
    }
    // `aw`: a word and the blanks after it; started on blanks, the blanks and the word after them.
    if (around && to < end && isBlank(text[to]) !== startedOnBlank) to = runAt(text, to, bigWord).to
  }
  if (around && !startedOnBlank && !isBlank(text[to - 1])) {
    // No blanks after the word (end of line): take the ones before it instead.
    while (from > lineStart(text, cursor) && isBlank(text[from - 1])) from--
  }
  return { from, to }
}

/** `i"`/`a"` (and `'`, `` ` ``): the quotes on the cursor's line that hold it, or the first pair after it. */
function quoteObject(text: string, cursor: number, quote: string, around: boolean): Span | null {
  const start = lineStart(text, cursor)
  const end = lineEnd(text, cursor)
  const quotes: number[] = []
  for (let i = start; i < end; i++) if (text[i] === quote && text[i - 1] !== '\\') quotes.push(i)
  for (let k = 0; k + 1 < quotes.length; k += 2) {
    const open = quotes[k] as number
    const close = quotes[k + 1] as number
    if (cursor > close) continue
    if (!around) return { from: open + 1, to: close }
    let to = close + 1
    let from = open
    if (isBlank(text[to])) while (isBlank(text[to])) to++
    else while (from > start && isBlank(text[from - 1])) from--
    return { from, to }
  }
  return null
}

const PAIRS: Readonly<Record<string, readonly [string, string]>> = {
  '(': ['(', ')'],
  ')': ['(', ')'],
  b: ['(', ')'],
  '[': ['[', ']'],
  ']': ['[', ']'],
  '{': ['{', '}'],
  '}': ['{', '}'],
  B: ['{', '}'],
  '<': ['<', '>'],
  '>': ['<', '>'],
}

/** `i(`/`a(` and the other brackets: the innermost pair around the cursor (across lines). */
function bracketObject(
  text: string,
  cursor: number,
  open: string,
  close: string,
  around: boolean,
): Span | null {
  let depth = 0
  let from = -1
  for (let i = text[cursor] === close ? cursor - 1 : cursor; i >= 0; i--) {
    if (text[i] === close) depth++
    else if (text[i] === open) {
      if (depth === 0) {
        from = i
        break
      }
      depth--
    }
  }
  if (from === -1) return null
  depth = 0
  for (let i = from + 1; i < text.length; i++) {
    if (text[i] === open) depth++
    else if (text[i] === close) {
      if (depth > 0) {
        depth--
        continue
      }
      return around ? { from, to: i + 1 } : { from: from + 1, to: i }
    }
  }
  return null
}

export const TEXT_OBJECT_KEYS: ReadonlySet<string> = new Set(['w', 'W', '"', "'", '`', ...Object.keys(PAIRS)])

/** `kind` is `i` or `a`, `key` the object's key (`w`, `"`, `(`…). */
export function textObject(
  text: string,
  cursor: number,
  kind: 'i' | 'a',
  key: string,
  count: number,
): Span | null {
  const around = kind === 'a'
  if (key === 'w' || key === 'W') return wordObject(text, cursor, around, key === 'W', count)
  if (key === '"' || key === "'" || key === '`') return quoteObject(text, cursor, key, around)
  const pair = PAIRS[key]
  return pair ? bracketObject(text, cursor, pair[0], pair[1], around) : null
}
