/**
 * The prompt editor as a pure value: text plus a cursor (a UTF-16 index that never splits a surrogate
 * pair). Every edit returns a new state; the React component only renders it.
 */
import { CHIP_PATTERN } from './chip-pattern.js'

export interface EditorState {
  text: string
  cursor: number
}

export type EditorOp =
  | { type: 'insert'; text: string }
  | { type: 'newline' }
  | { type: 'backspace' }
  | { type: 'delete' }
  | { type: 'left' }
  | { type: 'right' }
  | { type: 'wordLeft' }
  | { type: 'wordRight' }
  | { type: 'lineStart' }
  | { type: 'lineEnd' }
  | { type: 'up' }
  | { type: 'down' }
  | { type: 'deleteWord' }
  | { type: 'killLineLeft' }
  | { type: 'killLineRight' }
  | { type: 'set'; text: string; cursor?: number }

export const EMPTY_EDITOR: EditorState = { text: '', cursor: 0 }

/**
 * Chips are atomic: `[Pasted text #2 +40 lines]` and `[Image #1]` disappear with one backspace, and the
 * cursor steps over them (arrows, words, lines), so a half-edited chip can never silently lose its content.
 */
const CHIP_BEFORE = new RegExp(`${CHIP_PATTERN}$`)
const CHIP_AFTER = new RegExp(`^${CHIP_PATTERN}`)
const CHIPS = new RegExp(CHIP_PATTERN, 'g')

/** The chip `i` is strictly inside of (not at its edges), on `i`'s line; null when none. */
function chipAround(text: string, i: number): { from: number; to: number } | null {
  const start = lineStartOf(text, i)
  const line = text.slice(start, lineEndOf(text, i))
  if (!line.includes('[')) return null
  for (const m of line.matchAll(CHIPS)) {
    const from = start + m.index
    const to = from + m[0].length
    if (from < i && i < to) return { from, to }
    if (from >= i) break
  }
  return null
}

/** `i` moved out of a chip it landed in: to its end when moving forward, else to its start. */
function outOfChip(text: string, i: number, forward: boolean): number {
  const chip = chipAround(text, i)
  return chip ? (forward ? chip.to : chip.from) : i
}

export function editorReducer(state: EditorState, op: EditorOp): EditorState {
  const { text, cursor } = state
  switch (op.type) {
    case 'insert': {
      if (!op.text) return state
      const clean = normaliseNewlines(op.text)
      return { text: text.slice(0, cursor) + clean + text.slice(cursor), cursor: cursor + clean.length }
    }
    case 'newline':
      return editorReducer(state, { type: 'insert', text: '\n' })
    case 'backspace': {
      if (cursor === 0) return state
      const chip = CHIP_BEFORE.exec(text.slice(0, cursor))
      const from = chip ? cursor - chip[0].length : prevIndex(text, cursor)
      return { text: text.slice(0, from) + text.slice(cursor), cursor: from }
    }
    case 'delete': {
      if (cursor >= text.length) return state
      const chip = CHIP_AFTER.exec(text.slice(cursor))
      const to = chip ? cursor + chip[0].length : nextIndex(text, cursor)
      return { text: text.slice(0, cursor) + text.slice(to), cursor }
    }
    case 'left':
      return cursor === 0 ? state : { text, cursor: outOfChip(text, prevIndex(text, cursor), false) }
    case 'right':
      return cursor >= text.length ? state : { text, cursor: outOfChip(text, nextIndex(text, cursor), true) }
    case 'wordLeft':
      return { text, cursor: outOfChip(text, wordStart(text, cursor), false) }
    case 'wordRight':
      return { text, cursor: outOfChip(text, wordEnd(text, cursor), true) }
    case 'lineStart':
      return { text, cursor: lineStartOf(text, cursor) }
    case 'lineEnd':
      return { text, cursor: lineEndOf(text, cursor) }
    case 'up':
    case 'down': {
      const moved = moveVertical(state, op.type === 'up' ? -1 : 1)
      const at = outOfChip(text, moved.cursor, false)
      return at === moved.cursor ? moved : { text, cursor: at }
    }
    case 'deleteWord': {
      // A word of a chip's text takes the whole chip.
      const from = outOfChip(text, wordStart(text, cursor), false)
      return from === cursor ? state : { text: text.slice(0, from) + text.slice(cursor), cursor: from }
    }
    case 'killLineLeft': {
      const from = lineStartOf(text, cursor)
      // At the start of a line, join it with the previous one like readline does.
      const start = from === cursor && cursor > 0 ? cursor - 1 : from
      return { text: text.slice(0, start) + text.slice(cursor), cursor: start }
    }
    case 'killLineRight': {
      const to = lineEndOf(text, cursor)
      const end = to === cursor && cursor < text.length ? cursor + 1 : to
      return { text: text.slice(0, cursor) + text.slice(end), cursor }
    }
    case 'set': {
      const clean = normaliseNewlines(op.text)
      return { text: clean, cursor: Math.max(0, Math.min(op.cursor ?? clean.length, clean.length)) }
    }
    default:
      return state
  }
}

export function normaliseNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n')
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}

function prevIndex(text: string, i: number): number {
  if (i <= 0) return 0
  return i >= 2 && isLowSurrogate(text.charCodeAt(i - 1)) ? i - 2 : i - 1
}

function nextIndex(text: string, i: number): number {
  if (i >= text.length) return text.length
  return i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1)) ? i + 2 : i + 1
}

const WORD = /[\p{L}\p{N}_]/u

function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && WORD.test(ch)
}

function wordStart(text: string, cursor: number): number {
  let i = cursor
  while (i > 0 && !isWordChar(text[i - 1])) i--
  while (i > 0 && isWordChar(text[i - 1])) i--
  return i
}

function wordEnd(text: string, cursor: number): number {
  let i = cursor
  while (i < text.length && !isWordChar(text[i])) i++
  while (i < text.length && isWordChar(text[i])) i++
  return i
}

function lineStartOf(text: string, cursor: number): number {
  return text.lastIndexOf('\n', cursor - 1) + 1
}

function lineEndOf(text: string, cursor: number): number {
  const end = text.indexOf('\n', cursor)
  return end === -1 ? text.length : end
}

export interface CursorPosition {
  line: number
  column: number
  lineCount: number
}

/** Logical (unwrapped) line and column of the cursor. */
export function cursorPosition(state: EditorState): CursorPosition {
  const before = state.text.slice(0, state.cursor)
  const line = countNewlines(before)
  return {
    line,
    column: state.cursor - lineStartOf(state.text, state.cursor),
    lineCount: countNewlines(state.text) + 1,
  }
}

function countNewlines(s: string): number {
  let n = 0
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++
  return n
}

export function isOnFirstLine(state: EditorState): boolean {
  return state.text.lastIndexOf('\n', state.cursor - 1) === -1
}

export function isOnLastLine(state: EditorState): boolean {
  return state.text.indexOf('\n', state.cursor) === -1
}

function moveVertical(state: EditorState, delta: -1 | 1): EditorState {
  const { text, cursor } = state
  const start = lineStartOf(text, cursor)
  const column = cursor - start
  if (delta < 0) {
    if (start === 0) return { text, cursor: 0 }
    const prevStart = lineStartOf(text, start - 1)
    return { text, cursor: Math.min(prevStart + column, start - 1) }
  }
  const end = lineEndOf(text, cursor)
  if (end >= text.length) return { text, cursor: text.length }
  const nextStart = end + 1
  return { text, cursor: Math.min(nextStart + column, lineEndOf(text, nextStart)) }
}
