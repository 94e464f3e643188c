import type { Theme } from '../../components/theme.js'
import { ESCAPE } from './search-match.js'

/** The SGR codes that open a highlight; it is closed with a reset and the row's own styling replayed. */
export interface SearchStyles {
  match: string
  current: string
}

const INVERSE = '\x1b[7m'
const UNDERLINE = '\x1b[4m'
const RESET = '\x1b[0m'

/**
 * The search highlight's colours: the palette's `matchCurrent` for the current match, `match` for the
 * others (each theme picks a pair readable on its own, high-contrast included). Without colour (NO_COLOR, a
 * dumb terminal) the current one is inverse and the others underlined, so a search still shows where its
 * matches are and which one `n`/`N` is on.
 */
export function searchStyles(theme: Theme): SearchStyles {
  const match = openCodes(theme.match('\0'))
  const current = openCodes(theme.matchCurrent('\0'))
  if (match === '' || current === '' || current === match)
    return { current: INVERSE, match: match || UNDERLINE }
  return { current, match }
}

/** What a style writes before its text. */
function openCodes(styled: string): string {
  return styled.slice(0, Math.max(0, styled.indexOf('\0')))
}

/**
 * Marks `ranges` (indices into the row's plain text, sorted, not overlapping) in a rendered row without
 * losing its own styling: inside a range the highlight is opened again after each of the row's SGR codes
 * (a colour change must not end it), and after a range a reset replays the row's SGR codes seen so far.
 */
export function highlightLine(
  line: string,
  ranges: readonly (readonly [number, number])[],
  current: number,
  styles: SearchStyles,
): string {
  if (ranges.length === 0) return line
  let out = ''
  let sgr = ''
  let plain = 0
  let r = 0
  let open: string | null = null
  const boundary = () => {
    // Close a range that ends here, then open one that starts here (ranges may touch).
    const range = ranges[r]
    if (open !== null && range && plain >= range[1]) {
      out += RESET + sgr
      open = null
      r++
    }
    const next = ranges[r]
    if (open === null && next && plain >= next[0]) {
      open = r === current ? styles.current : styles.match
      out += open
    }
  }
  let last = 0
  const emitText = (text: string) => {
    for (const char of text) {
      boundary()
      out += char
      plain += char.length
    }
  }
  for (const m of line.matchAll(ESCAPE)) {
    emitText(line.slice(last, m.index))
    boundary()
    out += m[0]
    if (m[0].endsWith('m') && m[0].startsWith('\x1b[')) {
      // A reset forgets what came before it: replaying from there is enough.
      sgr = m[0] === RESET || m[0] === '\x1b[m' ? '' : sgr + m[0]
      if (open !== null) out += open
    }
    last = m.index + m[0].length
  }
  emitText(line.slice(last))
  boundary()
  if (open !== null) out += RESET + sgr
  return out
}
