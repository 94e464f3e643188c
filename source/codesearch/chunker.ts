import { extname } from 'node:path'

/**
 * Cuts a text file into the pieces CodeSearch embeds. "By syntax" here means: for the languages in
 * DECLARATION_STARTS, a piece starts where a top-level declaration starts (a line at column 0 that a
 * per-language pattern recognises: `function`, `class`, `def`, `fn`, `func`, a Markdown heading…), with
 * the comments and decorators right above it; small neighbours are joined and long ones cut into line
 * windows. It is a line scanner, not a parser: a declaration inside a template string can start a piece,
 * and nested declarations stay in their parent's piece. Other files are cut into overlapping line windows.
 */

export interface Chunk {
  /** 1-based, inclusive. */
  startLine: number
  endLine: number
  text: string
}

export interface ChunkLimits {
  /** A piece longer than this is cut into windows. */
  maxLines: number
  maxChars: number
  /** Lines a window repeats from the one before it. */
  overlap: number
  /** Neighbouring declarations are joined while the result stays under this. */
  joinUnderLines: number
}

export const DEFAULT_LIMITS: ChunkLimits = { maxLines: 80, maxChars: 3000, overlap: 10, joinUnderLines: 30 }

const JS =
  /^(export\s+)?(default\s+)?(declare\s+)?(async\s+)?(function\*?|class|abstract\s+class|interface|type|enum|const|let|var|namespace|module)\b/
const PY = /^(async\s+def|def|class)\s/
const GO = /^(func|type|var|const)\b/
const RUST =
  /^(pub(\([^)]*\))?\s+)?(async\s+)?(unsafe\s+)?(fn|struct|enum|impl|trait|mod|const|static|type|union|macro_rules!)\b/
const JAVA_LIKE =
  /^(public|private|protected|internal|abstract|final|sealed|static|open|data|export)?\s*(class|interface|enum|record|object|fun|struct|namespace|def)\b/
// `static`, `inline` and `extern` are words the return type's class already takes: a group of its own
// before it made the pattern backtrack for seconds on a line of repeated `static `.
const C_LIKE =
  /^[A-Za-z_][\w\s*&:<>,]*\s[*&]?[A-Za-z_][\w:]*\s*\([^;]*$|^(struct|class|enum|union|typedef|namespace|template)\b/
/** Longer lines are never a declaration's first line here; the patterns are not run on them (their cost grows with the line). */
const MAX_DECLARATION_LINE = 300
const RUBY = /^(def|class|module)\s/
const PHP = /^(abstract\s+|final\s+)?(function|class|interface|trait|enum)\s/
const SHELL = /^(function\s+)?[A-Za-z_][\w-]*\s*\(\)\s*\{?/
const MARKDOWN = /^#{1,3}\s/

const DECLARATION_STARTS: Readonly<Record<string, RegExp>> = {
  '.ts': JS,
  '.tsx': JS,
  '.mts': JS,
  '.cts': JS,
  '.js': JS,
  '.jsx': JS,
  '.mjs': JS,
  '.cjs': JS,
  '.py': PY,
  '.go': GO,
  '.rs': RUST,
  '.java': JAVA_LIKE,
  '.kt': JAVA_LIKE,
  '.kts': JAVA_LIKE,
  '.scala': JAVA_LIKE,
  '.cs': JAVA_LIKE,
  '.swift': JAVA_LIKE,
  '.c': C_LIKE,
  '.h': C_LIKE,
  '.cc': C_LIKE,
  '.cpp': C_LIKE,
  '.hpp': C_LIKE,
  '.rb': RUBY,
  '.php': PHP,
  '.sh': SHELL,
  '.bash': SHELL,
  '.md': MARKDOWN,
  '.mdx': MARKDOWN,
}

/** Lines that belong to the declaration below them: comments, decorators, attributes. */
const LEADING = /^(\/\/|\/\*|\*|#\[|#!|@|"""|'''|--|;;)|^#(?!#)\s/

/** Whether the file's language has declaration patterns (else it is cut into windows only). */
export function hasSyntax(path: string): boolean {
  return DECLARATION_STARTS[extname(path).toLowerCase()] !== undefined
}

export function chunkText(path: string, text: string, limits: ChunkLimits = DEFAULT_LIMITS): Chunk[] {
  const lines = text.split(/\r?\n/)
  if (lines.length > 0 && lines.at(-1) === '') lines.pop()
  if (lines.length === 0 || text.trim() === '') return []
  const pattern = DECLARATION_STARTS[extname(path).toLowerCase()]
  const pieces: Range[] = pattern
    ? joinSmall(declarationPieces(lines, pattern), limits)
    : [[0, lines.length - 1]]
  const chunks: Chunk[] = []
  for (const [from, to] of pieces) {
    for (const [a, b] of windows(lines, from, to, limits)) {
      const body = lines.slice(a, b + 1).join('\n')
      if (body.trim() !== '') chunks.push({ startLine: a + 1, endLine: b + 1, text: body })
    }
  }
  return chunks
}

type Range = [number, number]

/** Ranges (0-based, inclusive) that start at a declaration, its leading comments included. */
function declarationPieces(lines: readonly string[], pattern: RegExp): Range[] {
  const starts: number[] = []
  for (let i = 0; i < lines.length; i++) {
    if (!startsDeclaration(pattern, lines[i] ?? '')) continue
    let at = i
    while (at > 0 && LEADING.test(lines[at - 1] ?? '') && !startsDeclaration(pattern, lines[at - 1] ?? ''))
      at--
    if (starts.at(-1) !== at) starts.push(at)
  }
  if (starts[0] !== 0) starts.unshift(0)
  return starts.map((s, k) => [s, (starts[k + 1] ?? lines.length) - 1] as Range).filter(([a, b]) => b >= a)
}

/** Joins neighbours while the joined piece stays short: one-line constants need not be a chunk each. */
function joinSmall(ranges: readonly Range[], limits: ChunkLimits): Range[] {
  const out: Range[] = []
  for (const range of ranges) {
    const last = out.at(-1)
    if (last && range[1] - last[0] + 1 <= limits.joinUnderLines) last[1] = range[1]
    else out.push([range[0], range[1]])
  }
  return out
}

/** A range as it is, or cut into windows of at most maxLines / maxChars, each repeating `overlap` lines. */
function windows(lines: readonly string[], from: number, to: number, limits: ChunkLimits): Range[] {
  const out: Range[] = []
  let a = from
  while (a <= to) {
    let b = a
    let chars = (lines[a] ?? '').length
    while (
      b < to &&
      b - a + 1 < limits.maxLines &&
      chars + (lines[b + 1] ?? '').length + 1 <= limits.maxChars
    ) {
      b++
      chars += (lines[b] ?? '').length + 1
    }
    out.push([a, b])
    if (b >= to) break
    a = Math.max(a + 1, b + 1 - limits.overlap)
  }
  return out
}

function startsDeclaration(pattern: RegExp, line: string): boolean {
  return line.length <= MAX_DECLARATION_LINE && pattern.test(line)
}
