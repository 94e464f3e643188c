import { Box, type Key, useInput } from 'ink'
import { Text } from './components/text.js'
import { useEffect, useRef, useState } from 'react'
import type { SessionSummary } from '../agent/runtime/commands.js'
import { filterSessions } from '../session/session-search.js'
import { KEY_PRIORITY, useKeyHandler } from './keys/dispatcher.js'
import { useTheme } from './components/theme-context.js'

/** How long typing pauses before the logs are searched (each keystroke restarts it). */
const CONTENT_SEARCH_DELAY_MS = 250

export interface SessionPickerProps {
  /** Newest first. */
  sessions: readonly SessionSummary[]
  now: number
  /** Rows of sessions shown at once; the list scrolls with the selection. */
  rows: number
  /** The picked session's id, or null when the user backed out. */
  onDone(id: string | null): void
}

/**
 * The list of sessions to resume: typing filters it by title and id at once, and by what was said in the
 * sessions once typing pauses (session-search.ts, bounded); Backspace / Ctrl+U edit the filter; ↑/↓ move,
 * PgUp/PgDn jump a page, Home/End, Enter resumes the selected session, Esc / Ctrl+C leave without resuming. A bare `--resume` mounts it on its own,
 * before the session exists, so it reads keys itself; `/resume` shows it inside the app, where keys come
 * through the app's dispatcher (`SessionPickerOverlay`).
 */
export function SessionPicker(props: SessionPickerProps) {
  const picker = usePicker(props)
  useInput(picker.onKey)
  return <SessionList {...props} {...picker} />
}

/** The same picker in the app's overlay slot: it takes every key while open. */
export function SessionPickerOverlay(props: SessionPickerProps) {
  const picker = usePicker(props)
  useKeyHandler(KEY_PRIORITY.overlay, (ev) => {
    picker.onKey(ev.input, ev.key)
    return true
  })
  return <SessionList {...props} {...picker} />
}

function usePicker({ sessions, rows, onDone }: SessionPickerProps) {
  const [selected, setSelected] = useState(0)
  const [query, setQuery] = useState('')
  const [content, setContent] = useState<{ query: string; ids: ReadonlySet<string>; done: boolean }>()
  // Keys can arrive faster than renders (a paste, a fast typist): each must see the one before it.
  const current = useRef(0)
  const typed = useRef('')
  const matches = content?.query === query ? content.ids : undefined
  const shown = filterSessions(sessions, query, matches)
  const shownRef = useRef(shown)
  shownRef.current = shown
  useEffect(() => {
    if (!query.trim()) return
    const abort = new AbortController()
    const timer = setTimeout(() => {
      const ids = new Set<string>()
      void import('../session/session-search.js').then(({ searchSessionContent }) =>
        searchSessionContent(sessions, query, {
          signal: abort.signal,
          onMatch(id) {
            ids.add(id)
            if (!abort.signal.aborted) setContent({ query, ids: new Set(ids), done: false })
          },
        }).then(() => {
          if (!abort.signal.aborted) setContent({ query, ids, done: true })
        }),
      )
    }, CONTENT_SEARCH_DELAY_MS)
    return () => {
      clearTimeout(timer)
      abort.abort()
    }
  }, [query, sessions])
  const page = Math.max(1, rows)
  const move = (to: number) => {
    current.current = Math.max(0, Math.min(shownRef.current.length - 1, to))
    setSelected(current.current)
  }
  const edit = (next: string) => {
    typed.current = next
    setQuery(next)
    current.current = 0
    setSelected(0)
  }
  const onKey = (input: string, key: Key) => {
    if (key.escape || (key.ctrl && input === 'c')) return onDone(null)
    if (key.return) return onDone(shownRef.current[current.current]?.id ?? null)
    const at = current.current
    const last = shownRef.current.length - 1
    if (key.upArrow) move(at - 1)
    else if (key.downArrow) move(at + 1)
    else if (key.pageUp) move(at - page)
    else if (key.pageDown) move(at + page)
    else if (key.home) move(0)
    else if (key.end) move(last)
    else if (key.backspace || key.delete) edit([...typed.current].slice(0, -1).join(''))
    else if (key.ctrl && input === 'u') edit('')
    else if (!key.ctrl && !key.meta && input && !/[\u0000-\u001f]/.test(input)) edit(typed.current + input)
  }
  const searching = query.trim() !== '' && !(content?.query === query && content.done)
  return { selected, onKey, query, shown, searching }
}

interface ListState {
  selected: number
  query: string
  shown: readonly SessionSummary[]
  searching: boolean
}

function SessionList({
  sessions: all,
  now,
  rows,
  selected,
  query,
  shown: sessions,
  searching,
}: SessionPickerProps & ListState) {
  const { palette: p } = useTheme()
  const page = Math.max(1, rows)
  const top = Math.min(Math.max(0, selected - page + 1), Math.max(0, sessions.length - page))
  const shown = sessions.slice(top, top + page)
  return (
    <Box flexDirection="column" paddingX={1}>
      <Text bold>Resume a session of this directory</Text>
      <Text dimColor wrap="truncate">
        type to search · ↑/↓ select · Enter resume · Esc cancel ·{' '}
        {query ? `${sessions.length} of ${all.length}` : all.length} session{all.length === 1 ? '' : 's'}
      </Text>
      <Text wrap="truncate">
        <Text color={p.accent}>Search: </Text>
        {query}
        <Text dimColor>
          {query ? (searching ? '  searching what was said…' : '') : ' title, id or what was said'}
        </Text>
      </Text>
      {query && sessions.length === 0 && !searching ? (
        <Text dimColor> No session matches "{query}"</Text>
      ) : null}
      {shown.map((session, i) => {
        const isSelected = top + i === selected
        return (
          <Box key={session.id}>
            <Text color={isSelected ? p.accent : undefined} bold={isSelected} wrap="truncate">
              {isSelected ? '❯ ' : '  '}
              {ago(now - session.updatedAt).padEnd(9)}
              {session.title || <Text dimColor>(no prompt)</Text>}
              <Text dimColor> {session.id}</Text>
            </Text>
          </Box>
        )
      })}
      {top + page < sessions.length ? <Text dimColor> … {sessions.length - top - page} more</Text> : null}
    </Box>
  )
}

/** How long ago, in a 9-column field: "just now", "5 min", "3 h", "2 d". */
export function ago(ms: number): string {
  const minutes = Math.floor(ms / 60_000)
  if (minutes < 1) return 'just now'
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return `${hours} h`
  return `${Math.floor(hours / 24)} d`
}
