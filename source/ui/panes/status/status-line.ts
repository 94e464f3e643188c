import type { Usage } from '../../../store/messages.js'
import type { Mode } from '../../../store/domain.js'
import type { SandboxState } from '../../../store/state.js'
import { type Color, PALETTES, type Palette } from '../../components/palette.js'
import { type ModeBadge, modeBadge } from '../../components/theme.js'
import {
  cachedPercent,
  contextPercent,
  estimateCost,
  formatCost,
  formatTokens,
  type Prices,
  shortenPath,
} from './format.js'

/** Columns kept free on the right of a busy status bar for the spinner, phase and elapsed time. */
export const BUSY_SLOT_WIDTH = 24

export interface StatusLineInput {
  width: number
  mode: Mode
  busy: boolean
  model: string
  /** Null while not known yet (a resumed session's frame drawn before its log is read): not shown. */
  usage: { session: Usage; lastStep: Usage; contextTokens: number; contextEstimated?: boolean } | null
  /** Tool results the last request showed as placeholders (observation masking). */
  masked?: number
  /** The model's context window in tokens. */
  contextLimit: number
  prices?: Prices | undefined
  runningTasks: number
  cwd: string
  branch?: string | undefined
  /** The Bash sandbox (absent or off: nothing shown). */
  sandbox?: SandboxState | undefined
}

export interface StatusSegment {
  text: string
  /** Undefined: the terminal's own colour. */
  color: Color | undefined
  /** Lower numbers are dropped first when the bar is too narrow. */
  keep: number
}

export interface StatusLine {
  badge: ModeBadge
  /** The segments that fit, in order; each is drawn after " · " (the first after a space). */
  segments: StatusSegment[]
}

/**
 * What the one-line status bar shows: mode badge, model, context meter, tokens/cost, background jobs,
 * cwd and branch. Segments that do not fit are dropped by priority rather than wrapping. `measure` is the
 * terminal width of a string. Shared by the status bar and the frame painted before Ink has loaded.
 */
export function composeStatusLine(
  input: StatusLineInput,
  measure: (text: string) => number,
  palette: Palette = PALETTES.dark,
): StatusLine {
  const { usage, width } = input
  const badge = modeBadge(input.mode, palette)
  const p = palette
  const location =
    shortenPath(input.cwd, Math.max(12, Math.floor(width / 4))) + (input.branch ? ` (${input.branch})` : '')
  const segments: StatusSegment[] = [
    ...sandboxSegment(input.sandbox, p),
    { text: input.model || 'no model', keep: 9, color: p.text },
    ...(usage ? usageSegments(usage, input, p) : []),
    { text: input.runningTasks > 0 ? `${input.runningTasks} bg` : '', keep: 4, color: p.special },
    { text: location, keep: 3, color: p.link },
  ]
  // The badge (and the spinner, when busy) always stay; the rest must fit the remaining width.
  const reserved = measure(` ${badge.label} `) + 1 + (input.busy ? BUSY_SLOT_WIDTH : 0)
  return { badge, segments: fitSegments(segments, Math.max(0, width - reserved), measure) }
}

/**
 * The sandbox badge, next to the mode badge and the last segment to go: whether commands are fenced
 * changes what "auto" means.
 */
function sandboxSegment(sandbox: SandboxState | undefined, p: Palette): StatusSegment[] {
  switch (sandbox?.status) {
    case undefined:
    case 'off':
      return []
    case 'checking':
      return [{ text: '⛨ sandbox…', keep: 10, color: p.muted }]
    case 'on':
      return [{ text: sandbox.network ? '⛨ sandbox+net' : '⛨ sandbox', keep: 10, color: p.success }]
    case 'unavailable':
      return [{ text: '⛨ no sandbox', keep: 10, color: p.warn }]
  }
}

/** The context meter and the session's tokens (and approximate cost). */
function usageSegments(
  usage: NonNullable<StatusLineInput['usage']>,
  input: StatusLineInput,
  p: Palette,
): StatusSegment[] {
  const pct = contextPercent(usage.contextTokens, input.contextLimit)
  const cached = cachedPercent(usage.lastStep)
  // "~": our estimate — the endpoint has not reported this request's usage (some never do).
  const approx = usage.contextEstimated ? '~' : ''
  const notes = [
    ...(cached > 0 ? [`${cached}% cached`] : []),
    ...(input.masked ? [`${input.masked} masked`] : []),
  ]
  const tokens = `${formatTokens(usage.session.input)}↑ ${formatTokens(usage.session.output)}↓`
  // "~": prices are approximate list prices, and the session total may span a /model switch.
  const cost = input.prices ? ` ~${formatCost(estimateCost(usage.session, input.prices))}` : ''
  return [
    {
      text: `ctx ${approx}${pct}%${notes.length ? ` (${notes.join(', ')})` : ''}`,
      keep: 7,
      color: pct >= 85 ? p.error : pct >= 70 ? p.warn : p.muted,
    },
    { text: tokens + cost, keep: 5, color: p.muted },
  ]
}

function fitSegments(
  segments: StatusSegment[],
  budget: number,
  measure: (text: string) => number,
): StatusSegment[] {
  let shown = segments.filter((s) => s.text)
  const width = (list: StatusSegment[]) =>
    list.reduce((n, s, i) => n + measure(s.text) + (i === 0 ? 1 : 3), 0)
  while (shown.length > 0 && width(shown) > budget) {
    const lowest = shown.reduce((a, b) => (b.keep < a.keep ? b : a))
    shown = shown.filter((s) => s !== lowest)
  }
  return shown
}
