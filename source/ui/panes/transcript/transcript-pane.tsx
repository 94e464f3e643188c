import { Box, Text } from 'ink'
import { memo, useSyncExternalStore } from 'react'
import { selectTranscriptItems, selectTranscriptOrder } from '../../../store/selectors.js'
import type { State } from '../../../store/state.js'
import { useStore } from '../../hooks/use-store.js'
import type { TranscriptView } from './transcript-view.js'

export interface TranscriptPaneProps {
  /** Owns the line cache and the scroll state; created once by the app (`createTranscriptView`). */
  view: TranscriptView
  width: number
  /** Rows to fill, exactly: a taller frame would make Ink redraw the whole screen. */
  height: number
}

const selectExpanded = (s: State) => s.ui.expanded

/**
 * The virtualised transcript: exactly `height` rows of pre-rendered lines. Re-renders when the
 * transcript, the expanded flags, the scroll position or the size change — never for unrelated store
 * updates (usage, phase, input), because it selects only stable slices.
 */
export const TranscriptPane = memo(function TranscriptPane({ view, width, height }: TranscriptPaneProps) {
  const order = useStore(selectTranscriptOrder)
  const items = useStore(selectTranscriptItems)
  const expanded = useStore(selectExpanded)
  useSyncExternalStore(view.subscribe, view.getVersion)
  const rows = Math.max(0, Math.floor(height))
  const frame = view.layout({ order, items, expanded }, Math.max(1, Math.floor(width)), rows)
  const rowNodes = frame.rows.map((row, i) => {
    const hint = i === frame.rows.length - 1 && frame.newOutput
    return (
      // Rows are screen positions, not items: keyed by index, scrolling changes contents, not tree shape.
      // biome-ignore lint/suspicious/noArrayIndexKey: see above
      <Text key={i} wrap="truncate">
        {hint ? <NewOutputHint /> : row === '' ? ' ' : row}
      </Text>
    )
  })
  return (
    <Box flexDirection="column" width={width} height={rows} overflow="hidden">
      {rowNodes}
    </Box>
  )
})

function NewOutputHint() {
  return (
    <>
      <Text color="black" backgroundColor="yellow">
        {' ↓ new output '}
      </Text>
      <Text dimColor> End to follow</Text>
    </>
  )
}
