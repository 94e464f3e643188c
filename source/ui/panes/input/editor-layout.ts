import stringWidth from 'string-width'

export interface EditorLayout {
  /** Visual rows after wrapping, without the caret. */
  rows: string[]
  caretRow: number
  /** Index into `rows[caretRow]` (code units) where the caret sits. */
  caretIndex: number
}

/**
 * Wraps the editor text to `width` columns by display width (CJK and emoji count double) and finds the
 * caret's visual row. Character wrap, not word wrap: the caret must map to one cell predictably.
 */
export function layoutEditor(text: string, cursor: number, width: number): EditorLayout {
  const w = Math.max(2, width)
  const rows: string[] = []
  let caretRow = 0
  let caretIndex = 0
  let offset = 0
  for (const line of text.split('\n')) {
    let row = ''
    let rowWidth = 0
    let rowStart = offset
    const chars = [...line]
    const flush = () => {
      rows.push(row)
      row = ''
      rowWidth = 0
    }
    for (const ch of chars) {
      const cw = stringWidth(ch)
      // Leave one cell free at the end of a row so a caret after the last character still fits.
      if (rowWidth + cw > w - 1) {
        flush()
        rowStart = offset
      }
      if (offset === cursor) {
        caretRow = rows.length
        caretIndex = offset - rowStart
      }
      row += ch
      rowWidth += cw
      offset += ch.length
    }
    if (offset === cursor) {
      caretRow = rows.length
      caretIndex = offset - rowStart
    }
    flush()
    offset += 1 // the "\n"
  }
  return { rows, caretRow, caretIndex }
}

/** The window of `maxRows` rows that keeps the caret visible (caret near the bottom when scrolling). */
export function visibleWindow(layout: EditorLayout, maxRows: number): { start: number; end: number } {
  const total = layout.rows.length
  if (total <= maxRows) return { start: 0, end: total }
  const start = Math.min(Math.max(0, layout.caretRow - maxRows + 1), total - maxRows)
  return { start, end: start + maxRows }
}

/** A piece of an editor row: an `@path` mention is drawn as a chip, the caret's character inverted. */
export interface RowSegment {
  text: string
  mention: boolean
  caret: boolean
}

/** Splits a row into plain text, `@path` mentions and the caret's character (at `caretIndex`, if any). */
export function rowSegments(row: string, caretIndex: number | null): RowSegment[] {
  const cuts = new Set<number>([0, row.length])
  const mentions: Array<[number, number]> = []
  for (const m of row.matchAll(/(^|\s)(@(?:\\ |[^\s@])+)/g)) {
    const start = (m.index ?? 0) + (m[1] ?? '').length
    mentions.push([start, start + (m[2] ?? '').length])
    cuts.add(start).add(start + (m[2] ?? '').length)
  }
  let caretEnd = -1
  if (caretIndex !== null) {
    const cp = row.codePointAt(caretIndex)
    caretEnd = caretIndex + (cp === undefined ? 0 : String.fromCodePoint(cp).length)
    cuts.add(caretIndex).add(caretEnd)
  }
  const points = [...cuts].filter((p) => p <= row.length).sort((a, b) => a - b)
  const segments: RowSegment[] = []
  for (let i = 0; i < points.length - 1; i++) {
    const [from, to] = [points[i] as number, points[i + 1] as number]
    segments.push({
      text: row.slice(from, to),
      mention: mentions.some(([a, b]) => from >= a && to <= b),
      caret: caretIndex !== null && from === caretIndex,
    })
  }
  // A caret after the last character sits on a blank cell.
  if (caretIndex !== null && caretIndex >= row.length)
    segments.push({ text: ' ', mention: false, caret: true })
  return segments
}
