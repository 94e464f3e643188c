import { Box, type DOMElement, useBoxMetrics } from 'ink'
import { Text } from '../components/text.js'
import {
  type ReactElement,
  type RefObject,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useReducer,
  useRef,
  useSyncExternalStore,
} from 'react'
import type { PaintedRegion } from './painted-region.js'
import { PainterContext, screenRect } from './painter-context.js'
import type { ScreenPainter } from './screen-painter.js'
import { startSpinnerTicks, TICK_MS } from './spinner-ticks.js'

/** A pane drawn as rows of text: what it shows in a rectangle of a given size. */
export interface RowSource {
  /**
   * Exactly `size.height` rows, each at most `size.width` cells wide (ANSI styles allowed). Painted as
   * they are: whatever they show from a model, a tool or a file went through `cleanText` on the way.
   */
  rows(size: { width: number; height: number }): readonly string[]
  /** Calls `changed` whenever the rows would differ; `urgent` for the user's own actions (a scroll). */
  subscribe?(changed: (urgent: boolean) => void): () => void
  /** The rows change with time (a spinner): redrawn every spinner tick while mounted. */
  ticks?: boolean
}

/** The pane's box: a fixed size, or the room its parent gives it (`grow`). */
export interface SurfaceLayout {
  width?: number
  height?: number
  grow?: boolean
}

/**
 * The one render path of a pane drawn as rows. In a real terminal the screen painter paints the rows
 * beside Ink (Ink only lays out the blank box, so a changing row costs no Ink frame); without a painter
 * (tests, a pipe) Ink renders the same rows as Text. Either way the rows come from `source.rows`, so what a
 * component test reads is what the terminal shows.
 *
 * `source` should keep its identity (a new one re-attaches the painted region); when what it reads
 * changes with the pane's props, pass a new `revision`.
 */
export function useRowSurface(source: RowSource, layout: SurfaceLayout, revision?: unknown): ReactElement {
  const painter = useContext(PainterContext)
  return painter ? (
    <PaintedRows source={source} layout={layout} revision={revision} painter={painter} />
  ) : (
    <InkRows source={source} layout={layout} />
  )
}

interface RowsProps {
  source: RowSource
  layout: SurfaceLayout
}

function PaintedRows({
  source,
  layout,
  revision,
  painter,
}: RowsProps & { revision: unknown; painter: ScreenPainter }) {
  const box = useRef<DOMElement>(null)
  const region = useRef<PaintedRegion | null>(null)
  // Ink writes a frame inside the commit (when not throttled): a count that moved between this render and
  // the layout effect means the frame with this pane's blank rectangle is already on screen.
  const framesAtMount = useRef(painter.frameCount)
  useLayoutEffect(() => {
    const painted = painter.region()
    region.current = painted
    painted.attach(
      {
        rect: () => (box.current ? screenRect(box.current) : null),
        rows: (rect) => source.rows(rect),
        ...(source.ticks ? { followsFrames: true } : {}),
      },
      painter.frameCount > framesAtMount.current,
    )
    const unsubscribe = source.subscribe?.((urgent) => painted.invalidate(urgent))
    const stopTicks = source.ticks ? startSpinnerTicks(painted) : undefined
    return () => {
      stopTicks?.()
      unsubscribe?.()
      region.current = null
      painted.detach()
    }
  }, [painter, source])
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new revision is the reason to repaint
  useLayoutEffect(() => {
    region.current?.invalidate()
  }, [revision])
  // A size change re-renders this box; the Ink frame that follows has the painter repaint everything. A
  // growing box takes what the layout gives it, whatever height was measured for it: the painter reads
  // its rectangle from the layout when it paints, so a resize can never leave it at a stale height.
  return <Box ref={box} {...boxSize(layout.grow ? { ...layout, height: undefined } : layout)} />
}

/**
 * Ink renders the rows. A box without a width (a spinner filling the rest of a line) is measured first, a
 * second render only this path pays (the painter reads its rectangle from Ink's layout anyway). A box
 * without a height yet (the transcript before its parent is measured) stays empty until it gets one.
 */
function InkRows({ source, layout }: RowsProps) {
  return layout.width === undefined ? (
    <InkRowsMeasured source={source} layout={layout} />
  ) : (
    <InkRowsSized source={source} layout={layout} width={layout.width} height={layout.height ?? 0} />
  )
}

function InkRowsMeasured({ source, layout }: RowsProps) {
  const box = useRef<DOMElement>(null)
  const measured = useBoxMetrics(box)
  return (
    <InkRowsSized
      source={source}
      layout={layout}
      width={measured.width}
      height={layout.height ?? measured.height}
      box={box}
    />
  )
}

function InkRowsSized({
  source,
  layout,
  width,
  height,
  box,
}: RowsProps & { width: number; height: number; box?: RefObject<DOMElement | null> }) {
  const version = useRef(0)
  const subscribe = useCallback(
    (onChange: () => void) =>
      source.subscribe?.(() => {
        version.current++
        onChange()
      }) ?? (() => {}),
    [source],
  )
  useSyncExternalStore(subscribe, () => version.current)
  useSpinnerTicks(source.ticks === true)
  const size = { width: Math.max(0, Math.floor(width)), height: Math.max(0, Math.floor(height)) }
  const rows = size.width > 0 && size.height > 0 ? source.rows(size) : []
  return (
    <Box ref={box} flexDirection="column" overflow="hidden" {...boxSize(layout)}>
      {rows.map((row, i) => (
        // Rows are screen positions, not items: keyed by index, a change alters contents, not tree shape.
        // They are built by the pane's renderer, which cleans what it shows (see RowSource): `styled`.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <Text key={i} wrap="truncate" styled>
          {row === '' ? ' ' : row}
        </Text>
      ))}
    </Box>
  )
}

/** Re-renders every spinner tick while `on`: the Ink path's clock (the painted path has its own). */
function useSpinnerTicks(on: boolean): void {
  const [, tick] = useReducer((n: number) => n + 1, 0)
  useEffect(() => {
    if (!on) return
    const timer = setInterval(tick, TICK_MS)
    return () => clearInterval(timer)
  }, [on])
}

function boxSize({ width, height, grow }: SurfaceLayout) {
  return {
    ...(width === undefined ? {} : { width: Math.max(0, Math.floor(width)) }),
    ...(height === undefined ? {} : { height: Math.max(0, Math.floor(height)) }),
    ...(grow ? { flexGrow: 1 } : {}),
  }
}
