import { describe, expect, it } from 'vitest'
import { parseFrontmatter } from '../../../../source/agent/subagents/frontmatter.js'

const doc = (front: string, body = 'Body text.\n') => `---\n${front}\n---\n${body}`

describe('parseFrontmatter', () => {
  it.each([
    [
      'plain scalars',
      'name: reviewer\ndescription: Reviews code',
      { name: 'reviewer', description: 'Reviews code' },
    ],
    ['quoted values', `name: "a \\"b\\""\ndescription: 'it''s'`, { name: 'a "b"', description: "it's" }],
    [
      'numbers, booleans and null',
      'max_turns: 12\nflag: true\nmodel: ~',
      { max_turns: 12, flag: true, model: null },
    ],
    ['an inline list', 'tools: [Read, "Grep", Glob]', { tools: ['Read', 'Grep', 'Glob'] }],
    ['an empty inline list', 'tools: []', { tools: [] }],
    ['a block list', 'tools:\n  - Read\n  - Grep', { tools: ['Read', 'Grep'] }],
    ['an unindented block list', 'tools:\n- Read\n- Grep', { tools: ['Read', 'Grep'] }],
    ['a comma string stays a string', 'tools: Read, Grep', { tools: 'Read, Grep' }],
    ['a trailing comment', 'model: gpt-4o # cheap', { model: 'gpt-4o' }],
    ['a folded block', 'description: >\n  one\n  two\n\n  three', { description: 'one two\nthree' }],
    ['a literal block', 'description: |\n  one\n    two', { description: 'one\n  two' }],
    ['comments and blank lines', '# c\n\nname: x', { name: 'x' }],
  ])('reads %s', (_label, front, data) => {
    const result = parseFrontmatter(doc(front))
    expect(result).toMatchObject({ ok: true, data, body: 'Body text.\n' })
  })

  it.each([
    ['no frontmatter', 'Just text\n', 1, 'must start with a frontmatter block'],
    ['no closing line', '---\nname: x\n', 1, 'no closing'],
    ['a line that is not key: value', doc('name x'), 2, 'expected "key: value"'],
    ['a repeated key', doc('name: a\nname: b'), 3, '"name" appears twice'],
    ['an unclosed list', doc('tools: [Read, Grep'), 2, 'must end with "]"'],
    ['an unclosed quote', doc('name: "x'), 2, 'no closing quote'],
    ['a mapping', doc('opts: {a: 1}'), 2, 'mappings are not supported'],
    ['a bad list item', doc('tools:\n  Read'), 3, 'expected a list item'],
  ])('rejects %s, naming the line', (_label, text, line, message) => {
    const result = parseFrontmatter(text)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.line).toBe(line)
    expect(result.message).toContain(message)
  })

  it('keeps the body after the block and tolerates a BOM and CRLF', () => {
    const result = parseFrontmatter('\uFEFF---\r\nname: x\r\n---\r\nline one\r\nline two\r\n')
    expect(result).toMatchObject({ ok: true, data: { name: 'x' }, body: 'line one\nline two\n', bodyLine: 4 })
  })
})
