import { describe, expect, it } from 'vitest'
import { VIM_ENGINE } from '../../../source/ui/panes/input/vim/vim-engine.js'
import { parse, show, table, vim } from './vim-kit.js'

/** A paste chip and two image chips, as the prompt shows them (`chips.ts`). */
const P = '[Pasted text #1 +40 lines]'
const I = '[Image #1]'
const J = '[Image #2]'

describe('a chip is one character to the motions', () => {
  table([
    [`|a ${P} b`, 'll', `a |${P} b`],
    [`|a ${P} b`, 'lll', `a ${P}| b`],
    [`a ${P}| b`, 'h', `a |${P} b`],
    [`a ${P} |b`, '2h', `a |${P} b`],
    [`|a ${P} b`, '$', `a ${P} |b`],
    [`|a ${P}`, '$', `a |${P}`],
    [`a |${P}`, 'l', `a |${P}`],
    [`|a ${P} b`, 'w', `a |${P} b`],
    [`|a ${P} b`, '2w', `a ${P} |b`],
    [`|a ${P}.x`, '2w', `a ${P}|.x`],
    [`a ${P} |b`, 'b', `a |${P} b`],
    [`|a ${P} b`, 'e', `a |${P} b`],
    [`|a ${P} b`, 'ee', `a ${P} |b`],
    [`|a ${P}x b`, 'W', `a |${P}x b`],
    [`|a ${P}x b`, 'E', `a ${P}|x b`],
    [`|${I}${J}`, 'w', `${I}|${J}`],
    [`|${I}${J}`, 'l', `${I}|${J}`],
    // `f` never finds a character inside a chip: `#`, `[` and digits there are not the text's.
    [`|a ${P} #`, 'f#', `a ${P} |#`],
    [`|a ${I} [`, 'f[', `a ${I} |[`],
    [`|a ${I}z`, 'tz', `a |${I}z`],
    [`a ${I} |z`, 'F#', `a ${I} |z`],
    // A line motion that lands inside a chip stops at its start.
    [`abcde|fgh\nx ${P}`, 'j', `abcdefgh\nx |${P}`],
    [`x ${P}\nabcde|fgh`, 'k', `x |${P}\nabcdefgh`],
  ])
})

describe('an edit that touches a chip takes all of it', () => {
  table([
    [`a |${P} b`, 'x', `a | b`],
    [`a ${P}| b`, 'X', `a | b`],
    [`|ab ${P}`, '3x', `|${P}`],
    [`|ab ${P}`, '4x', `|`],
    [`a |${P} b`, 'dw', `a |b`],
    [`|a ${P} b`, 'dw', `|${P} b`],
    [`|a ${P} b`, 'd2w', `|b`],
    [`|x ${P} b`, 'de', `| b`],
    [`a ${P} |b`, 'db', `a |b`],
    [`a ${P}| b`, 'dh', `a | b`],
    [`|ab ${P}`, 'd4l', `|`],
    [`|ab ${P}`, 'd$', `|`],
    [`a ${I} |b`, 'd0', `|b`],
    [`|ab ${I}z`, 'dtz', `|z`],
    [`a |${P} b`, 'diw', `a | b`],
    [`a |${P} b`, 'daw', `a |b`],
    [`a |${P} b`, 'diW', `a | b`],
    [`(a |${P})`, 'di(', `(|)`],
    [`a |${P} b`, 'D', `a| `],
    [`a |${P} b`, 'cw', `a | b`, 'insert'],
    [`a |${P} b`, 'cwZ<esc>', `a |Z b`],
    // `ce` on a one-character word goes on to the next word's end, in vim too.
    [`a |${P} b`, 'cez<esc>', `a |z`],
    [`a |${P} b`, 'c2wZ<esc>', `a |Z`],
    [`a |${P} b`, 'sZ<esc>', `a |Z b`],
    [`a |${P} b`, 'C', `a |`, 'insert'],
  ])
})

describe('r, ~, p and a with a chip', () => {
  table([
    // `r` on a chip replaces it whole, as Backspace deletes it whole.
    [`a |${P} b`, 'rx', `a |x b`],
    [`|ab ${P}`, '4rx', `xxx|x`],
    [`|ab ${P}`, '5rx', `|ab ${P}`],
    // `~` steps over a chip and leaves its text as it is.
    [`|a${P} b`, '3~', `A${P} |b`],
    [`a${I}|b`, '~', `a${I}|B`],
    [`a |${I} b`, 'ylp', `a ${I}|${I} b`],
    [`a |${I} b`, 'xp', `a  |${I}b`],
    [`a |${I} b`, 'yiwP', `a |${I}${I} b`],
    [`a |${I} b`, 'aZ<esc>', `a ${I}|Z b`],
    [`a ${I}|b`, 'i<esc>', `a |${I}b`],
    [`|a ${I} b`, 'A<esc>', `a ${I} |b`],
  ])
})

describe('u and . with chips', () => {
  table([
    [`a |${P} b`, 'xu', `a |${P} b`],
    [`a |${P} b`, 'xu<c-r>', `a | b`],
    [`|${I} ${J} x`, 'dw.', `|x`],
    [`|${I} ${J} x`, 'dw.uu', `|${I} ${J} x`],
    [`|${I}${J}`, 'x.', `|`],
    [`a |${I} b ${J}`, 'cwZ<esc>ww.', `a Z b |Z`],
    [`a |${P} b`, 'rxu', `a |${P} b`],
  ])
})

describe('the cursor never rests inside a chip', () => {
  const chipAt = `a ${P} b`.indexOf(P)
  it('an arrow that moved it into a chip takes it on past it, or back to its start', () => {
    const at = parse(`a |${P} b`)
    const state = { ...VIM_ENGINE.initial(at), mode: 'normal' as const, inserting: null }
    const right = VIM_ENGINE.noteEdit(state, at, { ...at, cursor: chipAt + 1 })
    expect(show(right.editor)).toBe(`a ${P}| b`)
    const after = { ...at, cursor: chipAt + P.length }
    const left = VIM_ENGINE.noteEdit(state, after, { ...at, cursor: chipAt + P.length - 1 })
    expect(show(left.editor)).toBe(`a |${P} b`)
  })

  it('leaving insert mode after a chip puts the cursor on it', () => {
    expect(show(vim(`a ${P}|`, 'A<esc>').editor)).toBe(`a |${P}`)
  })
})

/**
 * Every command at every cursor position: the text afterwards holds each chip whole or not at all. A chip
 * whose text is edited would be sent as that broken text, and its paste lost.
 */
describe('no command leaves half a chip', () => {
  const text = `ab ${P} c${I}d\n${J} e`
  const chips = [P, I, J]
  const commands = [
    'x',
    'X',
    '3x',
    's<esc>',
    'dw',
    'de',
    'db',
    'dW',
    'dE',
    'dB',
    'd2l',
    'dh',
    'd$',
    'd0',
    'D',
    'C<esc>',
    'cw<esc>',
    'ce<esc>',
    'cb<esc>',
    'diw',
    'daw',
    'diW',
    'daW',
    'rZ',
    '2rZ',
    '~',
    '3~',
    'ylp',
    'yeP',
    'dj',
    'dtd',
    'dfd',
    'dTa',
    'dFa',
    'iZ<esc>',
    'aZ<esc>',
    'J',
    'lx',
    'hx',
    'wx',
    'ex',
    'bx',
    'jx',
    'kx',
    '$x',
    'dd',
    'x.',
    'dw.',
  ]
  // Cut pieces of a chip: what is left when part of it is edited away.
  const pieces = (chip: string) => [chip.slice(0, -1), chip.slice(1), chip.slice(0, 4), chip.slice(-4)]
  const whole = (out: string, chip: string) => {
    const left = chips.reduce((rest, each) => rest.split(each).join(''), out)
    return pieces(chip).every((piece) => !left.includes(piece))
  }
  for (const keys of commands)
    it(keys, () => {
      for (let cursor = 0; cursor < text.length; cursor++) {
        // The engine's own cursor is never inside a chip; start where it can be.
        if (
          chips.some((chip) => {
            const at = text.indexOf(chip)
            return cursor > at && cursor < at + chip.length
          })
        )
          continue
        const marked = `${text.slice(0, cursor)}|${text.slice(cursor)}`
        const out = vim(marked, keys).editor.text
        for (const chip of chips)
          expect(whole(out, chip), `${keys} at ${cursor}: ${JSON.stringify(out)}`).toBe(true)
      }
    })
})
