import { Box } from 'ink'
import { Text } from '../../components/text.js'
import { useMemo } from 'react'
import type { Store } from '../../../store/create-store.js'
import type { TaskSummary } from '../../../store/domain.js'
import type { Theme } from '../../components/theme.js'
import { StoreContext } from '../../hooks/use-store.js'
import { KEY_PRIORITY, useKeyHandler, useWheelHandler } from '../../keys/dispatcher.js'
import { TranscriptPane } from '../transcript/transcript-pane.js'
import { createTranscriptView } from '../transcript/transcript-view.js'
import { useTranscriptScroll } from '../transcript/use-transcript-scroll.js'
import { agentLine, taskRuntime } from './tasks-pane.js'
import { useTheme } from '../../components/theme-context.js'

export interface AgentViewerProps {
  task: TaskSummary
  /** The subagent's own store; null until it has started (it may wait for a free slot). */
  store: Store | null
  theme: Theme
  width: number
  height: number
  confirming: boolean
}

/**
 * A background subagent's transcript, live and read-only: the same transcript view as the main session,
 * reading the subagent's own store. PgUp/PgDn, Home/End and the wheel scroll it; Esc goes back.
 */
export function AgentViewer({ task, store, theme, width, height, confirming }: AgentViewerProps) {
  const { palette: p } = useTheme()
  const view = useMemo(() => createTranscriptView(theme), [theme])
  const scroll = useTranscriptScroll(view)
  // Read-only: only display toggles reach the subagent's store, never a conversation change.
  const readOnly = useMemo<Store | null>(
    () =>
      store && {
        ...store,
        dispatch: (action) => {
          if (action.type.startsWith('ui/')) store.dispatch(action)
        },
      },
    [store],
  )
  useKeyHandler(KEY_PRIORITY.pane, (ev) => {
    if (ev.has('transcript.pageUp')) scroll.pageUp()
    else if (ev.has('transcript.pageDown')) scroll.pageDown()
    else if (ev.has('transcript.home')) scroll.home()
    else if (ev.has('transcript.end')) scroll.end()
    else return false
    return true
  })
  useWheelHandler((lines) => {
    scroll.scrollBy(lines)
    return true
  })
  const bodyRows = Math.max(0, height - 2)
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Text wrap="truncate" bold color={p.accent}>
        {task.id} · {task.status} · {taskRuntime(task)} · {task.description ?? task.command}
        <Text dimColor> · {agentLine(task)}</Text>
      </Text>
      {readOnly ? (
        <StoreContext.Provider value={readOnly}>
          <TranscriptPane view={view} theme={theme} width={width} height={bodyRows} />
        </StoreContext.Provider>
      ) : (
        <Box height={bodyRows}>
          <Text dimColor>(waiting for a free slot to start)</Text>
        </Box>
      )}
      <Text wrap="truncate" color={confirming ? p.warn : p.muted} bold={confirming}>
        {confirming
          ? `Stop ${task.id} and the jobs it started? (y/n)`
          : `Esc back · k stop · PgUp/PgDn scroll · read-only transcript · log: ${task.logPath}`}
      </Text>
    </Box>
  )
}
