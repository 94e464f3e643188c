import { useMemo, useRef } from 'react'
import type { Theme } from '../../components/theme.js'
import { type RowSource, useRowSurface } from '../../terminal/row-surface.js'
import { TICK_MS } from '../../terminal/spinner-ticks.js'
import { formatElapsed } from './format.js'

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
 * runs, so its clock exists only then: an idle app has no timers at all. Drawn through `useRowSurface`: in
 * a real terminal it is painted beside Ink, so a streaming turn costs no Ink frame for the spinner's sake.
 */
export function BusyIndicator({ startedAt, label, theme }: BusyIndicatorProps) {
  const shown = useRef({ startedAt, label })
  shown.current = { startedAt, label }
  const source = useMemo(
    (): RowSource => ({
      rows: (size) => [theme.busy(rightAligned(busyText(Date.now(), shown.current), size.width))],
      ticks: true,
    }),
    [theme],
  )
  return useRowSurface(source, { grow: true, height: 1 }, `${startedAt}:${label}`)
}

/** Pads or clips to exactly `width` cells: a painted row must never run past its rectangle (it would wrap). */
function rightAligned(text: string, width: number): string {
  // Spinner glyphs, labels and digits are all one cell wide.
  const clipped = text.slice(0, Math.max(0, width))
  return ' '.repeat(Math.max(0, width - clipped.length)) + clipped
}
