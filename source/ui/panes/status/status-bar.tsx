import { Box, Text } from 'ink'
import { memo } from 'react'
import stringWidth from 'string-width'
import type { Phase } from '../../../store/state.js'
import {
  selectMode,
  selectPhase,
  selectRunningTaskCount,
  selectSession,
  selectTurnStartedAt,
  selectUsage,
} from '../../../store/selectors.js'
import { MODE_BADGES, type Theme } from '../../components/theme.js'
import { useStore } from '../../hooks/use-store.js'
import { BusyIndicator } from './busy-indicator.js'
import {
  cachedPercent,
  contextPercent,
  estimateCost,
  formatCost,
  formatTokens,
  type Prices,
  shortenPath,
} from './format.js'

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

interface Segment {
  text: string
  color?: string
  /** Lower numbers are dropped first when the bar is too narrow. */
  keep: number
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
  const badge = MODE_BADGES[mode]
  const busy = phase !== 'idle'

  const pct = contextPercent(usage.contextTokens, contextLimit)
  const cached = cachedPercent(usage.lastStep)
  const tokens = `${formatTokens(usage.session.input)}↑ ${formatTokens(usage.session.output)}↓`
  // "~": prices are approximate list prices, and the session total may span a /model switch.
  const cost = prices ? ` ~${formatCost(estimateCost(usage.session, prices))}` : ''
  const location =
    shortenPath(session.cwd, Math.max(12, Math.floor(width / 4))) + (branch ? ` (${branch})` : '')
  const segments: Segment[] = [
    { text: session.model || 'no model', keep: 9, color: 'white' },
    {
      text: `ctx ${pct}%${cached > 0 ? ` (${cached}% cached)` : ''}`,
      keep: 7,
      color: pct >= 85 ? 'red' : pct >= 70 ? 'yellow' : 'gray',
    },
    { text: tokens + cost, keep: 5, color: 'gray' },
    { text: runningTasks > 0 ? `${runningTasks} bg` : '', keep: 4, color: 'magenta' },
    { text: location, keep: 3, color: 'blue' },
  ]
  // The badge (and the spinner, when busy) always stay; the rest must fit the remaining width.
  const reserved = stringWidth(` ${badge.label} `) + 1 + (busy ? 24 : 0)
  const shown = fitSegments(segments, Math.max(0, width - reserved))

  return (
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
      {busy ? <BusyIndicator startedAt={startedAt} label={PHASE_LABEL[phase]} theme={theme} /> : null}
    </Box>
  )
})

function fitSegments(segments: Segment[], budget: number): Segment[] {
  let shown = segments.filter((s) => s.text)
  const width = (list: Segment[]) => list.reduce((n, s, i) => n + stringWidth(s.text) + (i === 0 ? 1 : 3), 0)
  while (shown.length > 0 && width(shown) > budget) {
    const lowest = shown.reduce((a, b) => (b.keep < a.keep ? b : a))
    shown = shown.filter((s) => s !== lowest)
  }
  return shown
}
