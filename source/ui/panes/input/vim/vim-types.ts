/**
 * The shapes of vim mode for the prompt (docs/tui.md#vim-mode). Types only: the prompt model imports them
 * statically, while the engine that implements them (`vim-engine.ts`) is loaded with `import()` once vim
 * mode is on, so a session without it never loads it.
 */
import type { EditorState } from '../editor-state.js'

export type VimMode = 'insert' | 'normal'

/** The unnamed register: what `d`, `c`, `y`, `x` took last, and `p`/`P` put. */
export interface VimRegister {
  text: string
  /** Whole lines (`dd`, `yy`, `dj`): put on a line of their own, below or above. */
  linewise: boolean
}

/** What was inserted between entering insert mode and Esc, replayed by `.`. */
export interface VimInsertion {
  text: string
  /** Characters deleted before where the insert started (Backspace past it). */
  back: number
  /** Characters deleted after it (Delete). */
  forward: number
}

/** The last change, for `.`: its keys without the leading count, that count, and what was typed after it. */
export interface VimChange {
  keys: readonly string[]
  count: number | null
  insertion?: VimInsertion
}

export interface VimState {
  mode: VimMode
  /** Keys of the normal-mode command typed so far (`2`, `d`, `i`…), empty between commands. */
  pending: readonly string[]
  register: VimRegister
  /** Editor states before each change, newest last (`u`), and the ones undone (`Ctrl+R`). */
  undo: readonly EditorState[]
  redo: readonly EditorState[]
  lastChange: VimChange | null
  /**
   * The insert being typed: where typing started, the text before the command that opened it (for `u`),
   * that command (`cw`, `o`…; null for one `.` does not record) and its count (`3ix`).
   */
  inserting: { start: EditorState; before: EditorState; change: VimChange | null; count: number } | null
  /** The last `f`/`F`/`t`/`T`, for `;` and `,`. */
  lastFind: { kind: 'f' | 'F' | 't' | 'T'; char: string } | null
  /**
   * The last key was the Esc that left insert mode: the Esc after it is not the second press of the
   * prompt's Esc Esc (which clears it), since the user only meant to be in normal mode.
   */
  leftInsert: boolean
}

/**
 * One key as vim sees it: a typed character, or `<esc>` and `<c-r>`. Other keys (arrows, Tab, Ctrl+…)
 * keep the prompt's meaning in both modes and never reach the engine.
 */
export type VimKey = string

/** Besides its own edits, what a normal-mode key asks of the prompt. */
export type VimPass =
  /** `k` on the first line, `j` on the last: the previous or next prompt of the history. */
  'history-prev' | 'history-next'

export interface VimStep {
  vim: VimState
  editor: EditorState
  pass?: VimPass
}

export interface VimEngine {
  /** Insert mode, typing from `editor` on. */
  initial(editor?: EditorState): VimState
  /** A key in normal mode. */
  key(vim: VimState, editor: EditorState, key: VimKey): VimStep
  /** Esc in insert mode: normal mode, the insert recorded for `.` and repeated for a count (`3ix`). */
  leaveInsert(vim: VimState, editor: EditorState): VimStep
  /** The prompt changed the text by other means in normal mode (a paste, Backspace): `u` takes it back. */
  noteEdit(vim: VimState, before: EditorState, after: EditorState): VimStep
  /**
   * A new, empty prompt: after a message was sent (insert mode, for the next one) or the prompt was
   * cleared (the mode it was in). The register, `.` and the last `f` are kept; undo starts afresh.
   */
  fresh(vim: VimState, mode: VimMode): VimState
}
