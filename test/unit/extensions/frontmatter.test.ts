import { describe, expect, it } from 'vitest'
import { parseFrontmatter } from '../../../source/extensions/frontmatter.js'

const doc = (front: string) => `---\n${front}\n---\nBody text.\n`

describe('parseFrontmatter on YAML', () => {
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
      'block scalars and a mapping',
      '---\nlit: |\n  line one\n  line two\nfold: >\n  folded\n  text\nmetadata:\n  author: me\n  version: "1.0"\n---\nB',
      { lit: 'line one\nline two\n', fold: 'folded text\n', metadata: { author: 'me', version: '1.0' } },
      'B',
    ],
    [
      // wshobson/agents' startup-business-analyst commands and Anthropic's create-plugin: valid YAML the old reader refused.
      'a flow list on the line after its key, and one over several lines',
      '---\nallowed-tools:\n  ["Read", "Write", "Bash"]\ntools: [\n  "Read",\n  "Grep"\n]\n---\n',
      { 'allowed-tools': ['Read', 'Write', 'Bash'], tools: ['Read', 'Grep'] },
      '',
    ],
    ['CRLF and a BOM', '\uFEFF---\r\nname: x\r\n---\r\nbody\r\n', { name: 'x' }, 'body\n'],
    // The core schema: YAML 1.1's yes/no and dates stay text, as a name or a version must.
    [
      'yes, no and dates as text',
      '---\nname: no\nversion: 2026-01-01\n---\n',
      { name: 'no', version: '2026-01-01' },
      '',
    ],
    [
      "a plain value Prettier wraps onto indented lines (Claude Code's #4700)",
      '---\nname: r\ndescription:\n  Expert code review specialist. Proactively reviews code,\n  and maintainability.\ntools: Read, Bash\n---\n',
      {
        name: 'r',
        description: 'Expert code review specialist. Proactively reviews code, and maintainability.',
        tools: 'Read, Bash',
      },
      '',
    ],
  ])('%s', async (_name, text, data, body) => {
    const result = await parseFrontmatter(text)
    if (!result.ok) throw new Error(result.message)
    expect(result.data).toEqual(data)
    expect(result.body).toBe(body)
    expect(result.lenient).toBeUndefined()
  })

  it('keeps one-line values as written, for a loader that reads a value as text', async () => {
    const result = await parseFrontmatter('---\nargument-hint: [path]\nname: "x"\n---\n')
    if (!result.ok) throw new Error(result.message)
    expect(result.data['argument-hint']).toEqual(['path'])
    expect(result.raw).toEqual({ 'argument-hint': '[path]', name: '"x"' })
  })

  it.each([
    ['no closing line', '---\na: 1\n', 1, 'no closing "---"'],
    ['a line that is no key', '---\njust words\na: 1\n---\n', 2, 'expected "key: value"'],
    ['a key twice', '---\na: 1\na: 2\n---\n', 3, '"a" appears twice'],
    ['a list, not fields', '---\n- a\n- b\n---\n', 2, 'not a list of "key: value" fields'],
  ])('fails on %s, naming the line', async (_name, text, line, message) => {
    const result = await parseFrontmatter(text)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.line).toBe(line)
    expect(result.message).toContain(message)
  })
})

describe('parseFrontmatter: a block that is not YAML, read as Claude Code reads it', () => {
  it.each([
    [
      'an unquoted colon in a one-line value',
      'name: p\ndescription: Generate images. IMPORTANT: anime style only',
      { name: 'p', description: 'Generate images. IMPORTANT: anime style only' },
    ],
    [
      "Claude Code's argument-hint with two bracketed words",
      'description: Review\nargument-hint: [file] [focus]\nallowed-tools: Read, Bash(git diff:*)',
      { description: 'Review', 'argument-hint': '[file] [focus]', 'allowed-tools': 'Read, Bash(git diff:*)' },
    ],
    [
      'fields that are YAML on their own keep their YAML values',
      'description: a: b\ntools: [Read, Grep]\nmax_turns: 5',
      { description: 'a: b', tools: ['Read', 'Grep'], max_turns: 5 },
    ],
  ])('%s', async (_label, front, data) => {
    const result = await parseFrontmatter(doc(front))
    if (!result.ok) throw new Error(result.message)
    expect(result.data).toEqual(data)
    expect(result.body).toBe('Body text.\n')
    expect(result.lenient).toMatch(/^line \d+: /)
  })

  // The shape of anthropics/claude-code's plugin-dev and pr-review-toolkit agents (claude-code#91871):
  // the description's continuation lines start at column 0, with dialogue lines that look like keys.
  const unindented = [
    'name: agent-creator',
    'description: Use this agent when the user asks to "create an agent". Examples:',
    '',
    '<example>',
    'Context: User wants to create a code review agent',
    'user: "Create an agent that reviews code for quality issues"',
    'assistant: "I\'ll use the agent-creator agent to generate the agent configuration."',
    '<commentary>',
    'User requesting new agent creation, trigger agent-creator to generate it.',
    '</commentary>',
    '</example>',
    '',
    'model: sonnet',
    'color: magenta',
    'tools: ["Write", "Read"]',
  ].join('\n')

  it('an unquoted multi-line description with <example> blocks: continuation lines up to the next field', async () => {
    const result = await parseFrontmatter(doc(unindented))
    if (!result.ok) throw new Error(result.message)
    expect(result.data).toEqual({
      name: 'agent-creator',
      description: [
        'Use this agent when the user asks to "create an agent". Examples:',
        '',
        '<example>',
        'Context: User wants to create a code review agent',
        'user: "Create an agent that reviews code for quality issues"',
        'assistant: "I\'ll use the agent-creator agent to generate the agent configuration."',
        '<commentary>',
        'User requesting new agent creation, trigger agent-creator to generate it.',
        '</commentary>',
        '</example>',
      ].join('\n'),
      model: 'sonnet',
      color: 'magenta',
      tools: ['Write', 'Read'],
    })
    expect(result.lenient).toContain('line 3:')
  })

  it('a field named twice in a block that is not YAML fails, naming the line', async () => {
    const result = await parseFrontmatter(doc('name: a\ndescription: x: y\nname: b'))
    expect(result).toMatchObject({ ok: false, line: 4, message: '"name" appears twice' })
  })
})

describe('parseFrontmatter: anchors and aliases', () => {
  it('resolves an alias to its anchor, as YAML reads it', async () => {
    const parsed = await parseFrontmatter(doc('name: al\ndescription: &a hello\nother: *a'))
    expect(parsed).toMatchObject({ ok: true, data: { name: 'al', description: 'hello', other: 'hello' } })
  })

  it('an alias bomb is not expanded: the block is read field by field, with the reason', async () => {
    const bomb = [
      'name: bomb',
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'description: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n')
    const parsed = await parseFrontmatter(doc(bomb))
    expect(parsed.ok).toBe(true)
    if (!parsed.ok) return
    expect(parsed.lenient).toMatch(/alias/i)
    expect(parsed.data.name).toBe('bomb')
    expect(JSON.stringify(parsed.data).length).toBeLessThan(2_000)
  })

  it('an alias to no anchor is a notice, never a throw', async () => {
    const parsed = await parseFrontmatter(doc('name: x\ndescription: *nowhere'))
    expect(parsed.ok === false || typeof parsed.lenient === 'string').toBe(true)
  })
})
