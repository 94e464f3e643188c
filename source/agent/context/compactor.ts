import type { ChatMessage } from '../../store/messages.js'
import { repairPairing } from '../../provider/pairing.js'
import { ProviderError } from '../../provider/types.js'
import type { CompactionRecord } from '../../store/domain.js'
import type { State } from '../../store/state.js'
import { MIN_SUMMARY } from './budget.js'
import {
  chooseCut,
  type Entry,
  keptBefore,
  recentCount,
  summariserPrompt,
  summaryBudget,
} from './compaction.js'
import type { ContextHost } from './options.js'
import type { CompactionPreview } from './types.js'

export type CompactOutcome = { ok: true; record: CompactionRecord } | { ok: false; reason: string }

/** Share of the window the recent messages may take before fewer of them are kept. */
const RECENT_SHARE = 0.35
/** Groups the last-resort summariser inputs keep when even the stripped history does not fit. */
const LAST_GROUPS = [12, 6, 3, 1]
/** Tokens the summary message adds around the summary (its opening line, the message's own). */
const SUMMARY_WRAPPER = 60

interface CutPlan {
  cut: number
  /** History indices the summary replaces (the kept ones excluded). */
  summarised: number[]
  kept: number[]
  /** The summary's token budget: min(5 % of the window, 2,000), at least 500 — less when the window is tight. */
  summaryBudget: number
}

function planCut(mgr: ContextHost, state: State): CutPlan | { reason: string } {
  const messages = state.messages
  const start = state.context.compaction?.cut ?? 0
  const limit = mgr.limit(state)
  const budget = mgr.budget(state)
  const assembled = mgr.assemble(state, { fit: false })
  // Token sizes as the request would send them (masked results as their placeholders).
  const sizes = new Map<number, number>()
  for (const entry of assembled.entries) {
    if (entry.source >= 0) sizes.set(entry.source, mgr.estimator.message(entry.message))
  }
  const tokens = (i: number) =>
    Math.ceil((sizes.get(i) ?? mgr.estimator.message(messages[i] as ChatMessage)) * mgr.scale)
  const keptSet = mgr.keptSet(state)
  const fixed = mgr.tokens([])
  // What is kept whatever the cut: the latest request and the pinned items (the latest step is the
  // recent part's floor). The recent part gets what the budget leaves beside them and a full summary.
  let mustKeep = fixed
  for (let i = start; i < keptSet.stepStart; i++)
    if (i === keptSet.request || keptSet.pinned(i)) mustKeep += tokens(i)
  const cut = chooseCut(messages, {
    start,
    keep: recentCount(limit),
    tokens,
    recentTokenBudget: Math.max(
      0,
      Math.min(RECENT_SHARE * limit, budget.prompt - mustKeep - summaryBudget(limit) - SUMMARY_WRAPPER),
    ),
    latest: keptSet.stepStart,
  })
  if (cut === null) {
    const since = messages.length - start
    return {
      reason: `only ${since} message${since === 1 ? '' : 's'} ${start > 0 ? 'since the last compaction' : 'so far'}; the recent ones are always kept`,
    }
  }
  const kept = keptBefore(messages, cut, {
    pinned: keptSet.pinned,
    latestUserRequest: latestUserRequest(state),
  })
  const keptIndices = new Set(kept)
  const summarised: number[] = []
  for (let i = start; i < cut; i++) if (!keptIndices.has(i)) summarised.push(i)
  if (summarised.length < 2) return { reason: 'everything older than the recent messages is pinned' }
  let after = fixed + SUMMARY_WRAPPER
  for (const i of kept) after += tokens(i)
  for (let i = cut; i < messages.length; i++) after += tokens(i)
  const room = Math.min(summaryBudget(limit), budget.prompt - after)
  if (room < MIN_SUMMARY) {
    return {
      reason: `the latest step and what every request carries leave no room in the window for a summary (~${Math.max(0, Math.round(room))} tokens)`,
    }
  }
  return { cut, summarised, kept, summaryBudget: Math.floor(room) }
}

/**
 * What the summariser is sent of the history before the cut: as the last request had it (a cache hit),
 * then without the tool output, then only the latest groups — the first that fits beside the system
 * prompt, the tools, the instructions and the summary's own budget in the window.
 */
function summariserInputs(mgr: ContextHost, before: readonly Entry[], room: number): Entry[][] {
  const size = (entries: readonly Entry[]) =>
    entries.reduce((n, e) => n + Math.ceil(mgr.estimator.message(e.message) * mgr.scale), 0)
  const stripped = before.map(stripToolOutput)
  const candidates = [[...before], stripped, ...LAST_GROUPS.map((n) => lastGroups(stripped, n))]
  return candidates.filter((c) => c.length > 0 && size(c) <= room)
}

/** Runs the summariser over the history before the cut and records the compaction. Never throws. */
export async function runCompaction(
  mgr: ContextHost,
  opts: { trigger: CompactionRecord['trigger']; focus?: string; signal: AbortSignal },
): Promise<CompactOutcome> {
  const { store, provider } = mgr.opts
  const state = store.getState()
  const plan = planCut(mgr, state)
  const fail = (reason: string, level: 'info' | 'warn' | 'error' = 'warn'): CompactOutcome => {
    mgr.notice(
      level,
      `Compaction ${level === 'info' ? 'stopped' : 'failed'}: ${reason}. The history is kept as it was.`,
    )
    return { ok: false, reason }
  }
  if ('reason' in plan) {
    const reason = `nothing to summarise yet (${plan.reason})`
    // An automatic try is silent about it: the request goes as it is, or the budget's error names why.
    if (opts.trigger === 'auto') return { ok: false, reason }
    return fail(reason, 'info')
  }
  const limit = mgr.limit(state)
  const budget = plan.summaryBudget
  const assembled = mgr.assemble(state, { fit: false })
  const before = assembled.entries.filter((e) => e.source < plan.cut)
  const instructions = summariserPrompt({
    budget,
    ...(opts.focus ? { focus: opts.focus } : {}),
    hasEarlierSummary: state.context.compaction !== null,
  })
  const tokensBefore = mgr.assemble(state, { fit: true }).tokens
  const window = mgr.budget(state)
  const instructionTokens = Math.ceil(mgr.estimator.text(instructions) * mgr.scale) + 4
  const inputs = summariserInputs(
    mgr,
    before,
    window.window - window.margin - budget - mgr.tokens([]) - instructionTokens,
  )
  if (inputs.length === 0)
    return fail('even the latest messages do not fit the context window beside the summary', 'error')
  mgr.notice(
    'info',
    `Compacting: summarising ${plan.summarised.length} messages of a ~${kTokens(tokensBefore)}-token prompt${opts.focus ? ` (focus: ${opts.focus})` : ''}…`,
  )
  // The first input that fits is tried first; a server that still finds it too long gets the next.
  for (const input of inputs) {
    const messages = repairPairing([
      mgr.system,
      ...input.map((e) => e.message),
      { role: 'user', content: instructions },
    ])
    let response: Awaited<ReturnType<typeof provider.stream>>
    try {
      response = await provider.stream(
        {
          model: mgr.opts.settings.summarizerModel ?? mgr.opts.model(),
          messages,
          tools: mgr.opts.toolDefinitions,
          toolChoice: 'none',
          maxTokens: budget,
          signal: opts.signal,
        },
        {},
      )
    } catch (error) {
      if (error instanceof ProviderError && error.kind === 'context_overflow') continue
      return fail(error instanceof Error ? error.message : String(error), 'error')
    }
    if (response.aborted || opts.signal.aborted) return fail('interrupted', 'info')
    if (response.usage) {
      store.dispatch({
        type: 'usage/recorded',
        usage: response.usage,
        contextTokens: store.getState().usage.contextTokens,
        purpose: 'compaction',
      })
    }
    const summary = response.text.trim()
    if (!summary) {
      return fail(
        response.toolCalls.length > 0
          ? 'the model called tools instead of writing a summary'
          : 'the model returned an empty summary',
        'error',
      )
    }
    const draft: CompactionRecord = {
      id: mgr.opts.newId('compaction'),
      summary,
      cut: plan.cut,
      request: latestUserRequest(state),
      trigger: opts.trigger,
      ...(opts.focus ? { focus: opts.focus } : {}),
      summarised: plan.summarised.length,
      tokensBefore,
      tokensAfter: 0,
      at: mgr.opts.now(),
    }
    const after = store.getState()
    const tokensAfter = mgr.assemble(
      { ...after, context: { ...after.context, compaction: draft } },
      { fit: true },
    ).tokens
    const record = { ...draft, tokensAfter }
    store.dispatch({ type: 'context/compacted', compaction: record })
    const pct = (n: number) => Math.round((n / limit) * 100)
    mgr.notice(
      'info',
      `Compacted ${record.summarised} messages into a summary: ~${kTokens(tokensBefore)} → ~${kTokens(tokensAfter)} tokens (${pct(tokensBefore)}% → ${pct(tokensAfter)}% of the window). The transcript keeps them all.`,
    )
    return { ok: true, record }
  }
  return fail('even the shortened history does not fit the context window for summarising', 'error')
}

/** What `/compact` would summarise and keep, with the token figures. */
export async function previewCompaction(mgr: ContextHost, focus?: string): Promise<CompactionPreview> {
  await mgr.estimator.ready()
  const state = mgr.opts.store.getState()
  const limit = mgr.limit(state)
  const assembled = mgr.assemble(state, { fit: false })
  const sizeOf = new Map<number, number>()
  for (const entry of assembled.entries)
    if (entry.source >= 0) sizeOf.set(entry.source, mgr.estimator.message(entry.message))
  const tokens = (i: number) => sizeOf.get(i) ?? mgr.estimator.message(state.messages[i] as ChatMessage)
  const systemTokens = mgr.estimator.message(mgr.system)
  const toolsTokens = mgr.estimator.tools(mgr.opts.toolDefinitions)
  const base: CompactionPreview = {
    ok: false,
    ...(focus ? { focus } : {}),
    contextLimit: limit,
    triggerTokens: Math.floor(mgr.compactAt(state) * limit),
    tokensNow: assembled.tokens,
    summarise: { messages: 0, tokens: 0, user: 0, assistant: 0, tool: 0, samples: [] },
    keep: {
      systemTokens,
      toolsTokens,
      summaryBudget: summaryBudget(limit),
      pinned: [],
      pinnedTokens: 0,
      recentMessages: 0,
      recentTokens: 0,
    },
    tokensAfter: assembled.tokens,
  }
  const plan = planCut(mgr, state)
  if ('reason' in plan) return { ...base, reason: `nothing to summarise yet: ${plan.reason}` }
  const summarise = { ...base.summarise }
  for (const i of plan.summarised) {
    const role = state.messages[i]?.role
    summarise.messages++
    summarise.tokens += tokens(i)
    if (role === 'user') summarise.user++
    else if (role === 'assistant') summarise.assistant++
    else if (role === 'tool') summarise.tool++
  }
  summarise.samples = plan.summarised
    .filter((i) => state.messages[i]?.role !== 'tool')
    .slice(0, 4)
    .map((i) => labelOf(state, i))
  const latest = latestUserRequest(state)
  const ids = state.context.messageIds
  const isPinned = (i: number) => Boolean(ids[i] && state.context.pins[ids[i] as string])
  // Kept for a pin: the pinned messages and the rest of their groups (a call with its results).
  const pinnedIdx = plan.kept.filter((i) => i !== latest || isPinned(i))
  let recentTokens = 0
  for (let i = plan.cut; i < state.messages.length; i++) recentTokens += tokens(i)
  let keptTokens = 0
  for (const i of plan.kept) keptTokens += tokens(i)
  const pinnedItems = new Set(pinnedIdx.filter(isPinned).map((i) => ids[i] as string))
  return {
    ...base,
    ok: true,
    summarise,
    keep: {
      ...base.keep,
      summaryBudget: plan.summaryBudget,
      ...(latest >= 0 && latest < plan.cut ? { latestRequest: labelOf(state, latest) } : {}),
      pinned: [...pinnedItems].map((id) => labelOf(state, ids.indexOf(id))),
      pinnedTokens: pinnedIdx.reduce((n, i) => n + tokens(i), 0),
      recentMessages: state.messages.length - plan.cut,
      recentTokens,
    },
    tokensAfter: systemTokens + toolsTokens + plan.summaryBudget + keptTokens + recentTokens,
  }
}

/** 8067 → "8.1k", 950 → "950". */
function kTokens(n: number): string {
  return n < 1000 ? String(n) : `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`
}

/** How the transcript names the item a history message came from, in one short line. */
export function labelOf(state: State, index: number): string {
  const id = state.context.messageIds[index]
  const item = id ? state.transcript.items[id] : undefined
  const short = (text: string, max = 48) => {
    const flat = text.replace(/\s+/g, ' ').trim()
    return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
  }
  if (item?.kind === 'user') return `› ${short(item.text)}`
  if (item?.kind === 'assistant') return `“${short(item.text || item.reasoning)}”`
  if (item?.kind === 'tool')
    return short(`${item.name} ${item.summary.replace(new RegExp(`^${item.name}\\s*`), '')}`)
  const message = state.messages[index]
  // A reply that only called tools has no card of its own: name what it called.
  const calls = message?.role === 'assistant' ? (message.tool_calls ?? []) : []
  const called = calls[0] ? state.transcript.items[calls[0].id] : undefined
  if (called?.kind === 'tool') {
    const more = calls.length > 1 ? ` +${calls.length - 1}` : ''
    return `→ ${labelOf(state, state.context.messageIds.indexOf(called.id))}${more}`
  }
  const text = typeof message?.content === 'string' ? message.content : ''
  return `(${message?.role ?? 'message'}) ${short(text)}`
}

function stripToolOutput(entry: Entry): Entry {
  const message = entry.message
  if (message.role !== 'tool' || message.content.length <= 300) return entry
  return {
    ...entry,
    message: {
      ...message,
      content: `${message.content.slice(0, 300)}… [${message.content.length} chars; the rest left out for the summary]`,
    },
  }
}

/** The summary (if any) and the last `n` groups — a message and the tool results after it. */
function lastGroups(entries: readonly Entry[], n: number): Entry[] {
  const head = entries[0]?.role === 'summary' ? [entries[0]] : []
  const starts: number[] = []
  entries.forEach((e, i) => {
    if (e.role !== 'summary' && e.message.role !== 'tool') starts.push(i)
  })
  const from = starts.length > n ? (starts[starts.length - n] as number) : head.length
  return [...head, ...entries.slice(from)]
}

/** History index of the last message the user typed (not one the runtime added); -1 when none. */
export function latestUserRequest(state: State): number {
  const ids = state.context.messageIds
  for (let i = ids.length - 1; i >= 0; i--) {
    const id = ids[i]
    if (id && state.transcript.items[id]?.kind === 'user') return i
  }
  return -1
}
