/**
 * Pure matching logic for Edit, MultiEdit and apply_patch: exact replacement first, then tolerant
 * matchers for the ways models typically misquote code. A tolerant matcher applies only when it finds
 * exactly one region.
 */

export type MatcherName =
  | 'exact'
  | 'trailing-whitespace'
  | 'indentation-relative'
  | 'line-trimmed'
  | 'unicode-punctuation'
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
  /** What a line must equal for any match to start there (a cheap test before `matches`). */
  key(line: string): string
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

const trimmed = (line: string): string => line.trim()

/**
 * Typographic punctuation a model types as ASCII (or the other way round): dashes and the minus sign,
 * curly quotes, and the odd spaces (no-break, thin, ideographic…), trimmed. The same set Codex's
 * apply_patch forgives, so a patch written for it applies here too.
 */
export function plainPunctuation(line: string): string {
  return line
    .trim()
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/[\u2018-\u201B]/g, "'")
    .replace(/[\u201C-\u201F]/g, '"')
    .replace(/[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, ' ')
}

const LINE_MATCHERS: LineMatcher[] = [
  {
    name: 'trailing-whitespace',
    key: trimmed,
    matches: (region, old) => region.every((l, i) => l.trimEnd() === old[i]?.trimEnd()),
    rewrite: (newString) => newString,
  },
  {
    name: 'indentation-relative',
    key: trimmed,
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
    key: trimmed,
    matches: (region, old) => region.every((l, i) => l.trim() === old[i]?.trim()),
    rewrite: (newString, region, old) => reindent(newString, firstIndent(old), firstIndent(region)),
  },
  {
    name: 'unicode-punctuation',
    key: plainPunctuation,
    matches: (region, old) => region.every((l, i) => plainPunctuation(l) === plainPunctuation(old[i] ?? '')),
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

function findRegions(
  content: readonly string[],
  old: readonly string[],
  matcher: LineMatcher,
  from = 0,
  keys?: LineKeys,
): Region[] {
  const regions: Region[] = []
  const first = matcher.key(old[0] ?? '')
  let known = keys?.get(matcher.name)
  if (keys && !known) {
    known = content.map((line) => matcher.key(line))
    keys.set(matcher.name, known)
  }
  for (let s = from; s + old.length <= content.length; s++) {
    // Every matcher implies equal keys of the first line, so this cheap test skips most starts.
    if ((known ? known[s] : matcher.key(content[s] ?? '')) !== first) continue
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

/** Where a run of lines was found (apply_patch's hunks): by which pass, and every start that pass found. */
export type LineSeek = { ok: true; matcher: MatcherName; starts: number[] } | { ok: false }

/**
 * Each tolerant matcher's key of every line of one content, kept by the caller while the content does not
 * change (the hunks of one file are all sought in its original lines).
 */
export type LineKeys = Map<MatcherName, string[]>

/**
 * Finds the lines `old` in `content` at or after line `from` (only at line `at` when given): exactly
 * first, then by the tolerant line matchers in Edit's order; the first pass that finds anything decides,
 * and gives every non-overlapping start it found (the caller judges ambiguity). Lines that are all blank
 * only match exactly.
 */
export function seekLines(
  content: readonly string[],
  old: readonly string[],
  from: number,
  opts: { at?: number; keys?: LineKeys } = {},
): LineSeek {
  const { at, keys } = opts
  if (old.length === 0 || old.length > content.length || (at !== undefined && at < from)) return { ok: false }
  const fits = (s: number) => at === undefined || s === at
  const exact: number[] = []
  const first = old[0]
  for (let s = at ?? from; s + old.length <= content.length && fits(s); s++) {
    // The first line alone rules out almost every start, without a closure per start.
    if (content[s] !== first) continue
    if (old.every((line, i) => content[s + i] === line)) {
      exact.push(s)
      s += old.length - 1
    }
  }
  if (exact.length > 0) return { ok: true, matcher: 'exact', starts: exact }
  if (old.every(isBlank)) return { ok: false }
  for (const matcher of LINE_MATCHERS) {
    const starts = findRegions(content, old, matcher, at ?? from, keys)
      .map((r) => r.start)
      .filter(fits)
    if (starts.length > 0) return { ok: true, matcher: matcher.name, starts }
  }
  return { ok: false }
}

/**
 * The replacement lines for a region a tolerant matcher found: re-indented the way Edit re-indents
 * `new_string` (the exact and whitespace-only matches keep them as written).
 */
export function fitLines(
  matcher: MatcherName,
  next: readonly string[],
  region: readonly string[],
  old: readonly string[],
): string[] {
  const rule = LINE_MATCHERS.find((m) => m.name === matcher)
  if (!rule || next.length === 0) return [...next]
  return rule.rewrite(next.join('\n'), region, old).split('\n')
}
