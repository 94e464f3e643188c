import { Box, type Key, useInput } from 'ink'
import { Text } from './components/text.js'
import { useRef, useState } from 'react'
import type { SessionSummary } from '../agent/runtime/commands.js'
import { KEY_PRIORITY, useKeyHandler } from './keys/dispatcher.js'

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
 * The list of sessions to resume: ↑/↓ (or k/j) move, PgUp/PgDn jump a page, Home/End, Enter resumes the
 * selected session, Esc / q / Ctrl+C leave without resuming. A bare `--resume` mounts it on its own,
 * before the session exists, so it reads keys itself; `/resume` shows it inside the app, where keys come
 * through the app's dispatcher (`SessionPickerOverlay`).
 */
export function SessionPicker(props: SessionPickerProps) {
  const picker = usePicker(props)
  useInput(picker.onKey)
  return <SessionList {...props} selected={picker.selected} />
}

/** The same picker in the app's overlay slot: it takes every key while open. */
export function SessionPickerOverlay(props: SessionPickerProps) {
  const picker = usePicker(props)
  useKeyHandler(KEY_PRIORITY.overlay, (ev) => {
    picker.onKey(ev.input, ev.key)
    return true
  })
  return <SessionList {...props} selected={picker.selected} />
}

function usePicker({ sessions, rows, onDone }: SessionPickerProps) {
  const [selected, setSelected] = useState(0)
  // Keys can arrive faster than renders (a paste, a fast typist): each must see the one before it.
  const current = useRef(0)
  const last = sessions.length - 1
  const page = Math.max(1, rows)
  const onKey = (input: string, key: Key) => {
    if (key.escape || input === 'q' || (key.ctrl && input === 'c')) return onDone(null)
    if (key.return) return onDone(sessions[current.current]?.id ?? null)
    const at = current.current
    const move = (to: number) => {
      current.current = Math.max(0, Math.min(last, to))
      setSelected(current.current)
    }
    if (key.upArrow || input === 'k') move(at - 1)
    else if (key.downArrow || input === 'j') move(at + 1)
    else if (key.pageUp) move(at - page)
    else if (key.pageDown) move(at + page)
    else if (key.home) move(0)
    else if (key.end) move(last)
  }
  return { selected, onKey }
}

function SessionList({ sessions, now, rows, selected }: SessionPickerProps & { selected: number }) {
  const page = Math.max(1, rows)
  const top = Math.min(Math.max(0, selected - page + 1), Math.max(0, sessions.length - page))
  const shown = sessions.slice(top, top + page)
  return (
    <Box flexDirection="column" paddingX={1}>
      <Text bold>Resume a session of this directory</Text>
      <Text dimColor>
        ↑/↓ select · Enter resume · Esc cancel · {sessions.length} session{sessions.length === 1 ? '' : 's'}
      </Text>
      <Text> </Text>
      {shown.map((session, i) => {
        const isSelected = top + i === selected
        return (
          <Box key={session.id}>
            <Text color={isSelected ? 'cyan' : undefined} bold={isSelected} wrap="truncate">
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
