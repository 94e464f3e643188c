import { describe, expect, it } from 'vitest'
import { parseFrontmatter } from '../../../source/extensions/frontmatter.js'

describe('parseFrontmatter', () => {
  it.each([
    ['no block: all body', 'Just a prompt\n', {}, 'Just a prompt\n'],
    [
      'scalars, quotes, numbers, booleans, comments',
      '---\na: plain text # note\nb: "quoted: \\"x\\""\nc: \'it\'\'s\'\nd: 3\ne: true\nf: ~\n# comment\n---\nbody',
      { a: 'plain text', b: 'quoted: "x"', c: "it's", d: 3, e: true, f: null },
      'body',
    ],
    [
      'inline and block lists',
      '---\ntools: [Read, "Bash(git diff *)"]\nmore:\n  - one\n  - "two"\n---\n',
      { tools: ['Read', 'Bash(git diff *)'], more: ['one', 'two'] },
      '',
    ],
    [
      'block scalars and a one-level mapping',
      '---\nlit: |\n  line one\n  line two\nfold: >\n  folded\n  text\nmetadata:\n  author: me\n  version: "1.0"\n---\nB',
      { lit: 'line one\nline two', fold: 'folded text', metadata: { author: 'me', version: '1.0' } },
      'B',
    ],
    ['CRLF and a BOM', '\uFEFF---\r\nname: x\r\n---\r\nbody\r\n', { name: 'x' }, 'body\n'],
  ])('%s', (_name, text, data, body) => {
    const result = parseFrontmatter(text)
    if (!result.ok) throw new Error(result.message)
    expect(result.data).toEqual(data)
    expect(result.body).toBe(body)
  })

  it('keeps one-line values as written and their YAML errors by key, so a loader decides', () => {
    const result = parseFrontmatter('---\nargument-hint: [file] [focus]\nbad: {a: b}\nbroken: [x\n---\n')
    if (!result.ok) throw new Error(result.message)
    expect(result.raw['argument-hint']).toBe('[file] [focus]')
    expect(result.invalid).toEqual({
      bad: 'line 3: mappings are not supported here',
      broken: 'line 4: an inline list must end with "]"',
    })
  })

  it.each([
    ['no closing line', '---\na: 1\n', 1, 'no closing "---"'],
    ['a line that is no key', '---\na: 1\njust words\n---\n', 3, 'expected "key: value"'],
    ['a key twice', '---\na: 1\na: 2\n---\n', 3, '"a" appears twice'],
  ])('fails on %s, naming the line', (_name, text, line, message) => {
    const result = parseFrontmatter(text)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.line).toBe(line)
    expect(result.message).toContain(message)
  })

  const doc = (front: string) => `---\n${front}\n---\nBody text.\n`

  it.each([
    ['an empty inline list', 'tools: []', { tools: [] }],
    ['an unindented block list', 'tools:\n- Read\n- Grep', { tools: ['Read', 'Grep'] }],
    ['a comma string stays a string', 'tools: Read, Grep', { tools: 'Read, Grep' }],
    [
      'a folded block with paragraphs',
      'description: >\n  one\n  two\n\n  three',
      { description: 'one two\nthree' },
    ],
    [
      'a literal block keeps inner indentation',
      'description: |\n  one\n    two',
      { description: 'one\n  two' },
    ],
  ])('reads %s', (_label, front, data) => {
    expect(parseFrontmatter(doc(front))).toMatchObject({ ok: true, data, body: 'Body text.\n' })
  })

  it.each([
    ['an unclosed list', 'tools: [Read, Grep', 'tools', 'line 2: an inline list must end with "]"'],
    ['an unclosed quote', 'name: "x', 'name', 'line 2: a double-quoted value has no closing quote'],
    ['a bad list item', 'tools:\n  Read', 'tools', 'line 3: expected a list item'],
  ])('keeps %s as an error of its key, naming the line', (_label, front, key, message) => {
    const result = parseFrontmatter(doc(front))
    if (!result.ok) throw new Error(result.message)
    expect(result.data[key]).toBeUndefined()
    expect(result.invalid[key]).toContain(message)
  })
})
