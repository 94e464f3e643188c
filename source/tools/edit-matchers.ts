/**
 * Pure matching logic for Edit: exact replacement first, then tolerant matchers for the ways models
 * typically misquote code. A tolerant matcher applies only when it finds exactly one region.
 */

export type MatcherName =
  | 'exact'
  | 'trailing-whitespace'
  | 'indentation-relative'
  | 'line-trimmed'
  | 'escaped-newline'

/** A replacement of `content.slice(start, end)` by `text`. */
export interface Replacement {
  start: number
  end: number
  text: string
}

export type EditPlan =
  | { ok: true; matcher: MatcherName; content: string; replacements: Replacement[] }
  | { ok: false; reason: 'not-found' }
  | { ok: false; reason: 'ambiguous'; matcher: MatcherName; count: number }

interface Region {
  /** First line index (0-based) and one past the last. */
  start: number
  end: number
}

interface LineMatcher {
  name: MatcherName
  matches(region: readonly string[], old: readonly string[]): boolean
  rewrite(newString: string, region: readonly string[], old: readonly string[]): string
}

const isBlank = (line: string): boolean => line.trim() === ''
const leading = (line: string): string => /^[ \t]*/.exec(line)?.[0] ?? ''

/** The leading whitespace shared by all non-blank lines (the shortest one, which the others extend). */
function baseIndent(lines: readonly string[]): string | undefined {
  let base: string | undefined
  for (const line of lines) {
    if (isBlank(line)) continue
    const ws = leading(line)
    if (base === undefined || ws.length < base.length) base = ws
  }
  if (base === undefined) return undefined
  const b = base
  return lines.every((l) => isBlank(l) || l.startsWith(b)) ? b : undefined
}

/** Moves `text` from indentation `from` to indentation `to`, line by line. */
function reindent(text: string, from: string, to: string): string {
  if (from === to) return text
  return text
    .split('\n')
    .map((line) => {
      if (isBlank(line)) return line
      if (line.startsWith(from)) return to + line.slice(from.length)
      // Less indented than the old base: only adding indentation can be done safely.
      return to.startsWith(from) ? to.slice(from.length) + line : line
    })
    .join('\n')
}

function firstIndent(lines: readonly string[]): string {
  return leading(lines.find((l) => !isBlank(l)) ?? '')
}

const LINE_MATCHERS: LineMatcher[] = [
  {
    name: 'trailing-whitespace',
    matches: (region, old) => region.every((l, i) => l.trimEnd() === old[i]?.trimEnd()),
    rewrite: (newString) => newString,
  },
  {
    name: 'indentation-relative',
    matches(region, old) {
      const r = baseIndent(region)
      const o = baseIndent(old)
      if (r === undefined || o === undefined || r === o) return false
      return region.every((l, i) => {
        const ol = old[i] ?? ''
        if (isBlank(l) || isBlank(ol)) return isBlank(l) && isBlank(ol)
        return l.slice(r.length).trimEnd() === ol.slice(o.length).trimEnd()
      })
    },
    rewrite: (newString, region, old) => reindent(newString, baseIndent(old) ?? '', baseIndent(region) ?? ''),
  },
  {
    name: 'line-trimmed',
    matches: (region, old) => region.every((l, i) => l.trim() === old[i]?.trim()),
    rewrite: (newString, region, old) => reindent(newString, firstIndent(old), firstIndent(region)),
  },
]

/**
 * Plans the replacement of `oldString` by `newString` in `content` (all LF text). Exact matches must be
 * unique unless `replaceAll`; when there is none, the tolerant matchers run in order and the first that
 * finds anything decides: one region is applied, several are refused as ambiguous.
 */
export function planEdit(
  content: string,
  oldString: string,
  newString: string,
  replaceAll: boolean,
): EditPlan {
  const exact = occurrences(content, oldString)
  if (exact.length > 0) {
    if (exact.length > 1 && !replaceAll)
      return { ok: false, reason: 'ambiguous', matcher: 'exact', count: exact.length }
    const replacements = exact.map((start) => ({ start, end: start + oldString.length, text: newString }))
    return { ok: true, matcher: 'exact', content: apply(content, replacements), replacements }
  }

  const oldLines = splitLines(oldString)
  if (oldLines.lines.some((l) => !isBlank(l))) {
    const contentLines = content.split('\n')
    const lineStarts = startsOf(contentLines)
    for (const matcher of LINE_MATCHERS) {
      const regions = findRegions(contentLines, oldLines.lines, matcher)
      if (regions.length > 1)
        return { ok: false, reason: 'ambiguous', matcher: matcher.name, count: regions.length }
      const region = regions[0]
      if (!region) continue
      const regionLines = contentLines.slice(region.start, region.end)
      const start = lineStarts[region.start] ?? 0
      let end = (lineStarts[region.end - 1] ?? 0) + (contentLines[region.end - 1] ?? '').length
      // old_string ended with a newline: the line break after the region belongs to the match.
      if (oldLines.trailingNewline && region.end < contentLines.length) end += 1
      const replacements = [{ start, end, text: matcher.rewrite(newString, regionLines, oldLines.lines) }]
      return { ok: true, matcher: matcher.name, content: apply(content, replacements), replacements }
    }
  }

  const unescapedOld = unescapeModelText(oldString)
  if (unescapedOld !== oldString) {
    const found = occurrences(content, unescapedOld)
    if (found.length > 1)
      return { ok: false, reason: 'ambiguous', matcher: 'escaped-newline', count: found.length }
    if (found.length === 1) {
      const start = found[0] ?? 0
      const replacements = [{ start, end: start + unescapedOld.length, text: unescapeModelText(newString) }]
      return { ok: true, matcher: 'escaped-newline', content: apply(content, replacements), replacements }
    }
  }
  return { ok: false, reason: 'not-found' }
}

/** Start offsets of non-overlapping occurrences of `needle`. */
export function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = []
  if (needle === '') return found
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length))
    found.push(i)
  return found
}

function splitLines(text: string): { lines: string[]; trailingNewline: boolean } {
  const lines = text.split('\n')
  const trailingNewline = lines.length > 1 && lines[lines.length - 1] === ''
  if (trailingNewline) lines.pop()
  return { lines, trailingNewline }
}

function startsOf(lines: readonly string[]): number[] {
  const starts: number[] = []
  let at = 0
  for (const line of lines) {
    starts.push(at)
    at += line.length + 1
  }
  return starts
}

function findRegions(content: readonly string[], old: readonly string[], matcher: LineMatcher): Region[] {
  const regions: Region[] = []
  const first = old[0]?.trim() ?? ''
  for (let s = 0; s + old.length <= content.length; s++) {
    // Every matcher implies equal trimmed lines, so this cheap test skips most starts.
    if (content[s]?.trim() !== first) continue
    const region = content.slice(s, s + old.length)
    if (matcher.matches(region, old)) {
      regions.push({ start: s, end: s + old.length })
      s += old.length - 1
    }
  }
  return regions
}

/** Applies non-overlapping replacements given in ascending order. */
function apply(content: string, replacements: readonly Replacement[]): string {
  let out = ''
  let at = 0
  for (const r of replacements) {
    out += content.slice(at, r.start) + r.text
    at = r.end
  }
  return out + content.slice(at)
}

/** Undoes the JSON/string escaping a model sometimes applies twice: `\n`, `\t`, `\"`, `\'`, `\\`. */
export function unescapeModelText(text: string): string {
  return text.replace(/\\([ntr"'\\`$])/g, (_, c: string) => {
    switch (c) {
      case 'n':
        return '\n'
      case 't':
        return '\t'
      case 'r':
        return '\r'
      default:
        return c
    }
  })
}
