import type { ContextWarning } from '../../store/domain.js'
import type { State } from '../../store/state.js'
import {
  budgetError,
  ContextBudgetError,
  isKept,
  type KeptSet,
  keptParts,
  latestStepStart,
  MIN_SUMMARY,
  oversizedResults,
} from './budget.js'
import type { Entry } from './compaction.js'
import { latestUserRequest } from './compactor.js'
import { MASK_MIN_CHARS } from './masking.js'
import { definitionsWarning, servedWindowWarning } from './definitions-warning.js'
import type { Assembled, ContextHost } from './options.js'

/**
 * The context budget's checks around a request (docs/context.md#the-budget), over what the context
 * manager exposes: the start-up warning about the definitions, the results too big for any request, and
 * the error of a request that cannot fit.
 */

/** The always-kept messages of the history as it stands (budget.ts). */
export function keptSetOf(state: State): KeptSet {
  const request = latestUserRequest(state)
  const { messageIds, pins } = state.context
  return {
    request,
    stepStart: latestStepStart(state.messages, request),
    pinned: (i) => {
      const id = messageIds[i]
      return id !== undefined && id !== '' && pins[id] === true
    },
  }
}

/** History indices of the tool results outside the always-kept set that a placeholder would shorten. */
export function maskableOlder(assembled: Assembled, kept: KeptSet): number[] {
  const out: number[] = []
  for (const entry of assembled.entries) {
    const m = entry.message
    if (entry.role === 'masked' || m.role !== 'tool' || m.content.length <= MASK_MIN_CHARS) continue
    if (!isKept(entry, kept)) out.push(entry.source)
  }
  return out
}

/** Tokens of the error envelope a result that cannot fit is replaced by. */
const ENVELOPE_TOKENS = 120

const scaled = (host: ContextHost, tokens: number) => Math.ceil(tokens * host.scale)

/** The definitions warning for the window as it stands, or null when they take less than a third of it. */
export function definitionsCheck(host: ContextHost): { text: string; warning: ContextWarning } | null {
  const state = host.opts.store.getState()
  const tools = host.opts.toolDefinitions
  return definitionsWarning({
    tokens: scaled(host, host.estimator.tools(tools)),
    tools: tools.length,
    bytes: Buffer.byteLength(JSON.stringify(tools)),
    window: host.limit(state),
    source: host.limitSource(state),
    sourceText: host.sourceText(state),
    budget: host.budget(state),
    systemTokens: scaled(host, host.estimator.message(host.system)),
  })
}

/** The warning that settings give a larger window than the endpoint serves, or null. */
export function servedWindowCheck(host: ContextHost): { text: string; warning: ContextWarning } | null {
  const model = host.opts.model()
  const profile = host.opts.profile(model)
  return servedWindowWarning({ model, window: host.limit(), served: profile.servedContextLimit })
}

export interface Oversized {
  /** Index into the results asked about. */
  index: number
  tokens: number
  /** What the window leaves for the step's results. */
  room: number
  /** The file the whole result was saved to; null when it could not be saved. */
  path: string | null
}

/**
 * Which of a step's new tool results cannot be sent whole in any request, however the older history
 * gives way: each is saved to a file, whose path goes in the error envelope the model gets instead.
 */
export async function oversizedOf(
  host: ContextHost,
  results: ReadonlyArray<{ name: string; content: string }>,
): Promise<Oversized[]> {
  const state = host.opts.store.getState()
  host.estimator.refresh()
  const sizes = results.map((r) => scaled(host, host.estimator.text(r.content) + 4))
  const room = resultRoom(host, state)
  if (sizes.reduce((n, x) => n + x, 0) <= room) return []
  const out: Oversized[] = []
  for (const index of oversizedResults(sizes, room, ENVELOPE_TOKENS)) {
    const result = results[index] as { name: string; content: string }
    const path = await host.opts.spill.spill(result.content, result.name).catch(() => null)
    out.push({ index, tokens: sizes[index] as number, room, path })
  }
  return out
}

/**
 * What the window leaves for the results of the step that just ran: the prompt's budget less the system
 * prompt, the tools, the summary, pinned items, the latest request, the step's own reply, and room for a
 * short summary of everything older.
 */
function resultRoom(host: ContextHost, state: State): number {
  const assembled = host.assemble(state, { fit: false })
  const kept = host.keptSet(state)
  let used = host.tokens([])
  let older = false
  for (const entry of assembled.entries) {
    if (isKept(entry, kept)) used += scaled(host, host.estimator.message(entry.message))
    else older = true
  }
  return host.budget(state).prompt - used - (older ? MIN_SUMMARY : 0)
}

/** The error of a request whose always-kept part does not fit, naming the part too big. */
export function budgetErrorOf(
  host: ContextHost,
  state: State,
  final: Assembled,
  compaction: string | undefined,
): ContextBudgetError {
  const parts = keptParts(final.entries, {
    kept: host.keptSet(state),
    tokens: (entry: Entry) => scaled(host, host.estimator.message(entry.message)),
    systemTokens: scaled(host, host.estimator.message(host.system)),
    toolTokens: scaled(host, host.estimator.tools(host.opts.toolDefinitions)),
    toolCount: host.opts.toolDefinitions.length,
    toolName: (entry) => {
      const id = state.context.messageIds[entry.source]
      const item = id ? state.transcript.items[id] : undefined
      return item?.kind === 'tool' ? item.name : 'tool'
    },
  })
  const { message, largest } = budgetError(parts, {
    budget: host.budget(state),
    source: host.sourceText(state),
    ...(compaction ? { compaction } : {}),
  })
  return new ContextBudgetError(message, largest)
}
