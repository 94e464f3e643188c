// The turn the dev profilers (profile-stream, profile-threads) measure. Their WARM=1 option runs a first,
// fast turn before it, so a profile shows the steady cost of streaming rather than the first turn's one-off
// costs (JIT, first Markdown and grammar use).
import { makeMarkdown } from './markdown.mjs'
import { PROMPT } from './pty.mjs'

const WARM_MARK = 'ZZWARMZZ'

export const warmUpWanted = () => process.env.WARM === '1'

/** The endpoint's replies: a fast warm-up reply first when `warm`, then `measured` for every request. */
export function withWarmUp(warm, measured) {
  return (index) =>
    warm && index === 0 ? { text: makeMarkdown(4000, WARM_MARK), chunkSize: 16, chunkDelayMs: 0 } : measured
}

/** Sends the warm-up prompt and waits until its reply is on screen and the TUI is quiet. */
export async function warmUpTurn(tui) {
  tui.write('warm')
  await tui.quiet(100, 2000)
  tui.write('\r')
  await tui.waitFor((screen) => screen.includes(WARM_MARK), 60000, 'the warm-up reply')
  await tui.quiet(500, 3000)
}

/** Waits for the first frame, runs the warm-up turn when `warm`, then submits the measured prompt. */
export async function submitProfiledTurn(tui, warm) {
  await tui.waitFor((_s, lines) => lines[0].includes('SAFE'), 15000, 'first frame')
  await tui.quiet(500, 3000)
  if (warm) await warmUpTurn(tui)
  // As the bench does: Enter only once the prompt shows the text, so the keys arrive apart, as typed (the
  // first one starts the UI's warm-up; sent together, the turn would cancel it).
  tui.write('go')
  await tui.waitFor(
    (_s, lines) => lines.some((line) => line.startsWith(`${PROMPT}go`)),
    5000,
    'the typed prompt',
  )
  await tui.quiet(100, 2000)
  tui.write('\r')
}
