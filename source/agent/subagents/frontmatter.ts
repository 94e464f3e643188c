/**
 * The YAML frontmatter of agent (and command) Markdown files, in the subset those files use: `key: value`
 * scalars (plain, single- or double-quoted), numbers and booleans, inline lists `[a, b]`, block lists
 * (`- a`), and folded/literal block scalars (`>` / `|`). Anything else is an error naming the line, so a
 * file is never half-understood. Pure.
 */

export type FrontmatterValue = string | number | boolean | null | string[]

export type FrontmatterResult =
  | { ok: true; data: Record<string, FrontmatterValue>; body: string; bodyLine: number }
  | { ok: false; line: number; message: string }

const KEY_LINE = /^([A-Za-z_][\w-]*)\s*:(?:\s+(.*?))?\s*$/

export function parseFrontmatter(text: string): FrontmatterResult {
  const source = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n')
  const lines = source.split('\n')
  if (lines[0]?.trim() !== '---') {
    return { ok: false, line: 1, message: 'the file must start with a frontmatter block: a line "---"' }
  }
  const end = lines.findIndex((line, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(line))
  if (end < 0) return { ok: false, line: 1, message: 'the frontmatter block has no closing "---" line' }
  const data: Record<string, FrontmatterValue> = {}
  let i = 1
  while (i < end) {
    const line = lines[i] ?? ''
    if (line.trim() === '' || line.trimStart().startsWith('#')) {
      i++
      continue
    }
    const match = KEY_LINE.exec(line)
    if (!match)
      return { ok: false, line: i + 1, message: `expected "key: value", got ${JSON.stringify(line)}` }
    const key = match[1] as string
    const raw = match[2] ?? ''
    if (key in data) return { ok: false, line: i + 1, message: `"${key}" appears twice` }
    i++
    if (raw === '' || raw === '|' || raw === '>' || /^[|>][+-]?$/.test(raw)) {
      // A block: list items or an indented scalar.
      const block: string[] = []
      while (
        i < end &&
        (/^\s/.test(lines[i] ?? '') || (lines[i] ?? '').trim() === '' || /^-\s/.test(lines[i] ?? ''))
      ) {
        block.push(lines[i] ?? '')
        i++
      }
      const parsed = raw === '' ? parseBlockList(block, i - block.length) : blockScalar(block, raw)
      if ('message' in parsed) return { ok: false, ...parsed }
      data[key] = parsed.value
      continue
    }
    const value = parseScalarOrList(raw)
    if (typeof value === 'object' && value !== null && 'message' in value) {
      return { ok: false, line: i, message: `${key}: ${value.message}` }
    }
    data[key] = value as FrontmatterValue
  }
  const body = lines.slice(end + 1).join('\n')
  return { ok: true, data, body, bodyLine: end + 2 }
}

function parseBlockList(
  block: string[],
  firstLine: number,
): { value: FrontmatterValue } | { line: number; message: string } {
  const items: string[] = []
  for (const [k, line] of block.entries()) {
    if (line.trim() === '') continue
    const m = /^\s*-\s+(.*?)\s*$/.exec(line)
    if (!m)
      return {
        line: firstLine + k + 1,
        message: `expected a list item "- value", got ${JSON.stringify(line)}`,
      }
    const item = unquote(m[1] ?? '')
    if (typeof item !== 'string') return { line: firstLine + k + 1, message: item.message }
    items.push(item)
  }
  // `key:` with nothing under it is an empty value.
  return { value: items.length === 0 ? null : items }
}

/** `|` keeps line breaks, `>` folds them into spaces; the common indentation is removed. */
function blockScalar(block: string[], style: string): { value: string } {
  const lines = [...block]
  while (lines.length > 0 && (lines.at(-1) ?? '').trim() === '') lines.pop()
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => l.length - l.trimStart().length))
  const stripped = lines.map((l) => l.slice(Number.isFinite(indent) ? indent : 0))
  if (style.startsWith('|')) return { value: stripped.join('\n') }
  const out: string[] = []
  let paragraph: string[] = []
  for (const line of stripped) {
    if (line.trim() === '') {
      out.push(paragraph.join(' '))
      paragraph = []
    } else paragraph.push(line.trim())
  }
  out.push(paragraph.join(' '))
  return { value: out.join('\n') }
}

function parseScalarOrList(raw: string): FrontmatterValue | { message: string } {
  if (raw.startsWith('[')) {
    if (!raw.endsWith(']')) return { message: 'an inline list must end with "]"' }
    const inner = raw.slice(1, -1).trim()
    if (inner === '') return []
    const items: string[] = []
    for (const part of splitOutsideQuotes(inner)) {
      const item = unquote(part.trim())
      if (typeof item !== 'string') return item
      items.push(item)
    }
    return items
  }
  if (raw.startsWith('{')) return { message: 'mappings are not supported here' }
  if (raw.startsWith('"') || raw.startsWith("'")) return unquote(raw)
  if (raw === 'true' || raw === 'false') return raw === 'true'
  if (raw === 'null' || raw === '~') return null
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw)
  // A plain scalar ends where a comment starts.
  return raw.replace(/\s+#.*$/, '')
}

function splitOutsideQuotes(text: string): string[] {
  const parts: string[] = []
  let current = ''
  let quote: string | null = null
  for (const ch of text) {
    if (quote) {
      current += ch
      if (ch === quote) quote = null
    } else if (ch === '"' || ch === "'") {
      quote = ch
      current += ch
    } else if (ch === ',') {
      parts.push(current)
      current = ''
    } else current += ch
  }
  parts.push(current)
  return parts
}

function unquote(text: string): string | { message: string } {
  if (text.startsWith('"')) {
    if (!text.endsWith('"') || text.length < 2)
      return { message: 'a double-quoted value has no closing quote' }
    try {
      return JSON.parse(text) as string
    } catch {
      return { message: `cannot read the double-quoted value ${text}` }
    }
  }
  if (text.startsWith("'")) {
    if (!text.endsWith("'") || text.length < 2)
      return { message: 'a single-quoted value has no closing quote' }
    return text.slice(1, -1).replace(/''/g, "'")
  }
  return text.replace(/\s+#.*$/, '')
}
