import { describe, expect, it } from 'vitest'
import { createKeySplitter } from '../../../source/ui/keys/key-chunks.js'

const PASTE = (text: string) => `\x1b[200~${text}\x1b[201~`

describe('createKeySplitter', () => {
  it.each([
    ['text then Enter (tmux send-keys "Green" Enter)', 'Green\r', ['Green', '\r']],
    ['three Ctrl+U in one read', '\x15\x15\x15', ['\x15', '\x15', '\x15']],
    ['a letter then Tab', 's\t', ['s', '\t']],
    ['two Ctrl+D', '\x04\x04', ['\x04', '\x04']],
    ['Enter twice', '\r\r', ['\r', '\r']],
    ['plain typing stays one piece', 'hello', ['hello']],
    ['an arrow key and Enter', '\x1b[A\r', ['\x1b[A', '\r']],
    ['text, an arrow, text', 'ab\x1b[Dc', ['ab\x1b[Dc']],
    ['Alt+Backspace stays whole', 'word\x1b\x7f', ['word\x1b\x7f']],
    ['Alt+Enter stays whole', '\x1b\r', ['\x1b\r']],
    ['a multi-line paste without brackets stays whole', 'one\rtwo\r', ['one\rtwo\r']],
    [
      'a bracketed paste stays whole, keys around it split',
      `a\t${PASTE('x\ry\tz')}\r`,
      ['a', '\t', PASTE('x\ry\tz'), '\r'],
    ],
    ['a lone Esc', '\x1b', ['\x1b']],
  ])('%s', (_name, chunk, pieces) => {
    const out = createKeySplitter().push(chunk)
    expect(out).toEqual(pieces)
    expect(out.join('')).toBe(chunk)
  })

  it('keeps a paste whole across reads, wherever the reads are cut', () => {
    const input = `go\r${PASTE('line one\rline two\t')}\r`
    for (let cut = 1; cut < input.length; cut++) {
      const splitter = createKeySplitter()
      const pieces = [...splitter.push(input.slice(0, cut)), ...splitter.push(input.slice(cut))]
      expect(pieces.join(''), `cut at ${cut}`).toBe(input)
      // No Enter or Tab from inside the paste ever stands alone.
      expect(
        pieces.filter((p) => p === '\r' || p === '\t'),
        `cut at ${cut}`,
      ).toEqual(['\r', '\r'])
    }
  })
})
