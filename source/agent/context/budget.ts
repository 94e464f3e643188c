import type { ChatMessage } from '../../store/messages.js'
import type { Entry } from './compaction.js'

/**
 * The request budget (docs/context.md#the-budget): every request is built within the model's window.
 * What is always sent — system prompt, tool definitions, pinned items, the latest user message, and the
 * latest assistant step with all its results — never gives way; older steps are masked first, then
 * compacted into a summary; when even the always-kept part does not fit, the step fails with an error
 * that names the part too big. Pure functions; the context manager applies them.
 */

/** Share of the window held back while token counts are only estimates (no server count seen yet). */
export const ESTIMATE_MARGIN = 0.05
/** …and once the server's own count has corrected the estimate. */
export const MEASURED_MARGIN = 0.02
/** Kept free for the reply: this share of the window, within the bounds below. */
const REPLY_SHARE = 0.1
const MIN_REPLY = 256
const MAX_REPLY = 8192
/** The least room a summary needs to be worth writing (tokens). */
export const MIN_SUMMARY = 150
/** The estimate may only be corrected upwards by the server's count, and by this much at most. */
const MAX_SCALE = 4

export interface Budget {
  window: number
  /** Tokens kept free for the model's reply. */
  reply: number
  /** Tokens held back because the counts are estimates. */
  margin: number
  /** The most the prompt may take by our (corrected) estimate: window − margin − reply. */
  prompt: number
}

export function requestBudget(window: number, measured: boolean): Budget {
  const margin = Math.ceil(window * (measured ? MEASURED_MARGIN : ESTIMATE_MARGIN))
  const reply = Math.min(MAX_REPLY, Math.max(MIN_REPLY, Math.round(window * REPLY_SHARE)))
  return { window, reply, margin, prompt: Math.max(0, window - margin - reply) }
}

/**
 * How much to scale our estimates after the server counted a request (`usage.prompt_tokens`): its count
 * over our estimate, never below 1 — an estimate that counted more than the server only wastes a little
 * room, one that counted less sends a request over the window — and at most MAX_SCALE (a count that far
 * off is not about this prompt). `trusted`: the count agrees with ours closely enough (the server counted
 * what we sent, tools included) to narrow the margin.
 */
export function scaleFromUsage(
  reported: number | null | undefined,
  estimated: number,
): { scale: number; trusted: boolean } | null {
  if (reported === null || reported === undefined || !(estimated > 0) || !(reported > 0)) return null
  const ratio = reported / estimated
  return { scale: Math.min(MAX_SCALE, Math.max(1, ratio)), trusted: ratio >= 0.9 && ratio <= MAX_SCALE }
}

/** History indices of the request that always go whole (besides the system prompt and the tools). */
export interface KeptSet {
  /** The latest message the user typed; -1 when none. */
  request: number
  /** Where the latest step starts: the last assistant message after the request (or the request itself). */
  stepStart: number
  pinned(index: number): boolean
}

/** Where the always-kept tail of the history starts: the latest assistant step, or the latest request. */
export function latestStepStart(messages: readonly ChatMessage[], request: number): number {
  for (let i = messages.length - 1; i > request; i--) if (messages[i]?.role === 'assistant') return i
  return request >= 0 ? request : messages.length
}

export function isKept(entry: Entry, kept: KeptSet): boolean {
  if (entry.role === 'summary') return true
  if (entry.source < 0) return false
  return entry.source === kept.request || entry.source >= kept.stepStart || kept.pinned(entry.source)
}

/**
 * Fits entries to `budget` by masking: when they do not fit as they are, every tool result outside the
 * always-kept set that has a placeholder is sent as one (the epoch masking already masked the oldest).
 * Returns the entries as they will be sent and their total; `fits` says whether that is within budget.
 */
export function maskToFit(
  entries: readonly Entry[],
  opts: {
    budget: number
    /** Tokens of the system prompt and the tool definitions. */
    fixed: number
    tokens(entry: Entry): number
    kept: KeptSet
    /** The placeholder of a whole tool result, when one was saved; null otherwise. */
    placeholder(entry: Entry): Entry | null
  },
): { entries: Entry[]; total: number; fits: boolean; maskedMore: Entry[] } {
  let total = opts.fixed
  for (const entry of entries) total += opts.tokens(entry)
  if (total <= opts.budget) return { entries: [...entries], total, fits: true, maskedMore: [] }
  const maskedMore: Entry[] = []
  const out = entries.map((entry) => {
    if (entry.role === 'masked' || entry.message.role !== 'tool' || isKept(entry, opts.kept)) return entry
    const swapped = opts.placeholder(entry)
    if (!swapped) return entry
    total += opts.tokens(swapped) - opts.tokens(entry)
    maskedMore.push(swapped)
    return swapped
  })
  return { entries: out, total, fits: total <= opts.budget, maskedMore }
}

/** One part of what every request must carry, for the error that says which is too big. */
export interface KeptPart {
  kind: 'definitions' | 'system' | 'pinned' | 'request' | 'summary' | 'step' | 'result'
  tokens: number
  /** Tools defined, pinned items, or the tool whose result it is. */
  count?: number
  name?: string
}

/** The always-kept part of a request, by part: each tool result of the latest step on its own. */
export function keptParts(
  entries: readonly Entry[],
  opts: {
    kept: KeptSet
    tokens(entry: Entry): number
    systemTokens: number
    toolTokens: number
    toolCount: number
    toolName(entry: Entry): string
  },
): KeptPart[] {
  const parts: KeptPart[] = [
    { kind: 'definitions', tokens: opts.toolTokens, count: opts.toolCount },
    { kind: 'system', tokens: opts.systemTokens },
  ]
  let pinned = 0
  let pinnedCount = 0
  let step = 0
  for (const entry of entries) {
    const tokens = opts.tokens(entry)
    if (entry.role === 'summary') parts.push({ kind: 'summary', tokens })
    else if (entry.source >= 0 && opts.kept.pinned(entry.source) && entry.source < opts.kept.stepStart) {
      pinned += tokens
      pinnedCount++
    } else if (entry.source === opts.kept.request) parts.push({ kind: 'request', tokens })
    else if (entry.source >= opts.kept.stepStart) {
      if (entry.message.role === 'tool') parts.push({ kind: 'result', tokens, name: opts.toolName(entry) })
      else step += tokens
    }
  }
  if (pinnedCount > 0) parts.push({ kind: 'pinned', tokens: pinned, count: pinnedCount })
  if (step > 0) parts.push({ kind: 'step', tokens: step })
  return parts
}

const FIXES: Record<KeptPart['kind'], string> = {
  definitions:
    'use a model or server with a larger window, fewer MCP servers, or --tools to send fewer tools',
  system: 'shorten the project instructions (AGENTS.md) and memory files, or use a larger window',
  pinned: 'unpin some items (/pin lists them, /unpin removes them)',
  request: 'send a shorter message (name a file for the agent to Read instead of pasting it)',
  summary: 'start afresh with /clear, or use a larger window',
  step: 'start afresh with /clear, or use a larger window',
  result: 'ask for a smaller part (Read with offset and limit, a narrower command), or use a larger window',
}

function partLabel(part: KeptPart): string {
  switch (part.kind) {
    case 'definitions':
      return `the tool definitions (${part.count} tool${part.count === 1 ? '' : 's'})`
    case 'system':
      return 'the system prompt'
    case 'pinned':
      return `the pinned items (${part.count})`
    case 'request':
      return 'your latest message'
    case 'summary':
      return 'the summary of the earlier conversation'
    case 'step':
      return "the model's last reply"
    case 'result':
      return `the ${part.name ?? 'tool'} result of the last step`
  }
}

const k = (n: number) => (n < 1000 ? String(Math.round(n)) : `${(n / 1000).toFixed(1)}k`)

/**
 * The error of a step whose request cannot fit: the window and where it comes from, what must always be
 * sent (largest first), and the fix for the largest part. `compaction`: why compacting did not help.
 */
export function budgetError(
  parts: readonly KeptPart[],
  opts: { budget: Budget; source: string; compaction?: string },
): { message: string; largest: KeptPart } {
  const sorted = [...parts].filter((p) => p.tokens > 0).sort((a, b) => b.tokens - a.tokens)
  const largest = sorted[0] ?? { kind: 'definitions', tokens: 0, count: 0 }
  const total = parts.reduce((n, p) => n + p.tokens, 0)
  const listed = sorted
    .slice(0, 5)
    .map((p) => `${partLabel(p)} ~${k(p.tokens)}`)
    .join(', ')
  const b = opts.budget
  const message =
    `the request does not fit the model's context window of ${b.window.toLocaleString('en-US')} tokens (${opts.source}): ` +
    `what every request must carry takes ~${k(total)} tokens (${listed}), and ~${k(b.reply + b.margin)} are kept free for the reply and the estimate's margin` +
    `${opts.compaction ? `; ${opts.compaction}` : ''}. ` +
    `The largest part is ${partLabel(largest)}: ${FIXES[largest.kind]}.`
  return { message, largest }
}

/**
 * Which of a step's new tool results cannot be sent whole however the older history gives way: `room`
 * is what the window leaves beside everything else that is always kept. Fails the largest until the rest
 * (and the `envelope` each failed one is replaced by) fit; returns their indices in `sizes`.
 */
export function oversizedResults(sizes: readonly number[], room: number, envelope: number): number[] {
  let total = sizes.reduce((n, s) => n + s, 0)
  const failed: number[] = []
  const order = sizes.map((s, i) => ({ s, i })).sort((a, b) => b.s - a.s || a.i - b.i)
  for (const { s, i } of order) {
    if (total <= room) break
    failed.push(i)
    total -= s - envelope
  }
  return failed.sort((a, b) => a - b)
}

/** Thrown by the request builder when a step's request cannot fit the window; ends the turn with its message. */
export class ContextBudgetError extends Error {
  readonly largest: KeptPart
  constructor(message: string, largest: KeptPart) {
    super(message)
    this.name = 'ContextBudgetError'
    this.largest = largest
  }
}
