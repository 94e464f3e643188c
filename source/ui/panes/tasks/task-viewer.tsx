import { Box, Text } from 'ink'
import { useEffect, useState } from 'react'
import stripAnsi from 'strip-ansi'
import wrapAnsi from 'wrap-ansi'
import type { RuntimeCommands } from '../../../agent/commands.js'
import type { TaskSummary } from '../../../store/domain.js'
import { taskRuntime } from './tasks-pane.js'

export const TASK_LOG_BYTES = 64 * 1024
export const TASK_POLL_MS = 250

export interface TaskViewerProps {
  task: TaskSummary
  commands: Pick<RuntimeCommands, 'readTaskLog'>
  width: number
  height: number
  confirming: boolean
}

/** Last `rows` display lines of a log, wrapped to `width` (control codes stripped: they would move the cursor). */
export function tailLines(log: string, width: number, rows: number): string[] {
  if (rows <= 0) return []
  // Only the end can be visible; wrapping the whole 64 KB every poll would be wasted work.
  const raw = stripAnsi(log).replace(/\r\n/g, '\n').split('\n')
  if (raw.at(-1) === '') raw.pop()
  const out: string[] = []
  for (let i = raw.length - 1; i >= 0 && out.length < rows; i--) {
    // A lone \r redraws the line in place (progress bars): keep what the terminal would show last.
    const line = (raw[i] ?? '').split('\r').at(-1) ?? ''
    const wrapped = wrapAnsi(line.replaceAll('\t', '    '), Math.max(1, width), {
      hard: true,
      trim: false,
    }).split('\n')
    out.unshift(...wrapped)
  }
  return out.slice(-rows)
}

/**
 * Live tail of one background job. Polls the log about four times a second only while mounted and
 * only while the job runs (one last read after it ends), so a closed viewer or a finished job costs nothing.
 */
export function TaskViewer({ task, commands, width, height, confirming }: TaskViewerProps) {
  const [log, setLog] = useState('')
  const [error, setError] = useState<string | null>(null)
  const running = task.status === 'running'
  useEffect(() => {
    let cancelled = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const poll = () => {
      commands.readTaskLog(task.id, TASK_LOG_BYTES).then(
        (text) => {
          if (cancelled) return
          setLog(text)
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
  }, [commands, task.id, running])

  const bodyRows = Math.max(0, height - 2)
  const lines = tailLines(log, width, bodyRows)
  const exit = task.exitCode !== null ? ` · exit ${task.exitCode}` : ''
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Text wrap="truncate" bold color="cyan">
        {task.id} · {task.status}
        {exit} · {taskRuntime(task)} · {task.command}
      </Text>
      <Box flexDirection="column" height={bodyRows} overflow="hidden">
        {error ? <Text color="red">Could not read the log: {error}</Text> : null}
        {!error && lines.length === 0 ? <Text dimColor>(no output yet)</Text> : null}
        {lines.map((line, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a tail window has no stable identity per line
          <Text key={i} wrap="truncate">
            {line || ' '}
          </Text>
        ))}
      </Box>
      <Text wrap="truncate" color={confirming ? 'yellow' : 'gray'} bold={confirming}>
        {confirming ? `Stop ${task.id}? (y/n)` : `Esc back · k stop · log: ${task.logPath}`}
      </Text>
    </Box>
  )
}
