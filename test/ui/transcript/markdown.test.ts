import stringWidth from 'string-width'
import stripAnsi from 'strip-ansi'
import { describe, expect, it } from 'vitest'
import { renderMarkdown } from '../../../source/ui/components/markdown.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { plain } from './fixtures.js'

const theme = createTheme({ level: 1 })
const mono = createTheme({ level: 0 })

function expectWithin(lines: readonly string[], width: number) {
  for (const line of lines)
    expect(stringWidth(line), JSON.stringify(stripAnsi(line))).toBeLessThanOrEqual(width)
}

describe('renderMarkdown', () => {
  it('renders headings, emphasis, inline code and separates blocks by one blank line', () => {
    const lines = renderMarkdown('# Title\n\nSome **bold**, *italic* and `code`.\n\n### Small', 60, theme)
    expect(plain(lines)).toEqual(['Title', '', 'Some bold, italic and code.', '', '### Small'])
    expect(lines[0]).toContain('\x1b[1m')
    expect(lines[2]).toContain('\x1b[1mbold')
    expect(lines[2]).toContain('\x1b[3mitalic')
    expect(lines[2]).toContain('\x1b[33mcode')
  })

  it('renders nested, ordered and task lists with aligned continuation lines', () => {
    const md =
      '- one\n- two\n  - nested a\n  - nested b\n- three\n\n3. third\n4. fourth\n\n- [ ] todo\n- [x] done'
    expect(plain(renderMarkdown(md, 60, theme))).toEqual([
      '• one',
      '• two',
      '  ◦ nested a',
      '  ◦ nested b',
      '• three',
      '',
      '3. third',
      '4. fourth',
      '',
      '☐ todo',
      '☑ done',
    ])
    const wrapped = plain(renderMarkdown('- a list item long enough to wrap onto a second line', 20, mono))
    expect(wrapped[0]?.startsWith('• ')).toBe(true)
    expect(wrapped.slice(1).every((l) => l.startsWith('  '))).toBe(true)
  })

  it('highlights fenced code behind a gutter and wraps it to the width, never overflowing', () => {
    const code = '```ts\nconst answer: number = 42 // the meaning of life, the universe and everything\n```'
    const lines = renderMarkdown(code, 30, theme)
    expect(lines.length).toBeGreaterThan(1)
    expect(plain(lines).every((l) => l.startsWith('│ '))).toBe(true)
    expect(
      plain(lines)
        .map((l) => l.slice(2))
        .join(''),
    ).toBe('const answer: number = 42 // the meaning of life, the universe and everything')
    expect(lines[0]).toContain('\x1b[35mconst') // keyword colour
    expectWithin(lines, 30)
  })

  it('keeps code spacing and plain text for unknown languages', () => {
    const lines = plain(renderMarkdown('```nolang\n  a  <b> & c\n\n\tend\n```', 40, theme))
    expect(lines).toEqual(['│   a  <b> & c', '│ ', '│     end'])
  })

  it('renders tables with aligned columns and shrinks them to fit', () => {
    const md = '| Name | Size |\n|------|-----:|\n| alpha | 1 |\n| beta | 1234 |'
    expect(plain(renderMarkdown(md, 60, theme))).toEqual([
      'Name  │ Size',
      '──────┼─────',
      'alpha │    1',
      'beta  │ 1234',
    ])
    const wide = '| a | b |\n|---|---|\n| a fairly long cell of text | another long cell of text |'
    const lines = renderMarkdown(wide, 24, theme)
    expectWithin(lines, 24)
    expect(plain(lines).join(' ')).toContain('fairly')
  })

  it('renders links with a dim url, quotes with a gutter, rules and entities', () => {
    const lines = plain(
      renderMarkdown('See [docs](https://x.dev) or <https://y.dev>.\n\n> quoted &amp; said\n\n---', 60, mono),
    )
    expect(lines).toEqual([
      'See docs (https://x.dev) or https://y.dev.',
      '',
      '│ quoted & said',
      '',
      '─'.repeat(40),
    ])
  })

  it('hard-wraps long paragraphs and words to the width', () => {
    const lines = renderMarkdown(`${'word '.repeat(30)}\n\n${'x'.repeat(50)}`, 20, theme)
    expectWithin(lines, 20)
    expect(plain(lines).join('')).toContain('x'.repeat(20))
  })
})
