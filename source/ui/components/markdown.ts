import { Lexer, type Token, type Tokens } from 'marked'
import stringWidth from 'string-width'
import wrapAnsi from 'wrap-ansi'
import { cleanText } from '../../util/display-text.js'
import { decodeEntities, highlightLines } from './highlight.js'
import type { Style, Theme } from './theme.js'

/**
 * Renders Markdown to terminal lines: ANSI-styled, hard-wrapped so no line is wider than `width`
 * columns (code blocks wrap too, they never overflow). Pure; never throws on odd input. The text is
 * cleaned first (`cleanText`), and each leaf again once entities are decoded (`plain`): text, code
 * spans, link labels and URLs show no escape sequence, bidi control or invisible character.
 */
export function renderMarkdown(text: string, width: number, theme: Theme): string[] {
  const tokens = Lexer.lex(cleanText(text), { gfm: true })
  return renderBlocks(tokens, Math.max(1, width), { theme, listDepth: 0 }, false)
}

interface Context {
  theme: Theme
  listDepth: number
}

const BULLETS = ['•', '◦', '▪']
const CODE_GUTTER = '│ '

/** Wraps styled text (possibly with `\n`) to lines of at most `width` columns. */
export function wrapText(text: string, width: number): string[] {
  return wrapAnsi(text, Math.max(1, width), { hard: true }).split('\n')
}

/** Renders blocks; `tight` joins them without the blank line that separates Markdown blocks. */
function renderBlocks(tokens: readonly Token[], width: number, ctx: Context, tight: boolean): string[] {
  const out: string[] = []
  for (const token of tokens) {
    const lines = renderBlock(token, width, ctx)
    if (lines.length === 0) continue
    if (out.length > 0 && !tight) out.push('')
    out.push(...lines)
  }
  return out
}

function renderBlock(token: Token, width: number, ctx: Context): string[] {
  const { theme } = ctx
  switch (token.type) {
    case 'space':
    case 'def':
      return []
    case 'heading': {
      const t = token as Tokens.Heading
      const prefix = t.depth >= 3 ? `${'#'.repeat(t.depth)} ` : ''
      return wrapText(theme.heading(t.depth)(prefix + renderInline(t.tokens, theme)), width)
    }
    case 'paragraph':
      return wrapText(renderInline((token as Tokens.Paragraph).tokens, theme), width)
    case 'text': {
      const t = token as Tokens.Text
      return wrapText(t.tokens ? renderInline(t.tokens, theme) : plain(t.text), width)
    }
    case 'code': {
      const t = token as Tokens.Code
      return renderCode(cleanText(t.text), (t.lang ?? '').split(/\s/)[0] ?? '', width, theme)
    }
    case 'blockquote': {
      const inner = renderBlocks((token as Tokens.Blockquote).tokens, width - 2, ctx, false)
      return inner.map((line) => theme.gutter('│ ') + theme.quote(line))
    }
    case 'list':
      return renderList(token as Tokens.List, width, ctx)
    case 'table':
      return renderTable(token as Tokens.Table, width, theme)
    case 'hr':
      return [theme.rule('─'.repeat(Math.min(width, 40)))]
    case 'html':
      return wrapText(theme.dim(plain((token as Tokens.HTML).text.replace(/\n+$/, ''))), width)
    default: {
      const generic = token as Tokens.Generic
      if (generic.tokens) return wrapText(renderInline(generic.tokens, theme), width)
      return wrapText(plain(String(generic.raw ?? '').replace(/\n+$/, '')), width)
    }
  }
}

/** Fenced code: highlighted, character-wrapped (spacing matters in code) behind a dim gutter. */
function renderCode(code: string, lang: string, width: number, theme: Theme): string[] {
  const inner = Math.max(1, width - CODE_GUTTER.length)
  const gutter = theme.gutter(CODE_GUTTER)
  const out: string[] = []
  for (const line of highlightLines(code.replace(/\n$/, ''), lang, theme)) {
    const pieces =
      line === '' ? [''] : wrapAnsi(line, inner, { hard: true, trim: false, wordWrap: false }).split('\n')
    for (const piece of pieces) out.push(gutter + piece)
  }
  return out
}

function renderList(list: Tokens.List, width: number, ctx: Context): string[] {
  const { theme } = ctx
  const start = typeof list.start === 'number' ? list.start : 1
  const markers = list.items.map((item, i) => {
    if (item.task) return item.checked ? '☑' : '☐'
    return list.ordered ? `${start + i}.` : (BULLETS[ctx.listDepth % BULLETS.length] ?? '•')
  })
  const markerWidth = Math.max(...markers.map((m) => stringWidth(m)), 1) + 1
  const child: Context = { ...ctx, listDepth: ctx.listDepth + 1 }
  const out: string[] = []
  list.items.forEach((item, i) => {
    const blocks = item.tokens.filter((t) => t.type !== 'checkbox')
    const lines = renderBlocks(blocks, width - markerWidth, child, !item.loose)
    if (lines.length === 0) lines.push('')
    if (i > 0 && list.loose) out.push('')
    const marker = markers[i] ?? '•'
    const padding = ' '.repeat(markerWidth)
    lines.forEach((line, j) => {
      out.push(
        j === 0
          ? theme.listMarker(marker) + ' '.repeat(markerWidth - stringWidth(marker)) + line
          : padding + line,
      )
    })
  })
  return out
}

function renderTable(table: Tokens.Table, width: number, theme: Theme): string[] {
  const header = table.header.map((cell) => theme.bold(renderInline(cell.tokens, theme)))
  const rows = table.rows.map((row) => row.map((cell) => renderInline(cell.tokens, theme)))
  const columns = header.length
  if (columns === 0) return []
  const natural = header.map((h, c) =>
    Math.max(stringWidth(h), ...rows.map((r) => stringWidth(r[c] ?? '')), 1),
  )
  const widths = fitColumns(natural, width - (columns - 1) * 3)
  const border = theme.tableBorder
  const renderRow = (cells: readonly string[]): string[] => {
    const wrapped = widths.map((w, c) => wrapText(cells[c] ?? '', w))
    const height = Math.max(...wrapped.map((w) => w.length))
    const lines: string[] = []
    for (let r = 0; r < height; r++) {
      const parts = widths.map((w, c) => align(wrapped[c]?.[r] ?? '', w, table.align[c] ?? null))
      lines.push(parts.join(border(' │ ')).trimEnd())
    }
    return lines
  }
  const separator = border(widths.map((w) => '─'.repeat(w)).join('─┼─'))
  const lines = [...renderRow(header), separator, ...rows.flatMap(renderRow)]
  // Columns never shrink below 3, so a very narrow pane can still be too small: wrap rather than overflow.
  return lines.flatMap((line) => (stringWidth(line) > width ? wrapText(line, width) : [line]))
}

/** Shrinks the widest columns first until the table fits; every column keeps at least 3 columns. */
function fitColumns(natural: readonly number[], available: number): number[] {
  const widths = [...natural]
  let total = widths.reduce((a, b) => a + b, 0)
  while (total > available) {
    let widest = 0
    for (let c = 1; c < widths.length; c++) if ((widths[c] ?? 0) > (widths[widest] ?? 0)) widest = c
    if ((widths[widest] ?? 0) <= 3) break
    widths[widest] = (widths[widest] ?? 0) - 1
    total--
  }
  return widths
}

function align(text: string, width: number, how: 'left' | 'right' | 'center' | null): string {
  const gap = Math.max(0, width - stringWidth(text))
  if (how === 'right') return ' '.repeat(gap) + text
  if (how === 'center') return ' '.repeat(Math.floor(gap / 2)) + text + ' '.repeat(gap - Math.floor(gap / 2))
  return text + ' '.repeat(gap)
}

/** Inline tokens → one styled string (may contain `\n` from hard breaks). */
function renderInline(tokens: readonly Token[], theme: Theme): string {
  let out = ''
  for (const token of tokens) out += renderInlineToken(token, theme)
  return out
}

function renderInlineToken(token: Token, theme: Theme): string {
  switch (token.type) {
    case 'text': {
      const t = token as Tokens.Text
      return t.tokens ? renderInline(t.tokens, theme) : plain(t.text)
    }
    case 'escape':
      return plain((token as Tokens.Escape).text)
    case 'strong':
      return styled(theme.bold, token as Tokens.Strong, theme)
    case 'em':
      return styled(theme.italic, token as Tokens.Em, theme)
    case 'del':
      return styled(theme.chalk.strikethrough, token as Tokens.Del, theme)
    case 'codespan':
      return theme.inlineCode(plain((token as Tokens.Codespan).text))
    case 'br':
      return '\n'
    case 'checkbox':
      return (token as Tokens.Checkbox).checked ? '☑ ' : '☐ '
    case 'link': {
      const t = token as Tokens.Link
      const label = renderInline(t.tokens, theme)
      const href = plain(t.href.replace(/^mailto:/, ''))
      if (t.autolink || label === plain(t.href) || label === href) return theme.link(label)
      return `${theme.link(label)} ${theme.url(`(${href})`)}`
    }
    case 'image': {
      const t = token as Tokens.Image
      return theme.url(`[image: ${plain(t.text || t.href)}]`)
    }
    case 'html':
      return theme.dim(plain((token as Tokens.HTML).text))
    default: {
      const generic = token as Tokens.Generic
      return generic.tokens ? renderInline(generic.tokens, theme) : plain(String(generic.raw ?? ''))
    }
  }
}

/**
 * Text as a leaf shows it. The lexer decodes entities itself (`&#27;` is ESC again, `&#x202e;` an RLO),
 * so every leaf is cleaned after decoding, whatever was cleaned before.
 */
function plain(text: string): string {
  return cleanText(decodeEntities(text))
}

function styled(style: Style, token: { tokens: Token[] }, theme: Theme): string {
  return style(renderInline(token.tokens, theme))
}
