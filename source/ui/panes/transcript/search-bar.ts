import stringWidth from 'string-width'
import { cleanText, TITLE } from '../../../util/display-text.js'
import type { Theme } from '../../components/theme.js'
import { matchLabel } from './search-match.js'
import type { SearchPhase } from './search-model.js'

export interface SearchBarState {
  phase: SearchPhase
  query: string
  current: number
  count: number
  /** Folded blocks shown unfolded because they hold a match. */
  opened: number
}

const HINTS: Record<Exclude<SearchPhase, 'closed'>, string> = {
  field: 'Enter/↓ next · ↑ previous · Tab n/N · Esc close',
  transcript: 'n/N next/previous · / edit · Esc close',
}

/** What stays when the row is short of room: how to leave. */
const CLOSE = 'Esc close'

/**
 * The search's status row, under the transcript: `/query`, "match 3 of 17", the folded blocks it opened and
 * the keys. At most `width` columns: the keys but Esc go first, then the folded count, then the query's start.
 */
export function searchBar(state: SearchBarState, width: number, theme: Theme): string {
  if (state.phase === 'closed' || width <= 0) return ''
  const field = state.phase === 'field'
  const label = matchLabel(state.query, state.current, state.count)
  const opened = state.opened > 0 ? `${state.opened} folded block${state.opened === 1 ? '' : 's'} opened` : ''
  const query = cleanText(state.query, TITLE)
  const prefix = ' / '
  const cursor = field ? 1 : 0
  const tails = [[label, opened, HINTS[state.phase]], [label, opened, CLOSE], [label, CLOSE], [label]].map(
    (parts) => parts.filter((p) => p !== '').join(' · '),
  )
  const fixed = (tail: string) => stringWidth(prefix) + cursor + 2 + stringWidth(tail)
  // The query keeps a dozen columns at least (its end) before the keys give way.
  const room = Math.min(stringWidth(query), 12)
  const tail = tails.find((t) => fixed(t) + room <= width) ?? tails.at(-1) ?? ''
  const shown = keepEnd(query, Math.max(0, width - fixed(tail)))
  const row =
    theme.hint(prefix) +
    shown +
    (field ? theme.chalk.inverse(' ') : '') +
    '  ' +
    (state.count === 0 && state.query !== '' ? theme.notice.warn(label) : theme.bold(label)) +
    theme.dim(tail.slice(label.length))
  return stringWidth(row) <= width ? row : keepStart(row, width)
}

/** The end of `text` in at most `room` columns (the end of a query is what was just typed). */
function keepEnd(text: string, room: number): string {
  if (stringWidth(text) <= room) return text
  const chars = [...text]
  let out = ''
  for (let i = chars.length - 1; i >= 0; i--) {
    const next = (chars[i] ?? '') + out
    if (stringWidth(next) + 1 > room) break
    out = next
  }
  return room > 0 ? `…${out}` : ''
}

/** A styled row cut to `width` columns (the narrowest terminals only). */
function keepStart(row: string, width: number): string {
  let out = ''
  let used = 0
  for (const part of row.split(/(\x1b\[[0-9;]*m)/)) {
    if (part.startsWith('\x1b[')) {
      out += part
      continue
    }
    for (const char of part) {
      const w = stringWidth(char)
      if (used + w > width) return `${out}\x1b[0m`
      out += char
      used += w
    }
  }
  return out
}
