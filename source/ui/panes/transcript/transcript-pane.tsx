import { Box, type DOMElement, Text } from 'ink'
import { memo, useContext, useLayoutEffect, useRef, useSyncExternalStore } from 'react'
import { selectTranscriptItems, selectTranscriptOrder } from '../../../store/selectors.js'
import type { State } from '../../../store/state.js'
import type { Theme } from '../../components/theme.js'
import { StoreContext, useStore } from '../../hooks/use-store.js'
import { PainterContext, screenRect } from '../../terminal/painter-context.js'
import type { PaintSource } from '../../terminal/painted-region.js'
import type { ScreenPainter } from '../../terminal/screen-painter.js'
import type { TranscriptSnapshot, TranscriptView } from './transcript-view.js'

export interface TranscriptPaneProps {
  /** Owns the line cache and the scroll state; created once by the app (`createTranscriptView`). */
  view: TranscriptView
  theme: Theme
  width: number
  /**
   * Rows to fill, exactly: a taller frame would make Ink redraw the whole screen. Undefined before the
   * parent has been measured: the pane then grows into the space it is given.
   */
  height: number | undefined
}

const selectExpanded = (s: State) => s.ui.expanded

const snapshotOf = (s: State): TranscriptSnapshot => ({
  order: s.transcript.order,
  items: s.transcript.items,
  expanded: s.ui.expanded,
})

/**
 * The virtualised transcript: exactly `height` rows of pre-rendered lines. In a real terminal the rows
 * are painted directly by a PaintedRegion (Ink only reserves the blank rectangle), so streaming text
 * never costs an Ink frame; elsewhere (tests, no painter) Ink renders the same rows.
 */
export const TranscriptPane = memo(function TranscriptPane(props: TranscriptPaneProps) {
  const painter = useContext(PainterContext)
  return painter ? <PaintedTranscript {...props} painter={painter} /> : <InkTranscript {...props} />
})

function PaintedTranscript({
  view,
  theme,
  width,
  height,
  painter,
}: TranscriptPaneProps & { painter: ScreenPainter }) {
  const store = useContext(StoreContext)
  if (!store) throw new Error('StoreContext is missing: render the transcript inside <TuiRoot>')
  const box = useRef<DOMElement>(null)
  // Ink writes a frame inside the commit (when not throttled): a count that moved between this render
  // and the layout effect means the frame with this pane's blank rectangle is already on screen.
  const framesAtRender = painter.frameCount
  const framesAtMount = useRef(framesAtRender)
  useLayoutEffect(() => {
    const source: PaintSource = {
      rect: () => (box.current ? screenRect(box.current) : null),
      rows: (rect) => {
        const frame = view.layout(snapshotOf(store.getState()), rect.width, rect.height)
        if (!frame.newOutput || frame.rows.length === 0) return frame.rows
        return [...frame.rows.slice(0, -1), newOutputHint(theme)]
      },
    }
    const region = painter.region()
    let seen = snapshotOf(store.getState())
    const unsubscribeStore = store.subscribe(() => {
      const now = snapshotOf(store.getState())
      if (now.order === seen.order && now.items === seen.items && now.expanded === seen.expanded) return
      seen = now
      region.invalidate()
    })
    // Scrolling is the user's own action: it answers at once.
    const unsubscribeView = view.subscribe(() => region.invalidate(true))
    region.attach(source, painter.frameCount > framesAtMount.current)
    return () => {
      unsubscribeStore()
      unsubscribeView()
      region.detach()
    }
  }, [painter, store, view, theme])
  // A size change re-renders this box; the Ink frame that follows has the painter repaint everything.
  return height === undefined ? (
    <Box ref={box} width={width} flexGrow={1} />
  ) : (
    <Box ref={box} width={width} height={Math.max(0, Math.floor(height))} />
  )
}

function InkTranscript({ view, width, height }: TranscriptPaneProps) {
  const order = useStore(selectTranscriptOrder)
  const items = useStore(selectTranscriptItems)
  const expanded = useStore(selectExpanded)
  useSyncExternalStore(view.subscribe, view.getVersion)
  const rows = Math.max(0, Math.floor(height ?? 0))
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
}

const HINT_LABEL = ' ↓ new output '
const HINT_TAIL = ' End to follow'

function newOutputHint(theme: Theme): string {
  return theme.chalk.black.bgYellow(HINT_LABEL) + theme.dim(HINT_TAIL)
}

function NewOutputHint() {
  return (
    <>
      <Text color="black" backgroundColor="yellow">
        {HINT_LABEL}
      </Text>
      <Text dimColor>{HINT_TAIL}</Text>
    </>
  )
}
