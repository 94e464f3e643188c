/**
 * The YAML frontmatter of command, skill and agent Markdown files, read by a real YAML parser (the `yaml`
 * package, loaded on the first file: never on the first frame's path) with Claude Code's leniency. A block
 * that is not valid YAML is read field by field, as Claude Code's loader reads it: a line at the start of
 * the block naming a field (`model: opus`) starts that field, every other line continues the value before
 * (an unquoted multi-line `description` with `<example>` blocks and `user: "…"` dialogue lines), and a
 * field's value that is not YAML on its own is its text (`description: Use for: x`, `argument-hint:
 * [file] [focus]`). The result says so (`lenient`), for a notice. A file without a frontmatter block is all
 * body. Pure but for the one lazy import.
 */

export type FrontmatterValue =
  | string
  | number
  | boolean
  | null
  | FrontmatterValue[]
  | { [key: string]: FrontmatterValue }

export type FrontmatterResult =
  | {
      ok: true
      data: Record<string, FrontmatterValue>
      /**
       * The text after `key:` as written, for one-line values: Claude Code's `argument-hint: [file] [focus]`
       * is meant as text, though YAML would read a list in it.
       */
      raw: Record<string, string>
      /**
       * Set when the block was not valid YAML and was read field by field: the parser's complaint
       * (`line 5: …`), for a notice that the file loaded anyway.
       */
      lenient?: string
      body: string
      bodyLine: number
    }
  | { ok: false; line: number; message: string }

/** A line that starts a field: a name at the start of the line, a colon, then a blank or the end. */
const KEY_LINE = /^([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$/
/**
 * Speakers of the dialogue examples Claude Code's agent descriptions carry (`user: "…"`, `assistant: …`):
 * in a block that is not YAML, such a line continues the description. Capitalised words (`Context:`,
 * `Examples:`) continue it too: no field is named so.
 */
const DIALOGUE = new Set(['user', 'assistant', 'human', 'ai', 'system', 'claude'])

export async function parseFrontmatter(text: string): Promise<FrontmatterResult> {
  try {
    return await readFrontmatter(text)
  } catch (error) {
    // One odd file is a notice on that file, never the end of the session that found it.
    const message = error instanceof Error ? error.message : String(error)
    return { ok: false, line: 1, message: `the frontmatter could not be read: ${message}` }
  }
}

async function readFrontmatter(text: string): Promise<FrontmatterResult> {
  const lines = text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n/g, '\n')
    .split('\n')
  if (lines[0]?.trim() !== '---') return { ok: true, data: {}, raw: {}, body: lines.join('\n'), bodyLine: 1 }
  const end = lines.findIndex((line, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(line))
  if (end < 0) return { ok: false, line: 1, message: 'the frontmatter block has no closing "---" line' }
  const block = lines.slice(1, end)
  const raw = rawValues(block)
  const rest = { raw, body: lines.slice(end + 1).join('\n'), bodyLine: end + 2 }
  const yaml = await loadYaml()
  const whole = readYaml(yaml, block.join('\n'))
  if ('value' in whole) {
    const value = whole.value
    if (value === null || value === undefined) return { ok: true, data: {}, ...rest }
    if (typeof value !== 'object' || Array.isArray(value))
      return { ok: false, line: 2, message: 'the frontmatter is not a list of "key: value" fields' }
    return { ok: true, data: value as Record<string, FrontmatterValue>, ...rest }
  }
  const lenient = readFieldByField(yaml, block)
  if ('message' in lenient) return { ok: false, ...lenient }
  const why = `line ${whole.line + 1}: ${whole.message}`
  return { ok: true, data: lenient.data, ...rest, lenient: why }
}

type Yaml = typeof import('yaml')

/**
 * The `yaml` package, loaded with the first frontmatter block. It is CommonJS for Node: bundled, its
 * dynamic import resolves to the module object under `default`, unbundled (tests) to the exports.
 */
async function loadYaml(): Promise<Yaml> {
  const loaded = (await import('yaml')) as Yaml & { default?: Yaml }
  return typeof loaded.parseDocument === 'function' ? loaded : (loaded.default as Yaml)
}

/** The block as YAML (the core schema: `yes` and `2026-01-01` stay text), or its first error's line in the block. */
function readYaml(yaml: Yaml, source: string): { value: unknown } | { line: number; message: string } {
  const doc = yaml.parseDocument(source, { schema: 'core', prettyErrors: true, uniqueKeys: true })
  const error = doc.errors[0]
  if (error) {
    return {
      line: error.linePos?.[0]?.line ?? 1,
      message: (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, ''),
    }
  }
  // Anchors and aliases are YAML (`description: &d …` then `summary: *d`); the yaml package's default cap on
  // what aliases expand to (100) keeps a "billion laughs" block from blowing up, and its error is reported.
  try {
    return { value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) }
  } catch (error) {
    return { line: 1, message: error instanceof Error ? error.message : String(error) }
  }
}

const MAX_ALIAS_COUNT = 100

/** One-line values as written, by key (quotes kept: the reader takes them off). */
function rawValues(block: readonly string[]): Record<string, string> {
  const raw: Record<string, string> = {}
  for (const line of block) {
    const m = KEY_LINE.exec(line)
    if (m?.[1] && m[2] !== undefined && !Object.hasOwn(raw, m[1])) raw[m[1]] = m[2]
  }
  return raw
}

/** A block that is not YAML, as Claude Code reads it: fields at the line starts, the rest continuations. */
function readFieldByField(
  yaml: Yaml,
  block: readonly string[],
): { data: Record<string, FrontmatterValue> } | { line: number; message: string } {
  const fields: Array<{ key: string; line: number; lines: string[] }> = []
  for (const [i, line] of block.entries()) {
    const m = KEY_LINE.exec(line)
    const key = m?.[1]
    const startsField = key !== undefined && (fields.length === 0 || !DIALOGUE.has(key)) && /^[a-z]/.test(key)
    if (startsField) {
      if (fields.some((f) => f.key === key)) return { line: i + 2, message: `"${key}" appears twice` }
      fields.push({ key, line: i + 2, lines: [line] })
      continue
    }
    const current = fields.at(-1)
    if (current) current.lines.push(line)
    else if (line.trim() !== '' && !line.trimStart().startsWith('#'))
      return { line: i + 2, message: `expected "key: value", got ${JSON.stringify(line)}` }
  }
  const data: Record<string, FrontmatterValue> = {}
  for (const field of fields) data[field.key] = fieldValue(yaml, field.key, field.lines)
  return { data }
}

/** One field on its own as YAML; failing that, its text (the lines after the key, trimmed). */
function fieldValue(yaml: Yaml, key: string, lines: readonly string[]): FrontmatterValue {
  const parsed = readYaml(yaml, lines.join('\n'))
  if ('value' in parsed && parsed.value !== null && typeof parsed.value === 'object') {
    const value = (parsed.value as Record<string, FrontmatterValue>)[key]
    if (value !== undefined && Object.keys(parsed.value).length === 1) return value
  }
  const first = (lines[0] ?? '').replace(/^[^:]*:/, '')
  return [first, ...lines.slice(1)]
    .join('\n')
    .replace(/^\s+|\s+$/g, '')
    .replace(/\n{3,}/g, '\n\n')
}
