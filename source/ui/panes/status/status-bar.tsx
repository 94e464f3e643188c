import { Box } from 'ink'
import { Text } from '../../components/text.js'
import { memo } from 'react'
import stringWidth from 'string-width'
import type { Phase, State } from '../../../store/state.js'
import {
  selectLearnedLimit,
  selectMaskedCount,
  selectMode,
  selectPhase,
  selectRunningTaskCount,
  selectSandbox,
  selectSession,
  selectTurnStartedAt,
  selectUsage,
  selectWaitsForUser,
} from '../../../store/selectors.js'
import type { Theme } from '../../components/theme.js'
import { useStore } from '../../hooks/use-store.js'
import { BusyIndicator } from './busy-indicator.js'
import type { Prices } from './format.js'
import { composeStatusLine } from './status-line.js'

export interface StatusBarProps {
  width: number
  /** The model's context window in tokens (profile or endpoint metadata). */
  contextLimit: number
  /** Git branch, read once at start-up by the caller. */
  branch?: string
  prices?: Prices
  theme: Theme
}

const PHASE_LABEL: Record<Phase, string> = {
  idle: '',
  requesting: 'thinking',
  streaming: 'responding',
  tools: 'running tools',
  'awaiting-user': 'waiting for you',
}

/**
 * One-line status: model, mode badge, context meter, tokens/cost, cwd and branch, busy spinner.
 * Segments that do not fit are dropped by priority rather than wrapping, so the bar is always one row.
 */
export const StatusBar = memo(function StatusBar({
  width,
  contextLimit,
  branch,
  prices,
  theme,
}: StatusBarProps) {
  const mode = useStore(selectMode)
  const session = useStore(selectSession)
  const usage = useStore(selectUsage)
  const phase = useStore(selectPhase)
  const startedAt = useStore(selectTurnStartedAt)
  const runningTasks = useStore(selectRunningTaskCount)
  const masked = useStore(selectMaskedCount)
  const learned = useStore(selectLearnedLimit)
  const sandbox = useStore(selectSandbox)
  // A question or plan approval waits inside a running tool: the agent waits for the user, not the tool.
  const waiting = useStore(selectWaitsForUser)
  const busy = phase !== 'idle'
  const custom = useStore(selectStatusLine)
  const { badge, segments: shown } = composeStatusLine(
    {
      width,
      mode,
      busy,
      model: session.model,
      usage,
      masked,
      // An overflow error that named the endpoint's real window beats the profile.
      contextLimit: learned !== null && learned < contextLimit ? learned : contextLimit,
      prices,
      runningTasks,
      cwd: session.cwd,
      branch,
      sandbox,
    },
    stringWidth,
    theme.palette,
  )

  const bar = (
    <Box width={width} height={1} overflow="hidden">
      <Text wrap="truncate">
        <Text
          color={badge.color}
          backgroundColor={badge.backgroundColor}
          bold={badge.bold}
          inverse={!badge.backgroundColor}
        >
          {` ${badge.label} `}
        </Text>
        {shown.map((s, i) => (
          <Text key={s.keep} color={s.color}>
            {i === 0 ? ' ' : ' · '}
            {s.text}
          </Text>
        ))}
      </Text>
      {busy ? (
        <BusyIndicator
          startedAt={startedAt}
          label={waiting ? PHASE_LABEL['awaiting-user'] : PHASE_LABEL[phase]}
          theme={theme}
        />
      ) : null}
    </Box>
  )
  if (!custom) return bar
  // The status line command's first line (settings `statusLine`), cleaned but for its SGR colours.
  return (
    <Box flexDirection="column" width={width} flexShrink={0}>
      {bar}
      <Box width={width} height={1} overflow="hidden">
        <Text styled wrap="truncate">
          {` ${custom}`}
        </Text>
      </Box>
    </Box>
  )
})

const selectStatusLine = (state: State) => state.ui.statusLine
