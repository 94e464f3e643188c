import { Box } from 'ink'
import { Text } from '../../components/text.js'
import type { TaskStatus, TaskSummary } from '../../../store/domain.js'
import { openableUrl, portColumn, portDetail } from '../../../tasks/port-text.js'
import { formatElapsed } from '../status/format.js'
import { useTheme } from '../../components/theme-context.js'
import type { Palette } from '../../components/palette.js'

export interface TasksPaneProps {
  tasks: readonly TaskSummary[]
  width: number
  /** Rows available, including the title row. */
  height: number
  focused: boolean
  selectedId: string | null
  confirmId: string | null
  /** One line with counts (narrow terminals, unfocused). */
  compact?: boolean
}

const statusColor = (p: Palette): Record<TaskStatus, string> => ({
  running: p.warn,
  completed: p.success,
  failed: p.error,
  stopped: p.muted,
})

/** Runtime so far (running) or total (finished); refreshed whenever the task reports output. */
export function taskRuntime(task: TaskSummary, now = Date.now()): string {
  return formatElapsed((task.endedAt ?? now) - task.startedAt)
}

/** `explore · step 3 · 4.1k tok · Grep "foo"`: what a subagent is doing (the tool last: it is the longest). */
export function agentLine(task: TaskSummary): string {
  const info = task.agent
  if (!info) return task.lastLine
  const tokens = info.tokens < 1000 ? `${info.tokens}` : `${(info.tokens / 1000).toFixed(1)}k`
  const doing =
    task.status === 'running' ? (info.tool ?? (info.steps === 0 ? 'starting' : 'thinking')) : task.status
  return `${info.type} · step ${info.steps} · ${tokens} tok · ${doing}`
}

/**
 * The line under a task's row: a subagent's progress, a job's last output line (and who started it), after
 * the URL `o` opens when it listens (on screen too: over SSH there is no browser to open it in).
 */
function detailLine(task: TaskSummary): string {
  const owner = task.owner ? `[${task.owner}] ` : ''
  if (task.kind === 'agent') return agentLine(task)
  const port = portDetail(task.ports)
  return `${owner}${port ? `${port} · ` : ''}${task.lastLine || '(no output yet)'}`
}

export function tasksSummary(tasks: readonly TaskSummary[]): string {
  const running = tasks.filter((t) => t.status === 'running').length
  return `Tasks ${running} running / ${tasks.length}`
}

/** The one-line pane names the jobs that listen (`b1 :5173`), the first two: a server is why one looks. */
export function listeningSummary(tasks: readonly TaskSummary[]): string {
  const listening = tasks.filter((t) => t.ports?.length)
  const shown = listening.slice(0, 2).map((t) => `${t.id} ${portColumn(t.ports)}`)
  if (shown.length === 0) return ''
  return ` · ${shown.join(' · ')}${listening.length > 2 ? ` +${listening.length - 2}` : ''}`
}

/**
 * Background jobs: id, status, runtime, ports, command, and the last output line under each (for a
 * subagent: its type, current tool, steps and tokens). Tab focuses, ↑/↓ select, Enter opens the live
 * tail (a subagent's transcript), o opens a listening job's URL, k stops after a y/n confirmation.
 */
const FOOTERS = [
  '↑↓ select · Enter open · k stop · Esc back',
  // In the side column (29 to 34 wide) the keys that act, "Esc back" above all, must not be cut.
  'Enter open · k stop · Esc back',
  'Enter · k stop · Esc back',
  'Esc back',
]
/** The same when the selected job has a URL to open. */
const URL_FOOTERS = [
  '↑↓ select · Enter open · o browser · k stop · Esc back',
  'Enter · o url · k stop · Esc back',
  'o url · k stop · Esc back',
  'Esc back',
]

/** The longest footer that fits the width; `o` only when the selected job has a URL. */
export function tasksFooter(width: number, hasUrl: boolean): string {
  const footers = hasUrl ? URL_FOOTERS : FOOTERS
  return footers.find((footer) => footer.length <= width) ?? 'Esc back'
}

export function TasksPane({
  tasks,
  width,
  height,
  focused,
  selectedId,
  confirmId,
  compact = false,
}: TasksPaneProps) {
  const { palette: p } = useTheme()
  if (tasks.length === 0 || height <= 0) return null
  if (compact || height === 1) {
    return (
      <Box width={width} height={1}>
        <Text wrap="truncate" color={focused ? p.accent : p.special}>
          {tasksSummary(tasks)}
          {listeningSummary(tasks)}
          {focused ? '' : ' · Tab to focus'}
        </Text>
      </Box>
    )
  }
  const selectedUrl = openableUrl(tasks.find((t) => t.id === selectedId)?.ports)
  const footer = confirmId
    ? `Stop ${confirmId}? (y/n)`
    : focused
      ? tasksFooter(width, selectedUrl !== undefined)
      : ''
  const bodyRows = Math.max(1, height - 1 - (footer ? 1 : 0))
  // Two rows per task (summary + last output line) when there is room, else one.
  const perTask = bodyRows >= tasks.length * 2 ? 2 : 1
  const fit = Math.max(1, Math.floor(bodyRows / perTask))
  const selectedIndex = Math.max(
    0,
    tasks.findIndex((t) => t.id === selectedId),
  )
  const start = Math.min(Math.max(0, selectedIndex - fit + 1), Math.max(0, tasks.length - fit))
  const visible = tasks.slice(start, start + fit)
  const now = Date.now()
  return (
    <Box flexDirection="column" width={width}>
      <Text bold wrap="truncate" color={focused ? p.accent : undefined}>
        {tasksSummary(tasks)}
        {focused ? '' : <Text dimColor> · Tab to focus</Text>}
      </Text>
      {visible.map((task) => {
        const isSelected = focused && task.id === selectedId
        // Before the command: a narrow row cuts the command, never the ports.
        const ports = portColumn(task.ports)
        return (
          <Box key={task.id} flexDirection="column">
            <Text wrap="truncate" inverse={isSelected}>
              {isSelected ? '▸ ' : '  '}
              <Text bold>{task.id}</Text> <Text color={statusColor(p)[task.status]}>{task.status}</Text>{' '}
              <Text dimColor>{taskRuntime(task, now)}</Text>{' '}
              {ports ? <Text color={p.link}>{`${ports} `}</Text> : null}
              {task.description || task.command}
              {perTask === 1 && task.kind === 'agent' ? <Text dimColor> · {agentLine(task)}</Text> : null}
            </Text>
            {perTask === 2 ? (
              <Text wrap="truncate" dimColor>
                {'    '}
                {detailLine(task)}
              </Text>
            ) : null}
          </Box>
        )
      })}
      {footer ? (
        <Text wrap="truncate" color={confirmId ? p.warn : p.muted} bold={confirmId !== null}>
          {footer}
        </Text>
      ) : null}
    </Box>
  )
}

/** Rows the pane wants when given the space (title + two rows per task + footer). */
export function tasksPaneWantedRows(count: number, focused: boolean): number {
  return count === 0 ? 0 : 1 + count * 2 + (focused ? 1 : 0)
}
