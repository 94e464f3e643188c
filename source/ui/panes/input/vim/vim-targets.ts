/**
 * Where a normal-mode motion goes (`;` and `,` included), and the span an operator takes for it, widened to
 * whole chips (`vim-chips.ts`). Pure.
 */
import type { EditorState } from '../editor-state.js'
import { linesSpan, type Span } from './vim-edits.js'
import { maskChips, widen } from './vim-chips.js'
import {
  type FindKind,
  findChar,
  firstNonBlank,
  lineStart,
  motionTarget,
  type Target,
} from './vim-motions.js'
import type { VimState } from './vim-types.js'

/** The motion's target, `;` and `,` included; the new last find with it. */
export function target(
  vim: VimState,
  editor: EditorState,
  motion: string,
  count: number | null,
  arg?: string,
): { to: Target | null; lastFind: VimState['lastFind'] } {
  const text = maskChips(editor.text)
  const { cursor } = editor
  if (motion === ';' || motion === ',') {
    const last = vim.lastFind
    if (!last) return { to: null, lastFind: null }
    const flip: Record<FindKind, FindKind> = { f: 'F', F: 'f', t: 'T', T: 't' }
    const kind = motion === ',' ? flip[last.kind] : last.kind
    const to = findChar(text, cursor, kind, last.char, count ?? 1, true)
    return {
      to: to === null ? null : { to, inclusive: kind === 'f' || kind === 't', linewise: false },
      lastFind: last,
    }
  }
  const lastFind: VimState['lastFind'] =
    arg !== undefined && isFind(motion) ? { kind: motion, char: arg } : vim.lastFind
  return { to: motionTarget(text, cursor, motion, count, arg), lastFind }
}

function isFind(motion: string): motion is FindKind {
  return motion === 'f' || motion === 'F' || motion === 't' || motion === 'T'
}

/** The span an operator takes for a motion, with vim's special cases for `cw` and `dw`. */
export function operatorSpan(editor: EditorState, motion: string, to: Target): Span {
  const { text, cursor } = editor
  if (to.linewise) return linesSpan(text, cursor, to.to)
  let end = to.to
  if ((motion === 'w' || motion === 'W') && lineStart(text, end) > lineStart(text, cursor)) {
    // The last word of a line: the operator stops at the line's end, not at the next line's first word.
    if (end <= firstNonBlank(text, end)) end = Math.max(cursor, lineStart(text, end) - 1)
  }
  const from = Math.min(cursor, end)
  const upTo = Math.max(cursor, end) + (to.inclusive && end >= cursor ? 1 : 0)
  return widen(maskChips(text), { from, to: Math.min(upTo, text.length), linewise: false })
}
