import { describe, expect, it } from 'vitest'
import { safeBoundaries } from '../../../source/ui/panes/transcript/stream-split.js'

/** The text cut at every safe boundary. */
const cut = (text: string) => {
  const pieces: string[] = []
  let from = 0
  for (const boundary of safeBoundaries(text)) {
    pieces.push(text.slice(from, boundary))
    from = boundary
  }
  pieces.push(text.slice(from))
  return pieces
}

describe('safeBoundaries', () => {
  it('finds none without a complete blank line followed by more text', () => {
    expect(safeBoundaries('')).toEqual([])
    expect(safeBoundaries('one paragraph\nstill going')).toEqual([])
    expect(safeBoundaries('no newline yet')).toEqual([])
    // Nothing after the blank line yet: the next line might still turn out to be indented.
    expect(safeBoundaries('done\n\n')).toEqual([])
  })

  it('cuts after each blank line that is followed by a new block', () => {
    expect(cut('first\n\nsecond\n\n\nthird still stream')).toEqual([
      'first\n\n',
      'second\n\n\n',
      'third still stream',
    ])
  })

  it('never cuts inside a fenced code block', () => {
    const open = 'intro\n\n```ts\nconst a = 1\n\nconst b = 2\n'
    expect(cut(open)).toEqual(['intro\n\n', '```ts\nconst a = 1\n\nconst b = 2\n'])
    expect(cut(`${open}\`\`\`\n\nafter`).at(-1)).toBe('after')
  })

  it('follows CommonMark fence rules: same character, at least as long, indented fences too', () => {
    expect(safeBoundaries('a\n\n~~~~\n```\n\ninside\n~~~\n\nstill inside\n')).toEqual([3])
    const inline = 'text with ``` inline ``` ticks\n\nnext'
    expect(cut(inline).at(-1)).toBe('next')
  })

  it('keeps indented lines after a blank line with the block they continue', () => {
    const list = '1. Step one\n\n   More about it\n\n   ```sh\n   npm i\n\n   ```\n\n2. Step two\n'
    expect(cut(list)).toEqual([
      '1. Step one\n\n   More about it\n\n   ```sh\n   npm i\n\n   ```\n\n',
      '2. Step two\n',
    ])
  })

  it('treats an unterminated last line as still growing', () => {
    expect(safeBoundaries('para\n   ')).toEqual([])
  })
})
