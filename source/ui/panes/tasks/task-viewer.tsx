import { Box } from 'ink'
import { Text } from '../../components/text.js'
import { useEffect, useMemo, useRef, useState } from 'react'
import type { RuntimeCommands, TaskLogRange, TaskLogSlice } from '../../../agent/runtime/commands.js'
import type { TaskSummary } from '../../../store/domain.js'
import { openableUrl } from '../../../tasks/port-text.js'
import { KEY_PRIORITY, useKeyHandler, useWheelHandler, WHEEL_LINES } from '../../keys/dispatcher.js'
import { useKeyState } from '../../keys/use-key-state.js'
import {
  atHead,
  EMPTY_WINDOW,
  followed,
  LOG_PAGE_BYTES,
  type LogWindow,
  logRows,
  needsEarlier,
  needsLater,
  scrolled,
  TASK_LOG_BYTES,
  withEarlier,
  withLater,
} from './log-window.js'
import { taskRuntime } from './tasks-pane.js'
import { useTheme } from '../../components/theme-context.js'

export { TASK_LOG_BYTES }
export const TASK_POLL_MS = 250

export interface TaskViewerProps {
  task: TaskSummary
  commands: Pick<RuntimeCommands, 'readTaskLog'>
  width: number
  height: number
  confirming: boolean
}

/**
 * One background job's output in the transcript's place. It follows the end of the log (polled about four
 * times a second, only while mounted and the job runs); PgUp/PgDn, ↑/↓ and the wheel scroll it, reading
 * earlier or later pieces of the log file through `readTaskLog` as needed (`log-window.ts`); Home goes to
 * the start of the log, End follows again.
 */
export function TaskViewer({ task, commands, width, height, confirming }: TaskViewerProps) {
  const { palette: p } = useTheme()
  const [win, setWin, winRef] = useKeyState<LogWindow>(EMPTY_WINDOW)
  const [error, setError] = useState<string | null>(null)
  // One read at a time: keys that arrive while a piece loads scroll what is there.
  const reading = useRef(false)
  const running = task.status === 'running'
  const bodyRows = Math.max(1, height - 2)
  const rows = useMemo(() => logRows(win.text, width), [win.text, width])

  const read = (range: TaskLogRange | undefined, bytes: number, apply: (piece: TaskLogSlice) => void) => {
    if (reading.current) return
    reading.current = true
    commands.readTaskLog(task.id, bytes, range).then(
      (piece) => {
        reading.current = false
        setError(null)
        apply(piece)
      },
      (e: unknown) => {
        reading.current = false
        setError(e instanceof Error ? e.message : String(e))
      },
    )
  }

  useEffect(() => {
    if (!win.follow) return
    let cancelled = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const poll = () => {
      commands.readTaskLog(task.id, TASK_LOG_BYTES).then(
        (slice) => {
          if (cancelled) return
          // Scrolled away meanwhile: what arrived waits until End.
          if (winRef.current.follow) setWin(followed(slice))
          setError(null)
          if (running) timer = setTimeout(poll, TASK_POLL_MS)
        },
        (e: unknown) => {
          if (!cancelled) setError(e instanceof Error ? e.message : String(e))
        },
      )
    }
    poll()
    return () => {
      cancelled = true
      if (timer) clearTimeout(timer)
    }
  }, [commands, task.id, running, win.follow, setWin, winRef])

  const scrollBy = (by: number) => {
    const current = winRef.current
    const total = logRows(current.text, width).length
    const next = scrolled(current, by, total, bodyRows)
    setWin(next)
    if (by < 0 && needsEarlier(next, total, bodyRows))
      read({ before: next.start }, LOG_PAGE_BYTES, (piece) =>
        setWin(withEarlier(winRef.current, piece, width)),
      )
    else if (by > 0 && needsLater(next))
      read({ from: next.end }, LOG_PAGE_BYTES, (piece) => setWin(withLater(winRef.current, piece, width)))
  }

  useKeyHandler(KEY_PRIORITY.pane, (ev) => {
    const page = Math.max(1, bodyRows - 1)
    if (ev.has('transcript.pageUp')) scrollBy(-page)
    else if (ev.has('transcript.pageDown')) scrollBy(page)
    else if (ev.key.upArrow) scrollBy(-1)
    else if (ev.key.downArrow) scrollBy(1)
    else if (ev.has('transcript.home'))
      read({ from: 0 }, LOG_PAGE_BYTES, (piece) => setWin(atHead(piece, width, bodyRows)))
    else if (ev.has('transcript.end')) setWin({ ...winRef.current, follow: true, fromBottom: 0 })
    else return false
    return true
  })
  useWheelHandler((lines) => {
    scrollBy(Math.sign(lines) * WHEEL_LINES)
    return true
  })

  const bottom = Math.max(0, rows.length - win.fromBottom)
  const top = Math.max(0, bottom - bodyRows)
  const visible = rows.slice(top, bottom)
  const exit = task.exitCode !== null ? ` · exit ${task.exitCode}` : ''
  const url = openableUrl(task.ports)
  const where = win.follow
    ? 'PgUp/PgDn/Home scroll'
    : `scrolled${win.start > 0 ? '' : top === 0 ? ' to the start' : ''} · End follows the output`
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Text wrap="truncate" bold color={p.accent}>
        {task.id} · {task.status}
        {exit} · {taskRuntime(task)}
        {url ? ` · ${url}` : ''} · {task.command}
      </Text>
      <Box flexDirection="column" height={bodyRows} overflow="hidden">
        {error ? <Text color={p.error}>Could not read the log: {error}</Text> : null}
        {!error && visible.length === 0 ? <Text dimColor>(no output yet)</Text> : null}
        {visible.map((line, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a window of the log has no stable identity per line
          <Text key={i} wrap="truncate">
            {line || ' '}
          </Text>
        ))}
      </Box>
      <Text wrap="truncate" color={confirming ? p.warn : p.muted} bold={confirming}>
        {confirming
          ? `Stop ${task.id}? (y/n)`
          : `Esc back · k stop${url ? ' · o browser' : ''} · ${where} · log: ${task.logPath}`}
      </Text>
    </Box>
  )
}
