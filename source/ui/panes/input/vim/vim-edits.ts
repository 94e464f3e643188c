/**
 * The edits of vim's normal mode on the prompt's text: an operator over a span, put, join, replace and
 * case toggling. Pure: (editor, register) in, the new editor (and register) out. `masked` is the text with
 * its chips masked (`vim-chips.ts`): the edits that step by character step over a chip as one.
 */
import type { EditorState } from '../editor-state.js'
import { chipAt, nextUnit } from './vim-chips.js'
import { clampNormal, firstNonBlank, lineEnd, lineStart } from './vim-motions.js'
import type { VimRegister } from './vim-types.js'

export type Operator = 'd' | 'c' | 'y'

export interface Span {
  from: number
  to: number
  linewise: boolean
}

export interface EditResult {
  editor: EditorState
  register?: VimRegister
  /** `c` leaves the editor in insert mode. */
  insert?: boolean
}

/** Whole lines from the line of `a` to the line of `b`: [start, end) without the last line's newline. */
export function linesSpan(text: string, a: number, b: number): Span {
  return { from: lineStart(text, Math.min(a, b)), to: lineEnd(text, Math.max(a, b)), linewise: true }
}

export function applyOperator(op: Operator, editor: EditorState, span: Span): EditResult {
  const { text } = editor
  const taken = text.slice(span.from, span.to)
  const register: VimRegister = { text: taken, linewise: span.linewise }
  if (op === 'y') {
    // The cursor goes to the start of what was taken; `yy` and `yj` leave it where it is.
    const above = span.linewise && span.from < lineStart(text, editor.cursor)
    const cursor = span.linewise ? (above ? span.from : editor.cursor) : span.from
    return { editor: { text, cursor }, register }
  }
  if (!span.linewise) {
    const next = text.slice(0, span.from) + text.slice(span.to)
    const cursor = op === 'c' ? span.from : clampNormal(next, span.from)
    return { editor: { text: next, cursor }, register, ...(op === 'c' ? { insert: true } : {}) }
  }
  if (op === 'c') {
    // `cc`, `cj`: the lines' text goes, one empty line stays to type on.
    const next = text.slice(0, span.from) + text.slice(span.to)
    return { editor: { text: next, cursor: span.from }, register, insert: true }
  }
  // `dd`: the lines and one newline beside them (the one before, for the last line).
  let from = span.from
  let to = span.to
  if (to < text.length) to++
  else if (from > 0) from--
  const next = text.slice(0, from) + text.slice(to)
  const at = Math.min(from === span.from ? from : lineStart(next, from), next.length)
  return { editor: { text: next, cursor: firstNonBlank(next, at) }, register }
}

/** `p` (after) and `P` (before), `count` times. */
export function put(
  editor: EditorState,
  masked: string,
  register: VimRegister,
  after: boolean,
  count: number,
): EditorState {
  const { text, cursor } = editor
  if (register.text === '' && !register.linewise) return editor
  const body = register.text
  if (register.linewise) {
    const block = Array.from({ length: count }, () => body).join('\n')
    if (after) {
      const end = lineEnd(text, cursor)
      const next = `${text.slice(0, end)}\n${block}${text.slice(end)}`
      return { text: next, cursor: firstNonBlank(next, end + 1) }
    }
    const start = lineStart(text, cursor)
    const next = `${text.slice(0, start)}${block}\n${text.slice(start)}`
    return { text: next, cursor: firstNonBlank(next, start) }
  }
  const block = body.repeat(count)
  const at =
    after && text.length > 0 && text[cursor] !== '\n'
      ? Math.min(nextUnit(masked, cursor), text.length)
      : cursor
  const next = text.slice(0, at) + block + text.slice(at)
  return { text: next, cursor: Math.max(at, at + block.length - 1) }
}

/** `J`: joins `count` lines (at least two) with one space, dropping the next lines' indentation. */
export function joinLines(editor: EditorState, count: number): EditorState {
  let { text } = editor
  let cursor = editor.cursor
  for (let k = 0; k < Math.max(1, count - 1); k++) {
    const end = lineEnd(text, cursor)
    if (end >= text.length) break
    let next = end + 1
    while (text[next] === ' ' || text[next] === '\t') next++
    const nextEmpty = next >= text.length || text[next] === '\n'
    const space = nextEmpty || text[next] === ')' || end === lineStart(text, end) ? '' : ' '
    text = text.slice(0, end) + space + text.slice(next)
    cursor = end
  }
  return { text, cursor: clampNormal(text, cursor) }
}

/**
 * `r<char>`: the `count` characters from the cursor become `char`; nothing when the line is too short. A chip
 * is one character: it is replaced whole, as Backspace deletes it whole (`u` brings it back).
 */
export function replaceChars(editor: EditorState, masked: string, char: string, count: number): EditorState {
  const { text, cursor } = editor
  const end = lineEnd(text, cursor)
  let to = cursor
  for (let k = 0; k < count; k++) {
    if (to >= end) return editor
    to = nextUnit(masked, to)
  }
  return { text: text.slice(0, cursor) + char.repeat(count) + text.slice(to), cursor: cursor + count - 1 }
}

/** `~`: toggles the case of `count` characters and moves past them (within the line); a chip stays as it is. */
export function toggleCase(editor: EditorState, masked: string, count: number): EditorState {
  const { text, cursor } = editor
  const lineStop = lineEnd(text, cursor)
  let end = cursor
  for (let k = 0; k < count && end < lineStop; k++) end = nextUnit(masked, end)
  if (end <= cursor) return editor
  const flip = (part: string) =>
    [...part].map((ch) => (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase())).join('')
  let toggled = ''
  for (let i = cursor; i < end; ) {
    const chip = chipAt(masked, i)
    let j = chip ? chip.to : i
    if (!chip) while (j < end && !chipAt(masked, j)) j++
    toggled += chip ? text.slice(i, j) : flip(text.slice(i, j))
    i = j
  }
  const next = text.slice(0, cursor) + toggled + text.slice(end)
  return { text: next, cursor: clampNormal(next, end) }
}

/** `o` and `O`: a new line below or above the cursor's, the cursor on it (in insert mode). */
export function openLine(editor: EditorState, below: boolean): EditorState {
  const { text, cursor } = editor
  if (below) {
    const end = lineEnd(text, cursor)
    return { text: `${text.slice(0, end)}\n${text.slice(end)}`, cursor: end + 1 }
  }
  const start = lineStart(text, cursor)
  return { text: `${text.slice(0, start)}\n${text.slice(start)}`, cursor: start }
}

/** Where `I`, `A`, `a` and `i` start typing (`a` on a chip: after it). */
export function insertPoint(editor: EditorState, masked: string, key: 'i' | 'a' | 'I' | 'A'): number {
  const { text, cursor } = editor
  if (key === 'i') return cursor
  if (key === 'A') return lineEnd(text, cursor)
  if (key === 'a') return Math.min(lineEnd(text, cursor), nextUnit(masked, cursor))
  const start = lineStart(text, cursor)
  let j = start
  while (text[j] === ' ' || text[j] === '\t') j++
  return j
}
