import { findClosestRegion } from '../edit-closest.js'
import { fitLines, type LineKeys, type MatcherName, seekLines } from '../edit-matchers.js'
import { cutLine, numberLines } from '../numbered-lines.js'
import type { PatchChunk } from './parse.js'

/**
 * An Update File section's hunks applied to a file's text (LF), in order. Pure. Each hunk's `@@` lines
 * are found one after the other, then its old lines after them: exactly, else by Edit's tolerant line
 * matchers (trailing whitespace, indentation, trimmed lines, typographic punctuation). A hunk's lines
 * that fit several places are an error naming the hunk — unless an `@@` line placed it, when the first
 * place after that line is the one (that is what `@@` lines are for).
 */

/** A hunk that cannot be applied: which one, and why. */
export class HunkError extends Error {
  constructor(
    message: string,
    readonly reason: 'not-found' | 'ambiguous' | 'order',
    readonly hunk: number,
    readonly line: number,
  ) {
    super(message)
    this.name = 'HunkError'
  }
}

export interface AppliedChunks {
  text: string
  /** The tolerant matcher each hunk needed, by hunk number (1-based), when one did. */
  tolerant: Array<{ hunk: number; matcher: MatcherName }>
}

interface Replacement {
  start: number
  length: number
  lines: string[]
}

/** Lines listed in a message at most. */
const SHOWN_PLACES = 5

export function applyChunks(text: string, chunks: readonly PatchChunk[], file: string): AppliedChunks {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const replacements: Replacement[] = []
  const tolerant: AppliedChunks['tolerant'] = []
  // `lines` stays the original text until the end, so the matchers' line keys are worked out once.
  const keys: LineKeys = new Map()
  let cursor = 0
  chunks.forEach((chunk, index) => {
    const hunk = index + 1
    const where = `${file}, hunk ${hunk} (patch line ${chunk.line})`
    const fail = (reason: HunkError['reason'], message: string) =>
      new HunkError(`${where}: ${message}`, reason, hunk, chunk.line)
    for (const anchor of chunk.anchors) {
      const found = seekLines(lines, [anchor], cursor, { keys })
      if (!found.ok) {
        const earlier = seekLines(lines, [anchor], 0, { keys }).ok
        throw fail(
          earlier ? 'order' : 'not-found',
          earlier
            ? `its @@ line "${cut(anchor)}" is only found before line ${cursor + 1}, where the previous hunk or @@ line left off; hunks must be in file order`
            : `its @@ line "${cut(anchor)}" was not found${cursor > 0 ? ` after line ${cursor}` : ''}`,
        )
      }
      if (found.starts.length > 1) {
        throw fail(
          'ambiguous',
          `its @@ line "${cut(anchor)}" matches ${found.starts.length} lines (${places(found.starts)}); add an @@ line before it that names the enclosing class or function, or use a line that occurs once`,
        )
      }
      cursor = (found.starts[0] ?? 0) + 1
    }
    if (chunk.oldLines.length === 0) {
      // Only added lines: after the @@ line that placed them, else at the end of the file.
      const at = chunk.anchors.length > 0 && !chunk.endOfFile ? cursor : lines.length
      replacements.push({ start: at, length: 0, lines: [...chunk.newLines] })
      return
    }
    let old = chunk.oldLines
    let next = chunk.newLines
    let found = locate(lines, old, cursor, chunk.endOfFile, keys)
    // A last empty line is often the file's final newline, which the lines here do not hold.
    if (!found.ok && old.at(-1) === '') {
      old = old.slice(0, -1)
      next = next.at(-1) === '' ? next.slice(0, -1) : next
      found = old.length === 0 ? found : locate(lines, old, cursor, chunk.endOfFile, keys)
    }
    if (!found.ok) {
      const earlier = cursor > 0 && seekLines(lines, old, 0, { keys }).ok
      throw fail(
        earlier ? 'order' : 'not-found',
        earlier
          ? `its lines are only found before line ${cursor + 1}, where the previous hunk left off; hunks must be in file order`
          : notFoundMessage(lines, chunk.oldLines, cursor),
      )
    }
    if (found.starts.length > 1 && chunk.anchors.length === 0 && !chunk.endOfFile) {
      throw fail(
        'ambiguous',
        `its lines match ${found.starts.length} places (${places(found.starts)})${cursor > 0 ? ` after line ${cursor}` : ''}; add an @@ line naming the function or class it is in, or more context lines, so it matches one`,
      )
    }
    const start = found.starts[0] ?? 0
    if (found.matcher !== 'exact') tolerant.push({ hunk, matcher: found.matcher })
    const region = lines.slice(start, start + old.length)
    replacements.push({ start, length: old.length, lines: fitLines(found.matcher, next, region, old) })
    cursor = start + old.length
  })
  // Pure additions at the end sort after the replacements before them; ties keep the patch's order.
  const ordered = replacements.map((r, i) => ({ r, i })).sort((a, b) => a.r.start - b.r.start || a.i - b.i)
  const out: string[] = []
  let at = 0
  for (const { r } of ordered) {
    out.push(...lines.slice(at, r.start), ...r.lines)
    at = Math.max(at, r.start + r.length)
  }
  out.push(...lines.slice(at))
  return { text: out.length === 0 ? '' : `${out.join('\n')}\n`, tolerant }
}

/** The old lines at the end of the file (`*** End of File`), else anywhere after `from`. */
function locate(
  lines: readonly string[],
  old: readonly string[],
  from: number,
  endOfFile: boolean,
  keys: LineKeys,
) {
  if (endOfFile) {
    const atEnd = seekLines(lines, old, from, { at: lines.length - old.length, keys })
    if (atEnd.ok) return atEnd
  }
  return seekLines(lines, old, from, { keys })
}

function notFoundMessage(lines: readonly string[], old: readonly string[], cursor: number): string {
  const expected = old.slice(0, 12).map((l) => `  ${cut(l)}`)
  const more = old.length > 12 ? [`  … ${old.length - 12} more lines`] : []
  let message = `its lines were not found${cursor > 0 ? ` after line ${cursor}` : ''}:\n${[...expected, ...more].join('\n')}`
  const closest = findClosestRegion(lines.join('\n'), old.join('\n'))
  if (closest && closest.similarity >= 0.3) {
    const end = closest.startLine + closest.lines.length - 1
    const shown = closest.lines.slice(0, 30).map((l) => cutLine(l, l.length, 300))
    message += `\nThe most similar region (lines ${closest.startLine}–${end}, ${Math.round(closest.similarity * 100)}% similar) is:\n${numberLines(shown, closest.startLine)}`
  }
  return message
}

function places(starts: readonly number[]): string {
  const shown = starts.slice(0, SHOWN_PLACES).map((s) => s + 1)
  const more = starts.length > SHOWN_PLACES ? `, … ${starts.length - SHOWN_PLACES} more` : ''
  return `line${starts.length === 1 ? '' : 's'} ${shown.join(', ')}${more}`
}

function cut(line: string): string {
  return line.length > 120 ? `${line.slice(0, 117)}…` : line
}
