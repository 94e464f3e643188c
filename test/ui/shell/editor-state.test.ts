import { describe, expect, it } from 'vitest'
import { layoutEditor, visibleWindow } from '../../../source/ui/panes/input/editor-layout.js'
import {
  cursorPosition,
  EMPTY_EDITOR,
  type EditorOp,
  type EditorState,
  editorReducer,
  isOnFirstLine,
  isOnLastLine,
} from '../../../source/ui/panes/input/editor-state.js'
import {
  EMPTY_HISTORY,
  historyNext,
  historyPrev,
  pushHistory,
  searchHistory,
} from '../../../source/ui/panes/input/history.js'

const run = (state: EditorState, ...ops: EditorOp[]) => ops.reduce(editorReducer, state)
const at = (text: string, cursor = text.length): EditorState => ({ text, cursor })

describe('editorReducer', () => {
  it('inserts at the cursor and moves it', () => {
    expect(
      run(EMPTY_EDITOR, { type: 'insert', text: 'helo' }, { type: 'left' }, { type: 'insert', text: 'l' }),
    ).toEqual(at('hello', 4))
  })

  it('normalises pasted CR/CRLF newlines', () => {
    expect(run(EMPTY_EDITOR, { type: 'insert', text: 'a\r\nb\rc' }).text).toBe('a\nb\nc')
  })

  it('inserts newlines and reports line/column', () => {
    const s = run(at('ab'), { type: 'newline' }, { type: 'insert', text: 'cd' })
    expect(s).toEqual(at('ab\ncd'))
    expect(cursorPosition(s)).toEqual({ line: 1, column: 2, lineCount: 2 })
  })

  it('backspace and delete', () => {
    expect(run(at('abc', 2), { type: 'backspace' })).toEqual(at('ac', 1))
    expect(run(at('abc', 1), { type: 'delete' })).toEqual(at('ac', 1))
    expect(run(at('abc', 0), { type: 'backspace' })).toEqual(at('abc', 0))
    expect(run(at('abc'), { type: 'delete' })).toEqual(at('abc'))
  })

  it('never splits a surrogate pair', () => {
    const s = at('a😀b', 3)
    expect(run(s, { type: 'left' }).cursor).toBe(1)
    expect(run(s, { type: 'backspace' })).toEqual(at('ab', 1))
    expect(run(at('a😀b', 1), { type: 'right' }).cursor).toBe(3)
  })

  it('deletes chips as one unit', () => {
    expect(run(at('see [Pasted text #1 +12 lines]'), { type: 'backspace' })).toEqual(at('see '))
    expect(run(at('[Image #2] x', 0), { type: 'delete' })).toEqual(at(' x', 0))
  })

  describe('the cursor steps over a chip, so typing never lands inside one', () => {
    const chip = '[Pasted text #1 +12 lines]'
    const text = `a ${chip} b`
    const before = 2
    const after = 2 + chip.length
    it.each([
      ['←', at(text, after), { type: 'left' }, before],
      ['→', at(text, before), { type: 'right' }, after],
      ['Ctrl+←', at(text, after), { type: 'wordLeft' }, before],
      ['Ctrl+→', at(text, before), { type: 'wordRight' }, after],
      ['Ctrl+← from past it', at(text, text.length), { type: 'wordLeft' }, text.length - 1],
      [
        '↑ onto it',
        at(
          `${text}
xxxxxxxxx`,
          text.length + 1 + 8,
        ),
        { type: 'up' },
        before,
      ],
      [
        '↓ onto it',
        at(
          `xxxxxxxxx
${text}`,
          8,
        ),
        { type: 'down' },
        10 + before,
      ],
    ] as const)('%s', (_key, state, op, cursor) => {
      expect(run(state, op as EditorOp).cursor).toBe(cursor)
    })

    it('Ctrl+W after a chip deletes the whole chip, not its last word', () => {
      expect(run(at(`see ${chip}`), { type: 'deleteWord' })).toEqual(at('see '))
    })

    it('typed after ← lands before the chip, which stays whole', () => {
      expect(run(at(text, after), { type: 'left' }, { type: 'insert', text: 'Z' }).text).toBe(`a Z${chip} b`)
    })
  })

  it('moves by words and kills words', () => {
    const s = at('foo bar-baz qux')
    expect(run(s, { type: 'wordLeft' }).cursor).toBe(12)
    expect(run(s, { type: 'wordLeft' }, { type: 'wordLeft' }).cursor).toBe(8)
    expect(run(at('foo bar', 0), { type: 'wordRight' }).cursor).toBe(3)
    expect(run(s, { type: 'deleteWord' })).toEqual(at('foo bar-baz '))
  })

  it('line start/end and kill to line start/end', () => {
    const s = at('one\ntwo three', 8)
    expect(run(s, { type: 'lineStart' }).cursor).toBe(4)
    expect(run(s, { type: 'lineEnd' }).cursor).toBe(13)
    expect(run(s, { type: 'killLineLeft' })).toEqual(at('one\nthree', 4))
    expect(run(s, { type: 'killLineRight' })).toEqual(at('one\ntwo ', 8))
  })

  it('moves up and down keeping the column where possible', () => {
    const s = at('abcdef\nxy\nlonger line', 5)
    const down = run(s, { type: 'down' })
    expect(down.cursor).toBe(9) // end of "xy"
    expect(run(down, { type: 'down' }).cursor).toBe(12)
    expect(run(at('ab\ncd', 4), { type: 'up' }).cursor).toBe(1)
    expect(run(at('ab\ncd', 1), { type: 'up' }).cursor).toBe(0)
    expect(run(at('ab\ncd', 4), { type: 'down' }).cursor).toBe(5)
  })

  it('knows the first and last line', () => {
    expect(isOnFirstLine(at('a\nb', 1))).toBe(true)
    expect(isOnFirstLine(at('a\nb', 2))).toBe(false)
    expect(isOnLastLine(at('a\nb', 2))).toBe(true)
    expect(isOnLastLine(at('a\nb', 1))).toBe(false)
  })

  it('set replaces text and clamps the cursor', () => {
    expect(run(at('x'), { type: 'set', text: 'hello', cursor: 99 })).toEqual(at('hello'))
  })
})

describe('history', () => {
  it('browses older and newer entries and restores the draft', () => {
    let h = pushHistory(pushHistory(EMPTY_HISTORY, 'first'), 'second')
    const p1 = historyPrev(h, 'draft')
    expect(p1?.text).toBe('second')
    h = p1!.history
    const p2 = historyPrev(h, 'second')
    expect(p2?.text).toBe('first')
    expect(historyPrev(p2!.history, 'first')).toBeNull()
    const n1 = historyNext(p2!.history)
    expect(n1?.text).toBe('second')
    const n2 = historyNext(n1!.history)
    expect(n2?.text).toBe('draft')
    expect(historyNext(n2!.history)).toBeNull()
  })

  it('skips blanks and consecutive duplicates', () => {
    const h = pushHistory(pushHistory(pushHistory(EMPTY_HISTORY, 'a'), 'a'), '   ')
    expect(h.entries).toEqual(['a'])
  })

  it('reverse search finds older matches case-insensitively', () => {
    const entries = ['npm test', 'git status', 'npm run Build']
    expect(searchHistory(entries, 'npm', entries.length)).toBe(2)
    expect(searchHistory(entries, 'npm', 2)).toBe(0)
    expect(searchHistory(entries, 'build', 3)).toBe(2)
    expect(searchHistory(entries, 'nothing', 3)).toBe(-1)
  })
})

describe('layoutEditor', () => {
  it('wraps by display width and places the caret', () => {
    const layout = layoutEditor('abcdefgh\nxy', 10, 5)
    expect(layout.rows).toEqual(['abcd', 'efgh', 'xy'])
    expect(layout.caretRow).toBe(2)
    expect(layout.caretIndex).toBe(1)
  })

  it('counts wide characters as two cells', () => {
    expect(layoutEditor('日本語です', 0, 5).rows).toEqual(['日本', '語で', 'す'])
  })

  it('keeps the caret row visible in a window', () => {
    const layout = layoutEditor('1\n2\n3\n4\n5', 9, 10)
    expect(visibleWindow(layout, 2)).toEqual({ start: 3, end: 5 })
    expect(visibleWindow(layoutEditor('1\n2\n3', 0, 10), 2)).toEqual({ start: 0, end: 2 })
  })
})
