/**
 * The YAML frontmatter of command, skill and agent Markdown files, in the subset those files use: `key: value`
 * scalars (plain, single- or double-quoted), numbers and booleans, inline lists `[a, b]`, block lists
 * (`- a`), one level of block mapping (a skill's `metadata:`), and folded or literal block scalars (`>`,
 * `|`). A value it cannot read is an error naming its line, kept by key: a loader reports it for a field
 * it uses, so a file is never half-understood. A file without a frontmatter block is all body. Pure.
 */

export type FrontmatterValue = string | number | boolean | null | string[] | { [key: string]: string }

export type FrontmatterResult =
  | {
      ok: true
      data: Record<string, FrontmatterValue>
      /**
       * The text after `key:` as written, for one-line values: Claude Code's `argument-hint: [file] [focus]`
       * is meant as text, though YAML would read a list in it.
       */
      raw: Record<string, string>
      /** One-line values that are not valid YAML, by key: a loader that reads `raw` may still use them. */
      invalid: Record<string, string>
      body: string
      bodyLine: number
    }
  | { ok: false; line: number; message: string }

const KEY_LINE = /^([A-Za-z_][\w-]*)\s*:(?:\s+(.*?))?\s*$/

export function parseFrontmatter(text: string): FrontmatterResult {
  const lines = text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n/g, '\n')
    .split('\n')
  if (lines[0]?.trim() !== '---')
    return { ok: true, data: {}, raw: {}, invalid: {}, body: lines.join('\n'), bodyLine: 1 }
  const end = lines.findIndex((line, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(line))
  if (end < 0) return { ok: false, line: 1, message: 'the frontmatter block has no closing "---" line' }
  const data: Record<string, FrontmatterValue> = {}
  const raw: Record<string, string> = {}
  const invalid: Record<string, string> = {}
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
    const value = match[2] ?? ''
    if (Object.hasOwn(data, key)) return { ok: false, line: i + 1, message: `"${key}" appears twice` }
    i++
    if (value === '' || /^[|>][+-]?$/.test(value)) {
      // A block under the key: list items, or the lines of a block scalar.
      const first = i
      while (i < end && (/^(\s|-\s|-$)/.test(lines[i] ?? '') || (lines[i] ?? '').trim() === '')) i++
      const block = lines.slice(first, i)
      const parsed = value === '' ? blockValue(block, first) : { value: blockScalar(block, value) }
      if ('message' in parsed) invalid[key] = `line ${parsed.line}: ${parsed.message}`
      else data[key] = parsed.value
      continue
    }
    raw[key] = value
    const parsed = scalarOrList(value)
    if (typeof parsed === 'object' && parsed !== null && 'message' in parsed) {
      invalid[key] = `line ${i}: ${parsed.message}`
      continue
    }
    data[key] = parsed
  }
  return { ok: true, data, raw, invalid, body: lines.slice(end + 1).join('\n'), bodyLine: end + 2 }
}

/**
 * `- a` lines, or `  name: value` lines; `key:` with nothing under it is null. `first` is the block's
 * 0-based line index.
 */
function blockValue(
  block: string[],
  first: number,
): { value: FrontmatterValue } | { line: number; message: string } {
  const firstItem = block.find((l) => l.trim() !== '') ?? ''
  if (/^\s+[A-Za-z_][\w-]*\s*:/.test(firstItem)) return blockMapping(block, first)
  const items: string[] = []
  for (const [k, line] of block.entries()) {
    if (line.trim() === '') continue
    const m = /^\s*-\s+(.*?)\s*$/.exec(line)
    if (!m)
      return { line: first + k + 1, message: `expected a list item "- value", got ${JSON.stringify(line)}` }
    const item = unquote(m[1] ?? '')
    if (typeof item !== 'string') return { line: first + k + 1, message: item.message }
    items.push(item)
  }
  return { value: items.length === 0 ? null : items }
}

function blockMapping(
  block: string[],
  first: number,
): { value: { [key: string]: string } } | { line: number; message: string } {
  const map: { [key: string]: string } = {}
  for (const [k, line] of block.entries()) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue
    const m = /^\s+([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$/.exec(line)
    const item = m ? unquote(m[2] ?? '') : { message: `expected "name: value", got ${JSON.stringify(line)}` }
    if (typeof item !== 'string') return { line: first + k + 1, message: item.message }
    map[m?.[1] ?? ''] = item
  }
  return { value: map }
}

/** `|` keeps line breaks, `>` folds them into spaces; the common indentation is removed. */
function blockScalar(block: string[], style: string): string {
  const lines = [...block]
  while (lines.length > 0 && (lines.at(-1) ?? '').trim() === '') lines.pop()
  const indents = lines.filter((l) => l.trim() !== '').map((l) => l.length - l.trimStart().length)
  const indent = indents.length > 0 ? Math.min(...indents) : 0
  const stripped = lines.map((l) => l.slice(indent))
  if (style.startsWith('|')) return stripped.join('\n')
  const paragraphs: string[] = []
  let paragraph: string[] = []
  for (const line of stripped) {
    if (line.trim() !== '') paragraph.push(line.trim())
    else {
      paragraphs.push(paragraph.join(' '))
      paragraph = []
    }
  }
  paragraphs.push(paragraph.join(' '))
  return paragraphs.join('\n')
}

function scalarOrList(raw: string): FrontmatterValue | { message: string } {
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
