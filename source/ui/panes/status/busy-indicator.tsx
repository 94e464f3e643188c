import { Box, type DOMElement, Text } from 'ink'
import { useContext, useEffect, useLayoutEffect, useRef, useState } from 'react'
import type { Theme } from '../../components/theme.js'
import type { PaintedRegion } from '../../terminal/painted-region.js'
import { PainterContext, screenRect } from '../../terminal/painter-context.js'
import type { ScreenPainter } from '../../terminal/screen-painter.js'
import { formatElapsed } from './format.js'
import { startSpinnerTicks, TICK_MS } from './spinner-ticks.js'

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

export interface BusyIndicatorProps {
  startedAt: number | null
  label: string
  theme: Theme
}

function busyText(now: number, { startedAt, label }: Omit<BusyIndicatorProps, 'theme'>): string {
  const frame = SPINNER[Math.floor(now / TICK_MS) % SPINNER.length]
  const elapsed = startedAt === null ? '' : ` ${formatElapsed(now - startedAt)}`
  return `${frame} ${label}${elapsed}`
}

/**
 * Spinner, phase and elapsed time, right-aligned in the rest of the status bar. Mounted only while a turn
 * runs, so its timer exists only then: an idle app has no intervals at all. In a real terminal it is
 * painted beside Ink, so a streaming turn costs no Ink frame for the spinner's sake.
 */
export function BusyIndicator(props: BusyIndicatorProps) {
  const painter = useContext(PainterContext)
  return painter ? <PaintedBusyIndicator {...props} painter={painter} /> : <InkBusyIndicator {...props} />
}

function InkBusyIndicator(props: BusyIndicatorProps) {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), TICK_MS)
    return () => clearInterval(timer)
  }, [])
  return (
    <Box flexGrow={1} justifyContent="flex-end">
      <Text color="yellow" wrap="truncate">
        {busyText(now, props)}
      </Text>
    </Box>
  )
}

function PaintedBusyIndicator({
  startedAt,
  label,
  theme,
  painter,
}: BusyIndicatorProps & { painter: ScreenPainter }) {
  const box = useRef<DOMElement>(null)
  const shown = useRef({ startedAt, label })
  const region = useRef<PaintedRegion | null>(null)
  const framesAtMount = useRef(painter.frameCount)
  useLayoutEffect(() => {
    const painted = painter.region()
    region.current = painted
    painted.attach(
      {
        rect: () => (box.current ? screenRect(box.current) : null),
        rows: (rect) => [theme.chalk.yellow(rightAligned(busyText(Date.now(), shown.current), rect.width))],
        followsFrames: true,
      },
      painter.frameCount > framesAtMount.current,
    )
    const stopTicks = startSpinnerTicks(painted)
    return () => {
      stopTicks()
      region.current = null
      painted.detach()
    }
  }, [painter, theme])
  useLayoutEffect(() => {
    shown.current = { startedAt, label }
    region.current?.invalidate()
  }, [startedAt, label])
  return <Box ref={box} flexGrow={1} height={1} />
}

/** Pads or clips to exactly `width` cells: a painted row must never run past its rectangle (it would wrap). */
function rightAligned(text: string, width: number): string {
  // Spinner glyphs, labels and digits are all one cell wide.
  const clipped = text.slice(0, Math.max(0, width))
  return ' '.repeat(Math.max(0, width - clipped.length)) + clipped
}
