/** Time between two spinner frames. */
export const TICK_MS = 120
/**
 * While other frames carry the spinner (a streaming reply), how often it checks that they still do. A
 * stall freezes it for at most this long before it ticks on its own again.
 */
export const CARRIED_CHECK_MS = 500

export interface SpinnerRegion {
  /** Milliseconds since a frame drawn for something else last repainted the spinner. */
  sinceCarried(): number
  /** Asks for a frame of its own. */
  invalidate(): void
}

/**
 * Keeps a painted spinner moving. Each tick of its own is a wake-up and a frame; while a reply streams,
 * the reply's frames repaint the spinner anyway, so a tick then only checks that they still come.
 * Returns the stop function.
 */
export function startSpinnerTicks(region: SpinnerRegion): () => void {
  let timer: NodeJS.Timeout
  const tick = () => {
    const carried = region.sinceCarried() < TICK_MS
    if (!carried) region.invalidate()
    timer = setTimeout(tick, carried ? CARRIED_CHECK_MS : TICK_MS)
  }
  timer = setTimeout(tick, TICK_MS)
  return () => clearTimeout(timer)
}
