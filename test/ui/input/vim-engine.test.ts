import { describe, expect, it } from 'vitest'
import { insertionOf, parseCommand, VIM_ENGINE } from '../../../source/ui/panes/input/vim/vim-engine.js'
import { normal, parse, show, table, vim } from './vim-kit.js'

describe('motions', () => {
  table([
    ['hel|lo world', 'h', 'he|llo world'],
    ['hel|lo world', '2h', 'h|ello world'],
    ['hel|lo world', '9h', '|hello world'],
    ['hel|lo', 'l', 'hell|o'],
    ['hel|lo', '5l', 'hell|o'],
    ['|hello world again', 'w', 'hello |world again'],
    ['|hello world again', '2w', 'hello world |again'],
    ['|foo.bar baz', 'w', 'foo|.bar baz'],
    ['|foo.bar baz', 'W', 'foo.bar |baz'],
    ['hello world |again', 'b', 'hello |world again'],
    ['hello world |again', '2b', '|hello world again'],
    ['foo.bar |baz', 'B', '|foo.bar baz'],
    ['|hello world', 'e', 'hell|o world'],
    ['|hello world', '2e', 'hello worl|d'],
    ['|a.b c', 'E', 'a.|b c'],
    ['  hello wor|ld', '0', '|  hello world'],
    ['  hello wor|ld', '^', '  |hello world'],
    ['|hello world', '$', 'hello worl|d'],
    ['|one\ntwo', '2$', 'one\ntw|o'],
    ['ab|c\ndef\nghi', 'j', 'abc\nde|f\nghi'],
    ['abc\ndef\ngh|i', '2k', 'ab|c\ndef\nghi'],
    ['abcdef\nx\nab|cdef', 'k', 'abcdef\n|x\nabcdef'],
    ['one\ntwo\n  thr|ee', 'gg', '|one\ntwo\n  three'],
    ['|one\ntwo\n  three', 'G', 'one\ntwo\n  |three'],
    ['|one\ntwo\nthree', '2G', 'one\n|two\nthree'],
    ['|a,b,c,d', 'f,', 'a|,b,c,d'],
    ['|a,b,c,d', '2f,', 'a,b|,c,d'],
    ['|a,b,c,d', 't,', '|a,b,c,d'],
    ['|ab,c,d', 't,', 'a|b,c,d'],
    ['a,b,c,|d', 'F,', 'a,b,c|,d'],
    ['a,b,c,|d', 'T,', 'a,b,c,|d'],
    ['a,b,c|,d', 'T,', 'a,b,|c,d'],
    ['|a,b,c,d', 'f,;', 'a,b|,c,d'],
    ['|a,b,c,d', 'f,;;,', 'a,b|,c,d'],
    ['|ab,cd,ef', 't,;', 'ab,c|d,ef'],
    ['|abc', 'fz', '|abc'],
    ['|one\ntwo', 'fw', '|one\ntwo'],
  ])
})

describe('operators with motions and counts', () => {
  table([
    ['|one two three', 'dw', '|two three'],
    ['|one two three', 'd2w', '|three'],
    ['|one two three', '2dw', '|three'],
    ['|one two three four', '2d2w', '|'],
    ['one |two\nthree', 'dw', 'one| \nthree'],
    ['|one two', 'de', '| two'],
    ['one two |three', 'db', 'one |three'],
    ['one t|wo three', 'd$', 'one |t'],
    ['one t|wo three', 'D', 'one |t'],
    ['one t|wo three', 'd0', '|wo three'],
    ['  one t|wo', 'd^', '  |wo'],
    ['|a,b,c', 'df,', '|b,c'],
    ['|a,b,c', 'dt,', '|,b,c'],
    ['a,b,|c', 'dF,', 'a,b|c'],
    ['|one\ntwo\nthree', 'dj', '|three'],
    ['one\ntwo\nthr|ee', 'dk', '|one'],
    ['one\nt|wo\nthree', 'dG', '|one'],
    ['one\nt|wo\nthree', 'dgg', '|three'],
    ['|one two three', 'cwxyz<esc>', 'xy|z two three'],
    ['|one two three', 'c2wxyz<esc>', 'xy|z three'],
    ['one |  two', 'cwX<esc>', 'one |Xtwo'],
    // On a word's last character `cw` changes that character alone (`ce` would go on to the next word).
    ['|a b', 'cwX<esc>', '|X b'],
    ['on|e two', 'cwX<esc>', 'on|X two'],
    ['|a b c', 'c2wX<esc>', '|X c'],
    ['one t|wo three', 'Cend<esc>', 'one ten|d'],
    ['one t|wo three', 'c$end<esc>', 'one ten|d'],
    ['|one two', 'yw$p', 'one twoone| '],
    ['one |two three', 'ye0P', 'tw|oone two three'],
    ['one tw|o', 'yb', 'one |two'],
  ])
})

describe('text objects', () => {
  table([
    ['one tw|o three', 'diw', 'one | three'],
    ['one tw|o three', 'daw', 'one |three'],
    ['one two thr|ee', 'daw', 'one tw|o'],
    ['one tw|o three', 'ciwX<esc>', 'one |X three'],
    ['one tw|o three four', 'd2aw', 'one |four'],
    ['one tw|o three four', 'd3iw', 'one | four'],
    ['say "he|llo there" now', 'di"', 'say "|" now'],
    ['say "he|llo there" now', 'da"', 'say |now'],
    ['say "he|llo"', 'ci"bye<esc>', 'say "by|e"'],
    ['|say "hello"', 'di"', 'say "|"'],
    ["it 'i|s' ok", "di'", "it '|' ok"],
    ['f(a, |b) + 1', 'di(', 'f(|) + 1'],
    ['f(a, |b) + 1', 'da(', 'f| + 1'],
    ['f(a, |b) + 1', 'dib', 'f(|) + 1'],
    ['f(a, g(|x)) + 1', 'di(', 'f(a, g(|)) + 1'],
    ['f(a, g(x)|) + 1', 'di)', 'f(|) + 1'],
    ['f|(a, b)', 'ci(x<esc>', 'f(|x)'],
    ['{\n  a: |1\n}', 'di{', '{|}'],
    ['arr[|1, 2]', 'ya[$p', 'arr[1, 2][1, 2|]'],
    ['no par|ens', 'di(', 'no par|ens'],
    ['no qu|otes', 'di"', 'no qu|otes'],
  ])
})

describe('line commands', () => {
  table([
    ['one\nt|wo\nthree', 'dd', 'one\n|three'],
    ['one\ntwo\nthr|ee', 'dd', 'one\n|two'],
    ['|one\ntwo\nthree', '2dd', '|three'],
    ['|one\ntwo\nthree', 'd2d', '|three'],
    ['on|ly', 'dd', '|'],
    ['one\n  t|wo\nthree', 'ccnew<esc>', 'one\nne|w\nthree'],
    ['one\nt|wo\nthree', 'Snew<esc>', 'one\nne|w\nthree'],
    ['o|ne\ntwo', 'yyp', 'one\n|one\ntwo'],
    ['o|ne\ntwo', 'yyP', '|one\none\ntwo'],
    ['o|ne\ntwo', 'Yjp', 'one\ntwo\n|one'],
    ['o|ne\ntwo', '2yyGp', 'one\ntwo\n|one\ntwo'],
    ['o|ne\ntwo', 'dd3p', 'two\n|one\none\none'],
    ['o|ne\ntwo', 'ddp', 'two\n|one'],
  ])
})

describe('simple commands', () => {
  table([
    ['a|bc', 'x', 'a|c'],
    ['a|bcd', '2x', 'a|d'],
    ['ab|c', 'x', 'a|b'],
    ['a|bc', 'X', '|bc'],
    ['abc|d', '2X', 'a|d'],
    ['a|bc', 'sX<esc>', 'a|Xc'],
    ['a|bcd', '2sX<esc>', 'a|Xd'],
    ['a|bc', 'rX', 'a|Xc'],
    ['a|bcd', '3rX', 'aXX|X'],
    ['a|b', '3rX', 'a|b'],
    ['a|bc', 'xp', 'ac|b'],
    ['a|bc', 'xP', 'a|bc'],
    ['ab|c', 'x2P', 'ac|cb'],
    ['one\n  |two\nthree', 'kJ', 'one| two\nthree'],
    ['|one\ntwo\nthree', '3J', 'one two| three'],
    ['|one\n\ntwo', 'J', 'on|e\ntwo'],
    ['|abc', '~', 'A|bc'],
    ['|abC', '3~', 'AB|c'],
    ['a|bc', 'iX<esc>', 'a|Xbc'],
    ['a|bc', 'aX<esc>', 'ab|Xc'],
    ['  a|bc', 'IX<esc>', '  |Xabc'],
    ['a|bc', 'AX<esc>', 'abc|X'],
    ['a|bc', '3iab<esc>', 'aababa|bbc'],
    ['one\n|two', 'onew<esc>', 'one\ntwo\nne|w'],
    ['one\n|two', 'Onew<esc>', 'one\nne|w\ntwo'],
    ['a|bc', 'iXY<bs><esc>', 'a|Xbc'],
    ['a|bc', 'i<bs><bs>Z<esc>', '|Zbc'],
    ['a|bc', 'a', 'ab|c', 'insert'],
  ])
})

describe('undo and redo', () => {
  table([
    ['a|bc', 'xu', 'a|bc'],
    ['a|bcd', 'xxuu', 'a|bcd'],
    ['a|bcd', 'xxuu<c-r>', 'a|cd'],
    ['a|bcd', 'xx2u', 'a|bcd'],
    ['a|bcd', 'xx2u2<c-r>', 'a|d'],
    ['|one two', 'cwxyz<esc>u', '|one two'],
    ['|one two', 'cwxyz<esc>u<c-r>', 'xy|z two'],
    ['|one', 'u', '|one'],
    ['a|bc', 'xuxu', 'a|bc'],
  ])
})

describe('. repeats the last change', () => {
  table([
    ['|a b c d', 'dw.', '|c d'],
    ['|a b c d e f', 'dw2.', '|d e f'],
    ['|a b c d e f g', 'd2w.', '|e f g'],
    ['|one two three', 'cwX<esc>w.', 'X |X three'],
    ['|one two three', 'cwX<esc>w.w.', 'X X |X'],
    ['|a\nb\nc\nd', 'dd.', '|c\nd'],
    ['|abcdef', 'x3.', '|ef'],
    ['|abc', 'AX<esc>.', 'abcX|X'],
    ['|one\ntwo', 'A;<esc>j.', 'one;\ntwo|;'],
    ['|ab', 'ix<esc>.', '|xxab'],
    ['|a b', 'rXw.', 'X |X'],
    ['|a,b,c', 'df,.', '|c'],
    ['|one two', 'ciwX<esc>w.', 'X |X'],
    ['|one two', 'cwX<esc>wyw.', 'X |X'],
    ['|one two', 'cwX<esc>wu.', '|X two'],
    ['|abc', '.', '|abc'],
    ['o|ne', 'onew<esc>.', 'one\nnew\nne|w'],
    ['|a b c', 'dwu.', '|b c'],
  ])
  it('. is one step for u', () => {
    const step = vim('|one two three', 'cwX<esc>w.u')
    expect(show(step.editor)).toBe('X |two three')
  })
})

describe('pending keys', () => {
  it('waits for the rest of a command and drops it at Esc', () => {
    let step = vim('|one two', '2d')
    expect(step.vim.pending).toEqual(['2', 'd'])
    expect(step.editor.text).toBe('one two')
    step = VIM_ENGINE.key(step.vim, step.editor, '<esc>')
    expect(step.vim.pending).toEqual([])
    step = VIM_ENGINE.key(step.vim, step.editor, 'w')
    expect(show(step.editor)).toBe('one |two')
  })

  it.each([
    [['d', 'z'], null],
    [['d'], 'more'],
    [['g'], 'more'],
    [['g', 'x'], null],
    [['f'], 'more'],
    [['d', 'i'], 'more'],
    [['d', 'i', 'q'], null],
    [['r', '<esc>'], null],
    [['q'], null],
    [['0'], { keys: ['0'] }],
    [['1', '0', 'l'], { keys: ['l'] }],
    [['3', 'd', '2', 'w'], { keys: ['d', 'w'], command: { count: 6 } }],
  ] as Array<[string[], null | 'more' | object]>)('%j → %j', (keys, expected) => {
    const parsed = parseCommand(keys)
    if (expected === null || typeof expected === 'string') expect(parsed).toBe(expected)
    else expect(parsed).toMatchObject(expected)
  })

  it('an unknown key does nothing and leaves no command half-typed', () => {
    const step = vim('a|bc', 'qx')
    expect(show(step.editor)).toBe('a|c')
  })
})

describe('at the edges', () => {
  it('k on the first line and j on the last ask the prompt for its history', () => {
    expect(vim('a|bc\ndef', 'k').pass).toBe('history-prev')
    expect(vim('abc\nd|ef', 'j').pass).toBe('history-next')
    expect(vim('a|bc\ndef', 'j').pass).toBeUndefined()
    expect(vim('a|bc\ndef', 'dk').pass).toBeUndefined()
  })

  it('Esc steps back onto the last character typed, never before the line', () => {
    expect(show(vim('|', 'iab<esc>').editor)).toBe('a|b')
    expect(show(vim('a\n|', 'i<esc>').editor)).toBe('a\n|')
    expect(vim('|', 'i<esc>').vim.leftInsert).toBe(true)
    expect(vim('|', 'i<esc>x').vim.leftInsert).toBe(false)
  })

  it('edits on an empty prompt do nothing', () => {
    for (const keys of ['x', 'X', 'dd', 'dw', 'D', 'p', 'J', '~', 'u', 'rx', 'diw', 'di(']) {
      expect(show(vim('|', keys).editor), keys).toBe('|')
    }
  })

  it('the register is kept across a submit, the undo list is not', () => {
    const step = vim('|one two', 'dwu')
    const after = VIM_ENGINE.fresh(step.vim, 'insert')
    expect(after.mode).toBe('insert')
    expect(after.register).toEqual({ text: 'one ', linewise: false })
    expect(after.undo).toEqual([])
    expect(after.lastChange).toEqual(step.vim.lastChange)
    expect(VIM_ENGINE.fresh(step.vim, 'normal')).toMatchObject({ mode: 'normal', inserting: null })
  })

  it('an edit made by other means is one undo step', () => {
    const before = parse('a|b')
    const after = parse('aXYZ|b')
    const noted = VIM_ENGINE.noteEdit(normal(before), before, after)
    expect(show(noted.editor)).toBe('aXYZ|b')
    expect(show(VIM_ENGINE.key(noted.vim, noted.editor, 'u').editor)).toBe('a|b')
  })

  it('noteEdit keeps the cursor on a character in normal mode', () => {
    const noted = VIM_ENGINE.noteEdit(normal(parse('|')), parse('|'), parse('abc|'))
    expect(show(noted.editor)).toBe('ab|c')
  })
})

describe('insertionOf', () => {
  it.each([
    ['ab|c', 'abXY|c', { text: 'XY', back: 0, forward: 0 }],
    ['ab|c', 'a|c', { text: '', back: 1, forward: 0 }],
    ['ab|cd', 'abZ|', { text: 'Z', back: 0, forward: 2 }],
    ['aa|a', 'aaaa|a', { text: 'aa', back: 0, forward: 0 }],
  ])('%j → %j is %j', (start, now, expected) => {
    expect(insertionOf(parse(start), parse(now))).toEqual(expected)
  })
})
