import { describe, expect, it } from 'vitest'
import { findSafeSplitPoint } from '../../../source/ui/panes/transcript/stream-split.js'

describe('findSafeSplitPoint', () => {
  it('returns 0 when there is no complete blank line', () => {
    expect(findSafeSplitPoint('')).toBe(0)
    expect(findSafeSplitPoint('one paragraph\nstill going')).toBe(0)
    expect(findSafeSplitPoint('no newline yet')).toBe(0)
  })

  it('splits after the last blank line', () => {
    const text = 'first\n\nsecond\n\nthird still stream'
    const at = findSafeSplitPoint(text)
    expect(text.slice(0, at)).toBe('first\n\nsecond\n\n')
    expect(text.slice(at)).toBe('third still stream')
    expect(findSafeSplitPoint('done\n\n')).toBe('done\n\n'.length)
  })

  it('never splits inside a fenced code block', () => {
    const open = 'intro\n\n```ts\nconst a = 1\n\nconst b = 2\n'
    expect(open.slice(0, findSafeSplitPoint(open))).toBe('intro\n\n')
    const closed = `${open}\`\`\`\n\nafter`
    expect(closed.slice(findSafeSplitPoint(closed))).toBe('after')
  })

  it('follows CommonMark fence rules: same character, at least as long, indented fences too', () => {
    const tilde = 'a\n\n~~~~\n```\n\ninside\n~~~\n\nstill inside\n'
    expect(findSafeSplitPoint(tilde)).toBe(3)
    const indented = '- item\n\n  ```\n  code\n\n  more\n'
    expect(findSafeSplitPoint(indented)).toBe('- item\n\n'.length)
    const inline = 'text with ``` inline ``` ticks\n\nnext'
    expect(inline.slice(findSafeSplitPoint(inline))).toBe('next')
  })

  it('treats an unterminated last line as still growing', () => {
    expect(findSafeSplitPoint('para\n   ')).toBe(0)
  })
})
