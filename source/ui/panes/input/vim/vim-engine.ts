/**
 * Vim mode's normal mode as a pure function: (vim state, editor, key) → (vim state, editor). A command is
 * read key by key (`2`, `d`, `3`, `w`) and runs once complete; a change is recorded for `.` (with what was
 * typed in the insert it opened) and undone with `u`. Loaded with `import()` only when vim mode is on.
 * Paste and image chips are one unit (`vim-chips.ts`): motions read the text with its chips masked, the
 * cursor never rests inside one, and every span an operator takes is widened to whole chips.
 */
import type { EditorState } from '../editor-state.js'
import {
  applyOperator,
  insertPoint,
  joinLines,
  linesSpan,
  type Operator,
  openLine,
  put,
  replaceChars,
  type Span,
  toggleCase,
} from './vim-edits.js'
import { changeWordEnd, clampNormal, lastChar, lineEnd, lineStart, lineStartAt } from './vim-motions.js'
import { chipAt, maskChips, nextUnit, prevUnit, snap, widen } from './vim-chips.js'
import { CHANGES, type Command, parseCommand } from './vim-parse.js'
import { operatorSpan, target } from './vim-targets.js'
import { textObject } from './vim-text-objects.js'
export { parseCommand } from './vim-parse.js'
import type { VimChange, VimEngine, VimInsertion, VimKey, VimState, VimStep } from './vim-types.js'

const MAX_UNDO = 200

function initial(editor: EditorState = { text: '', cursor: 0 }): VimState {
  return {
    mode: 'insert',
    pending: [],
    register: { text: '', linewise: false },
    undo: [],
    redo: [],
    lastChange: null,
    inserting: { start: editor, before: editor, change: null, count: 1 },
    lastFind: null,
    leftInsert: false,
  }
}

function pushUndo(vim: VimState, before: EditorState): VimState {
  const undo = [...vim.undo, before]
  return { ...vim, undo: undo.length > MAX_UNDO ? undo.slice(-MAX_UNDO) : undo, redo: [] }
}

function key(vim: VimState, editor: EditorState, k: VimKey): VimStep {
  return run({ ...vim, leftInsert: false }, editor, k, true)
}

function run(vim: VimState, editor: EditorState, k: VimKey, record: boolean): VimStep {
  if (k === '<esc>') return { vim: { ...vim, pending: [] }, editor }
  const keys = [...vim.pending, k]
  const parsed = parseCommand(keys)
  if (parsed === 'more') return { vim: { ...vim, pending: keys }, editor }
  const idle = { ...vim, pending: [] }
  if (parsed === null) return { vim: idle, editor }
  const step = execute(idle, editor, parsed.command, parsed.keys, record)
  return { ...step, editor: step.vim.mode === 'normal' ? clamp(step.editor) : step.editor }
}

/**
 * Normal mode's cursor: on a character, and on a chip's first one (the chip's place). `forward`: it came
 * into the chip moving right (an arrow key), so it goes on past the chip rather than back to its start.
 */
function clamp(editor: EditorState, forward = false): EditorState {
  const { text } = editor
  const masked = maskChips(text)
  const chip = chipAt(masked, editor.cursor)
  const at = forward && chip && chip.from < editor.cursor ? chip.to : editor.cursor
  const cursor = snap(masked, clampNormal(text, at))
  return cursor === editor.cursor ? editor : { text, cursor }
}

function execute(
  vim: VimState,
  editor: EditorState,
  cmd: Command,
  keys: readonly string[],
  record: boolean,
): VimStep {
  const change: VimChange = { keys, count: cmd.count }
  const n = cmd.count ?? 1
  const { text, cursor } = editor
  switch (cmd.kind) {
    case 'motion': {
      // `cw` on a word is (nearly) `ce`: the blanks after it stay.
      if (cmd.op === 'c' && (cmd.motion === 'w' || cmd.motion === 'W') && !/\s/.test(text[cursor] ?? ' ')) {
        const to = changeWordEnd(maskChips(text), cursor, cmd.motion === 'W', n)
        const span = operatorSpan(editor, 'e', { to, inclusive: true, linewise: false })
        return operate(vim, editor, 'c', span, change, record)
      }
      const motion = cmd.motion
      if (!cmd.op && (motion === 'j' || motion === 'k')) {
        const top = lineStart(text, cursor) === 0
        const bottom = lineEnd(text, cursor) >= text.length
        if (motion === 'k' && top) return { vim, editor, pass: 'history-prev' }
        if (motion === 'j' && bottom) return { vim, editor, pass: 'history-next' }
      }
      const found = target(vim, editor, motion, cmd.count, cmd.arg)
      const next = { ...vim, lastFind: found.lastFind }
      if (!found.to) return { vim: next, editor }
      if (!cmd.op) {
        const to =
          motion === 'l' || motion === ' ' ? Math.min(found.to.to, lastChar(text, cursor)) : found.to.to
        return { vim: next, editor: { text, cursor: to } }
      }
      return operate(next, editor, cmd.op, operatorSpan(editor, motion, found.to), change, record)
    }
    case 'object': {
      const masked = maskChips(text)
      const span = textObject(masked, cursor, cmd.scope, cmd.object, n)
      if (!span) return { vim, editor }
      return operate(vim, editor, cmd.op, widen(masked, { ...span, linewise: false }), change, record)
    }
    case 'line':
      return operate(
        vim,
        editor,
        cmd.op,
        linesSpan(text, cursor, lineStartAt(text, cursor, n - 1)),
        change,
        record,
      )
    case 'simple':
      return simple(vim, editor, cmd, change, record)
  }
}

function operate(
  vim: VimState,
  editor: EditorState,
  op: Operator,
  span: Span,
  change: VimChange,
  record: boolean,
): VimStep {
  const result = applyOperator(op, editor, span)
  const register = result.register ?? vim.register
  if (op === 'y') return { vim: { ...vim, register }, editor: result.editor }
  if (result.insert)
    return {
      vim: startInsert({ ...vim, register }, editor, result.editor, record ? change : null, 1),
      editor: result.editor,
    }
  const next = { ...pushUndo(vim, editor), register, ...(record ? { lastChange: change } : {}) }
  return { vim: next, editor: result.editor }
}

function startInsert(
  vim: VimState,
  before: EditorState,
  start: EditorState,
  change: VimChange | null,
  count: number,
): VimState {
  return { ...vim, mode: 'insert', inserting: { start, before, change, count } }
}

function simple(
  vim: VimState,
  editor: EditorState,
  cmd: Extract<Command, { kind: 'simple' }>,
  change: VimChange,
  record: boolean,
): VimStep {
  const n = cmd.count ?? 1
  const { text, cursor } = editor
  const changed = (next: EditorState): VimStep => {
    if (next === editor) return { vim, editor }
    return {
      vim: { ...pushUndo(vim, editor), ...(record && CHANGES.has(cmd.key) ? { lastChange: change } : {}) },
      editor: next,
    }
  }
  const charSpan = (from: number, to: number): Span => ({ from, to, linewise: false })
  const end = lineEnd(text, cursor)
  const masked = maskChips(text)
  // `n` characters on from the cursor (back from it), a chip counting as one.
  const ahead = (n: number) => {
    let to = cursor
    for (let k = 0; k < n && to < end; k++) to = nextUnit(masked, to)
    return Math.min(end, to)
  }
  const behind = (n: number) => {
    const start = lineStart(text, cursor)
    let from = cursor
    for (let k = 0; k < n && from > start; k++) from = prevUnit(masked, from)
    return Math.max(start, from)
  }
  switch (cmd.key) {
    case 'i':
    case 'a':
    case 'I':
    case 'A': {
      const at = { text, cursor: insertPoint(editor, masked, cmd.key) }
      return { vim: startInsert(vim, editor, at, record ? change : null, n), editor: at }
    }
    case 'o':
    case 'O': {
      const at = openLine(editor, cmd.key === 'o')
      return { vim: startInsert(vim, editor, at, record ? change : null, 1), editor: at }
    }
    case 'x':
      return cursor >= end
        ? { vim, editor }
        : operate(vim, editor, 'd', charSpan(cursor, ahead(n)), change, record)
    case 'X': {
      const from = behind(n)
      return from === cursor
        ? { vim, editor }
        : operate(vim, editor, 'd', charSpan(from, cursor), change, record)
    }
    case 's':
      return operate(vim, editor, 'c', charSpan(cursor, ahead(n)), change, record)
    case 'S':
      return operate(
        vim,
        editor,
        'c',
        linesSpan(text, cursor, lineStartAt(text, cursor, n - 1)),
        change,
        record,
      )
    case 'D':
    case 'C': {
      const last = lineEnd(text, lineStartAt(text, cursor, n - 1))
      return operate(vim, editor, cmd.key === 'D' ? 'd' : 'c', charSpan(cursor, last), change, record)
    }
    case 'Y':
      return operate(
        vim,
        editor,
        'y',
        linesSpan(text, cursor, lineStartAt(text, cursor, n - 1)),
        change,
        record,
      )
    case 'p':
    case 'P':
      return changed(put(editor, masked, vim.register, cmd.key === 'p', n))
    case 'J':
      return changed(joinLines(editor, Math.max(2, n)))
    case '~':
      return changed(toggleCase(editor, masked, n))
    case 'r':
      return changed(replaceChars(editor, masked, cmd.arg ?? '', n))
    case 'u':
    case '<c-r>': {
      const from = cmd.key === 'u' ? vim.undo : vim.redo
      const to = cmd.key === 'u' ? vim.redo : vim.undo
      const back = from.slice(-n)
      const restored = back[0]
      if (!restored) return { vim, editor }
      // Each step back (or forward) keeps the state it leaves, for the other direction.
      const states = [...back.slice(1), editor].reverse()
      const left = from.slice(0, -back.length)
      const other = [...to, ...states]
      const next = cmd.key === 'u' ? { ...vim, undo: left, redo: other } : { ...vim, undo: other, redo: left }
      return { vim: next, editor: restored }
    }
    case '.':
      return repeat(vim, editor, cmd.count)
    default:
      return { vim, editor }
  }
}

/** `.`: the last change again (a count replaces its count), with the text its insert typed. */
function repeat(vim: VimState, editor: EditorState, count: number | null): VimStep {
  const last = vim.lastChange
  if (!last) return { vim, editor }
  const times = count ?? last.count
  const keys = [...(times === null ? [] : String(times).split('')), ...last.keys]
  let step: VimStep = { vim, editor }
  for (const k of keys) step = run(step.vim, step.editor, k, false)
  if (step.vim.mode === 'insert') {
    const typed = last.insertion ? insertText(step.editor, last.insertion) : step.editor
    step = finishInsert(step.vim, typed, false)
  }
  return {
    vim: { ...step.vim, lastChange: { ...last, count: times }, leftInsert: false },
    editor: step.editor,
  }
}

function insertText(editor: EditorState, insertion: VimInsertion): EditorState {
  const { text, cursor } = editor
  const from = Math.max(0, cursor - insertion.back)
  const to = Math.min(text.length, cursor + insertion.forward)
  return { text: text.slice(0, from) + insertion.text + text.slice(to), cursor: from + insertion.text.length }
}

/** What the insert changed: the text between the common start and end of before and after. */
export function insertionOf(start: EditorState, now: EditorState): VimInsertion {
  const a = start.text
  const b = now.text
  let p = 0
  while (p < start.cursor && p < b.length && a[p] === b[p]) p++
  let s = 0
  const maxSuffix = Math.min(a.length - start.cursor, b.length - p)
  while (s < maxSuffix && a[a.length - 1 - s] === b[b.length - 1 - s]) s++
  return { text: b.slice(p, b.length - s), back: start.cursor - p, forward: a.length - s - start.cursor }
}

function finishInsert(vim: VimState, editor: EditorState, record: boolean): VimStep {
  const ins = vim.inserting
  let next = editor
  let state: VimState = { ...vim, mode: 'normal', inserting: null, pending: [] }
  if (ins) {
    const insertion = insertionOf(ins.start, editor)
    if (ins.count > 1 && insertion.text)
      next = insertText(next, { text: insertion.text.repeat(ins.count - 1), back: 0, forward: 0 })
    const typed = insertion.text !== '' || insertion.back > 0 || insertion.forward > 0
    if (record && (ins.change || typed))
      state = { ...state, lastChange: { ...(ins.change ?? { keys: ['i'], count: null }), insertion } }
    if (ins.before.text !== next.text) state = pushUndo(state, ins.before)
  }
  // Leaving insert mode steps back onto the last character typed.
  const cursor = Math.max(lineStart(next.text, next.cursor), next.cursor - 1)
  return { vim: state, editor: clamp({ text: next.text, cursor }) }
}

function leaveInsert(vim: VimState, editor: EditorState): VimStep {
  const step = finishInsert(vim, editor, true)
  return { ...step, vim: { ...step.vim, leftInsert: true } }
}

function noteEdit(vim: VimState, before: EditorState, after: EditorState): VimStep {
  const next = before.text === after.text ? vim : pushUndo(vim, before)
  const forward = after.text === before.text && after.cursor > before.cursor
  return {
    vim: { ...next, leftInsert: false },
    editor: vim.mode === 'normal' ? clamp(after, forward) : after,
  }
}

function fresh(vim: VimState, mode: VimState['mode']): VimState {
  const next = { ...initial(), register: vim.register, lastChange: vim.lastChange, lastFind: vim.lastFind }
  return mode === 'insert' ? next : { ...next, mode, inserting: null }
}

export const VIM_ENGINE: VimEngine = { initial, key, leaveInsert, noteEdit, fresh }
