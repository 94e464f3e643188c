import type { ChatMessage, UserMessage } from '../../store/messages.js'
import { repairPairing } from '../../provider/pairing.js'
import type { ModelProfile } from '../../provider/model-profiles.js'
import type { ProviderError } from '../../provider/types.js'
import type { CompactionRecord } from '../../store/domain.js'
import type { State } from '../../store/state.js'
import { type Budget, isKept, type KeptSet, maskToFit, requestBudget, scaleFromUsage } from './budget.js'
import {
  budgetErrorOf,
  definitionsCheck,
  keptSetOf,
  maskableOlder,
  type Oversized,
  oversizedOf,
  servedWindowCheck,
} from './budget-checks.js'
import { compactedEntries, type Entry, keptBefore, summaryMessage } from './compaction.js'
import { type CompactOutcome, previewCompaction, runCompaction } from './compactor.js'
import { windowSourceText } from './definitions-warning.js'
import { encodingFor, TokenEstimator } from './estimate.js'
import { type MaskPlan, planMasking } from './masking.js'
import { Placeholders, syncMaskMarks } from './placeholders.js'
import { contextReport } from './context-report.js'
import { learnFromOverflow, overflowStopMessage } from './overflow-recovery.js'
import { RequestMeter } from './telemetry.js'
import type { Assembled, ContextManagerOptions } from './options.js'
import type { CompactionPreview, ContextReport } from './types.js'

export type { Assembled, ContextManagerOptions, ContextSettings } from './options.js'
export type { Oversized } from './budget-checks.js'

/**
 * The context economy of one session (docs/context.md): assembles each request from the store's history —
 * compaction summary, observation masking — within the window's budget (budget.ts: what is always kept,
 * masking then compaction, else an error naming what is too big), compacts when the window fills up,
 * recovers from an overflow, and measures every request. A view, never an edit: the store and the session
 * log keep every message whole. Caches are per message object (the store never mutates one), so a step
 * costs its new messages, not the whole history.
 */
export class ContextManager {
  readonly opts: ContextManagerOptions
  readonly estimator: TokenEstimator
  readonly system: ChatMessage
  readonly #meter: RequestMeter
  readonly #placeholders = new Placeholders()
  readonly #summaries = new WeakMap<CompactionRecord, UserMessage>()
  #marked: Set<string> | null = null
  #historyLength = 0
  /**
   * The turn whose automatic compaction failed, why, and the history's length then: not retried in that
   * turn, unless a request cannot fit without it and the history has grown since. Undefined when none.
   */
  #autoFailed: { turn: string | null; reason: string; messages: number } | undefined = undefined
  /**
   * How much more the server counts than we estimate: from its `usage.prompt_tokens` for the last request,
   * or from an overflow report. Never below 1 (budget.ts scaleFromUsage).
   */
  #scale = 1
  /** What an endpoint's overflow report taught (the scale never drops below it). */
  #overflowScale = 1
  /** The server's count agreed with ours once: the estimate's margin narrows. */
  #measured = false
  /** What the definitions warning last said it for (definitions tokens and window), so it is said once. */
  #warnedFor = ''

  constructor(opts: ContextManagerOptions) {
    this.opts = opts
    this.system = { role: 'system', content: opts.systemPrompt }
    this.estimator = new TokenEstimator({
      ratio: () => this.profile().charToTokenRatio,
      encoding: () => encodingFor(opts.model()),
      ...(opts.loadCounter ? { load: opts.loadCounter } : {}),
    })
    this.#meter = new RequestMeter(this.estimator)
  }

  /** Asked afresh each time: the session's resolver caches it, and a late endpoint listing can change it. */
  profile(): ModelProfile {
    return this.opts.profile(this.opts.model())
  }

  limit(state = this.opts.store.getState()): number {
    const profile = this.profile().contextLimit
    const learned = state.context.learnedLimit
    return learned !== null && learned < profile ? learned : profile
  }

  window(state = this.opts.store.getState()): number {
    return (
      state.context.overrides.observationWindow ??
      this.opts.settings.observationWindow ??
      this.profile().observationWindow
    )
  }

  compactAt(state = this.opts.store.getState()): number {
    return state.context.overrides.compactAt ?? this.opts.settings.compactAt ?? this.profile().compactAt
  }

  /** What a request may take of the window (budget.ts): the prompt's share, the reply's, the margin. */
  budget(state = this.opts.store.getState()): Budget {
    return requestBudget(this.limit(state), this.#measured)
  }

  /** Where the window's size comes from, as /context and the errors name it. */
  limitSource(state = this.opts.store.getState()): ContextReport['limitSource'] {
    const profile = this.profile()
    if (this.limit(state) < profile.contextLimit) return 'endpoint error'
    return profile.contextLimitSource ?? 'profile'
  }

  sourceText(state: State): string {
    return windowSourceText(this.limitSource(state), this.profile().contextLimitDetail)
  }

  /** How much more the server counts than we estimate (at least 1). */
  get scale(): number {
    return this.#scale
  }

  /** Estimated prompt tokens of entries plus the system prompt and tools, scaled by what overflows taught. */
  tokens(entries: readonly Entry[]): number {
    let total = this.estimator.message(this.system) + this.estimator.tools(this.opts.toolDefinitions)
    for (const entry of entries) total += this.estimator.message(entry.message)
    return Math.ceil(total * this.#scale)
  }

  /**
   * The messages of the next request (system prompt first), within the window's budget: spills newly
   * masked results, compacts when the estimate reaches `compactAt` of the window or the request would not
   * fit (once per request), and records the request's figures in the store. Throws ContextBudgetError when
   * what every request must carry does not fit (docs/context.md#the-budget).
   */
  async prepare(opts: { step: number; signal: AbortSignal }): Promise<ChatMessage[]> {
    const store = this.opts.store
    let state = store.getState()
    this.#noticeClear(state)
    this.#learn(state)
    this.checkDefinitions()
    const trigger = this.compactAt(state) * this.limit(state)
    let final = await this.#assembleWithSpill(state)
    if (final.tokens >= trigger * 0.5 && !this.estimator.exact) {
      // Near the threshold exact counts matter: load the model's tokenizer (if it has one). Only then —
      // an encoding takes most of a second to load, which an ordinary step should not pay.
      await this.estimator.ready()
      if (this.estimator.exact) final = await this.#assembleWithSpill(state)
    }
    const over = () => final.tokens > this.budget(state).prompt
    let compaction: string | undefined
    if (over() || (final.tokens >= trigger && this.#mayAutoCompact(state, final.tokens))) {
      const failed = this.#autoFailed
      // "Nothing to summarise yet" at step 1 must not stop the compaction a later step needs to fit.
      if (
        failed !== undefined &&
        failed.turn === state.run.turnId &&
        failed.messages >= state.messages.length
      ) {
        compaction = `compacting failed earlier in this turn (${failed.reason})`
      } else {
        const outcome = await this.compact({ trigger: 'auto', signal: opts.signal })
        if (!outcome.ok) {
          compaction = `compacting did not help (${outcome.reason})`
          if (!opts.signal.aborted)
            this.#autoFailed = {
              turn: state.run.turnId,
              reason: outcome.reason,
              messages: state.messages.length,
            }
        }
        state = store.getState()
        final = await this.#assembleWithSpill(state)
      }
    }
    // An interrupted step sends nothing, so it needs no error either.
    if (over() && !opts.signal.aborted) throw budgetErrorOf(this, state, final, compaction)
    this.#syncMarks(final)
    const messages = repairPairing([this.system, ...final.entries.map((e) => e.message)])
    const stats = this.#meter.measure({
      step: opts.step,
      system: this.system,
      tools: this.opts.toolDefinitions,
      entries: final.entries,
      originals: final.originals,
      pinned: final.pinned,
      truncated: 0,
    })
    stats.window = this.limit(state)
    stats.windowSource = this.sourceText(state)
    store.dispatch({ type: 'context/measured', stats })
    return messages
  }

  /**
   * Says once, as a warning, when the tool definitions alone take more than a third of the window
   * (docs/context.md#the-budget): the figures and the fix. Asked before every request and when the
   * window becomes known; cheap when nothing changed.
   */
  checkDefinitions(): void {
    const key = `${this.estimator.tools(this.opts.toolDefinitions)}|${this.limit()}`
    if (key === this.#warnedFor) return
    this.#warnedFor = key
    for (const warning of [servedWindowCheck(this), definitionsCheck(this)])
      if (warning)
        this.opts.store.dispatch({ type: 'context/warned', id: this.opts.newId('notice'), ...warning })
  }

  /** After a step's tools ran: the results that cannot be sent whole in any request (budget-checks.ts). */
  oversized(results: ReadonlyArray<{ name: string; content: string }>): Promise<Oversized[]> {
    return oversizedOf(this, results)
  }

  /** Learns from the server's count of the last request how far off the estimates are. */
  #learn(state: State): void {
    const last = state.context.lastRequest
    const learned = scaleFromUsage(last?.promptTokens, last?.estimatedTokens ?? 0)
    if (!learned) return
    this.#scale = Math.max(learned.scale, this.#overflowScale)
    this.#measured = this.#measured || learned.trusted
  }

  /** The always-kept messages of the history as it stands (budget.ts). */
  keptSet(state: State): KeptSet {
    return keptSetOf(state)
  }

  /**
   * Builds the request's entries from the store, with the placeholders spilled so far. Synchronous.
   * `fit`: when they do not fit the budget, every older tool result with a placeholder is sent as one.
   */
  assemble(state: State, opts: { fit: boolean; plan?: MaskPlan }): Assembled {
    this.estimator.refresh()
    const messages = state.messages
    const kept = this.keptSet(state)
    const record = state.context.compaction
    const before = record
      ? keptBefore(messages, record.cut, { pinned: kept.pinned, latestUserRequest: record.request })
      : []
    let entries = compactedEntries(
      messages,
      record ? { record, summary: this.#summary(record) } : null,
      before,
    )
    const plan = opts.plan ?? this.#maskPlan(state)
    const originals = new Map<Entry, ChatMessage>()
    const placeholder = (entry: Entry): Entry | null => {
      const swapped = this.#placeholders.get(entry.message)
      if (!swapped) return null
      const out: Entry = { message: swapped, source: entry.source, role: 'masked' }
      originals.set(out, entry.message)
      return out
    }
    if (plan.indices.length > 0) {
      const masked = new Set(plan.indices)
      // The latest step's results always go whole, even when it made more calls than the window.
      entries = entries.map((entry) =>
        masked.has(entry.source) && !isKept(entry, kept) ? (placeholder(entry) ?? entry) : entry,
      )
    }
    const pinned = (entry: Entry) => entry.source >= 0 && kept.pinned(entry.source)
    const tokens = (entry: Entry) => Math.ceil(this.estimator.message(entry.message) * this.#scale)
    const fixed = this.tokens([])
    if (!opts.fit) {
      let total = fixed
      for (const entry of entries) total += tokens(entry)
      return { entries, originals, plan, dropped: 0, tokens: total, pinned }
    }
    const fitted = maskToFit(entries, {
      budget: this.budget(state).prompt,
      fixed,
      tokens,
      kept,
      placeholder,
    })
    return { entries: fitted.entries, originals, plan, dropped: 0, tokens: fitted.total, pinned }
  }

  async compact(opts: {
    trigger: CompactionRecord['trigger']
    focus?: string
    signal: AbortSignal
  }): Promise<CompactOutcome> {
    const trigger = opts.trigger === 'manual' ? 'manual' : 'auto'
    await this.opts.beforeCompact?.(trigger, opts.focus ?? '', opts.signal)
    return runCompaction(this, opts)
  }

  preview(focus?: string): Promise<CompactionPreview> {
    return previewCompaction(this, focus)
  }

  /**
   * After the endpoint refused a request as too long: learns the window it named (or infers one from what
   * was sent) and how far off the estimate was, compacts, and says so. The caller retries the step once.
   */
  async recoverOverflow(error: ProviderError, signal: AbortSignal): Promise<void> {
    const learned = learnFromOverflow(this, error)
    if (learned !== undefined) {
      this.#overflowScale = learned
      this.#scale = Math.max(this.#scale, learned)
    }
    await this.compact({ trigger: 'overflow', signal })
  }

  /** After a second overflow: says so in the transcript with the figures, and returns the turn's error. */
  overflowStop(error: ProviderError): string {
    return overflowStopMessage(this, error)
  }

  /** `/context`: the next request's parts as things stand, and the last request's figures. */
  report(): ContextReport {
    const state = this.opts.store.getState()
    this.estimator.refresh()
    const assembled = this.assemble(state, { fit: true })
    const breakdown = this.#meter.breakdown({
      system: this.system,
      tools: this.opts.toolDefinitions,
      entries: assembled.entries,
      pinned: assembled.pinned,
    })
    return contextReport(this, state, assembled, breakdown)
  }

  notice(level: 'info' | 'warn' | 'error', text: string): void {
    this.opts.store.dispatch({ type: 'notice/added', id: this.opts.newId('notice'), level, text })
  }

  /**
   * Assembles after spilling the results newly due for masking (each once; the file is content-addressed):
   * those the epoch plan masks and, when the request would not fit as it is, every older tool result.
   */
  async #assembleWithSpill(state: State): Promise<Assembled> {
    const plan = this.#maskPlan(state)
    const due = new Set(plan.indices)
    const plain = this.assemble(state, { fit: false, plan })
    // When the request would not fit as it is, every older result gets a placeholder (budget.ts maskToFit).
    if (plain.tokens > this.budget(state).prompt)
      for (const i of maskableOlder(plain, keptSetOf(state))) due.add(i)
    await this.#placeholders.save(state, due, this.opts.spill, (text) => this.notice('warn', text))
    return this.assemble(state, { fit: true, plan })
  }

  #maskPlan(state: State): MaskPlan {
    if (!this.opts.settings.masking) return { total: 0, boundary: 0, indices: [] }
    const { messageIds, pins } = state.context
    return planMasking(state.messages, {
      window: this.window(state),
      pinned: (i) => {
        const id = messageIds[i]
        return id !== undefined && id !== '' && pins[id] === true
      },
    })
  }

  #mayAutoCompact(state: State, estimate: number): boolean {
    if (this.#autoFailed !== undefined && this.#autoFailed.turn === state.run.turnId) return false
    const last = state.context.compaction
    // A compaction that could not bring the prompt under the trigger is not repeated every step: only
    // once the conversation has grown by another tenth of the window.
    return !last || estimate >= last.tokensAfter + 0.1 * this.limit(state)
  }

  #summary(record: CompactionRecord): UserMessage {
    let message = this.#summaries.get(record)
    if (!message) {
      message = summaryMessage(record)
      this.#summaries.set(record, message)
    }
    return message
  }

  /** Marks the transcript's tool cards the request shows as placeholders (and unmarks ones shown whole). */
  #syncMarks(assembled: Assembled): void {
    const store = this.opts.store
    this.#marked = syncMaskMarks(store.getState(), this.#marked, assembled, (action) =>
      store.dispatch(action),
    )
  }

  /** After `/clear` the next request shares nothing with the last one. */
  #noticeClear(state: State): void {
    if (state.messages.length < this.#historyLength) {
      this.#meter.reset()
      this.#marked = null
      this.#autoFailed = undefined
    }
    this.#historyLength = state.messages.length
  }
}
