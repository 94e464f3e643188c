import stringWidth from 'string-width'
import wrapAnsi from 'wrap-ansi'

/**
 * The keys overlay's two columns: a key (or a command's usage) and its description. Laid out per width, so
 * a description always continues in its own column, never back under the keys: a label too long for the key
 * column gets a line of its own, with its description below it in the description column.
 */

/** Room always left to descriptions (at 80 columns the key column stays as wide as the common labels). */
const MIN_DESCRIPTION = 40
/** Wider than this, a key column only pushes descriptions away: longer labels get their own line. */
const MAX_KEY_COLUMN = 34
const INDENT = 2
const GAP = 2

/** The key column's width for these labels at this overlay width: the longest label that fits the cap. */
export function keyColumnWidth(labels: readonly string[], width: number): number {
  const cap = Math.max(4, Math.min(MAX_KEY_COLUMN, width - INDENT - GAP - MIN_DESCRIPTION))
  const fitting = labels.map((l) => stringWidth(l)).filter((w) => w <= cap)
  return fitting.length > 0 ? Math.max(...fitting) : cap
}

/** One entry as rows of at most `width` columns: the description wrapped in its column. */
export function layoutEntry(key: string, description: string, keyWidth: number, width: number): string[] {
  const column = INDENT + keyWidth + GAP
  const room = Math.max(1, width - column)
  const body = description === '' ? [''] : wrapAnsi(description, room, { hard: true, trim: true }).split('\n')
  const pad = ' '.repeat(column)
  const keyWide = stringWidth(key)
  if (keyWide <= keyWidth) {
    const first = `${' '.repeat(INDENT)}${key}${' '.repeat(keyWidth - keyWide + GAP)}${body[0] ?? ''}`
    return [first.trimEnd(), ...body.slice(1).map((row) => pad + row)]
  }
  // The label on its own line (wrapped if even the whole width cannot hold it), the description under its column.
  const keyRows = wrapAnsi(key, Math.max(1, width - INDENT), { hard: true }).split('\n')
  return [...keyRows.map((row) => ' '.repeat(INDENT) + row), ...body.map((row) => pad + row)]
}
