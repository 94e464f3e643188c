/** Helpers for the vim engine's table tests: a text with its cursor marked as `|`, keys typed, the result. */
import { expect, it } from 'vitest'
import { type EditorState, editorReducer } from '../../../source/ui/panes/input/editor-state.js'
import { VIM_ENGINE } from '../../../source/ui/panes/input/vim/vim-engine.js'
import type { VimState, VimStep } from '../../../source/ui/panes/input/vim/vim-types.js'

/** `foo |bar` → the editor with the cursor at the bar. */
export function parse(marked: string): EditorState {
  const cursor = marked.indexOf('|')
  if (cursor === -1) throw new Error(`no cursor in ${marked}`)
  return { text: marked.slice(0, cursor) + marked.slice(cursor + 1), cursor }
}

export function show(editor: EditorState): string {
  return `${editor.text.slice(0, editor.cursor)}|${editor.text.slice(editor.cursor)}`
}

/** `<esc>`, `<c-r>`, `<bs>` and single characters. */
export function keysOf(keys: string): string[] {
  return keys.match(/<[a-z-]+>|[\s\S]/g) ?? []
}

export function normal(editor: EditorState): VimState {
  return { ...VIM_ENGINE.initial(editor), mode: 'normal', inserting: null }
}

/**
 * Types `keys` as the prompt would: in normal mode each goes to the engine; in insert mode characters are
 * inserted, `<bs>` deletes and `<esc>` leaves insert mode (the prompt model's part).
 */
export function type(start: VimStep, keys: string): VimStep {
  let step = start
  for (const k of keysOf(keys)) {
    if (step.vim.mode === 'normal') {
      step = VIM_ENGINE.key(step.vim, step.editor, k)
      continue
    }
    if (k === '<esc>') step = VIM_ENGINE.leaveInsert(step.vim, step.editor)
    else if (k === '<bs>') step = { ...step, editor: editorReducer(step.editor, { type: 'backspace' }) }
    else if (k === '<cr>') step = { ...step, editor: editorReducer(step.editor, { type: 'newline' }) }
    else step = { ...step, editor: editorReducer(step.editor, { type: 'insert', text: k }) }
  }
  return step
}

export function vim(marked: string, keys: string): VimStep {
  const editor = parse(marked)
  return type({ vim: normal(editor), editor }, keys)
}

/** [text with the cursor, keys typed in normal mode, the text after, the mode after] */
export type Case = [string, string, string, ('normal' | 'insert')?]

export function table(cases: Case[]) {
  it.each(cases)('%j + %j → %j', (marked, keys, expected, mode = 'normal') => {
    const step = vim(marked, keys)
    expect(show(step.editor)).toBe(expected)
    expect(step.vim.mode).toBe(mode)
    expect(step.vim.pending).toEqual([])
  })
}
