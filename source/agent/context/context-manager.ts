import type { ChatMessage, ToolMessage, UserMessage } from '../../store/messages.js'
import { repairPairing } from '../../provider/pairing.js'
import type { ModelProfile } from '../../provider/model-profiles.js'
import type { ProviderError } from '../../provider/types.js'
import type { CompactionRecord } from '../../store/domain.js'
import type { State } from '../../store/state.js'
import {
  compactedEntries,
  type Entry,
  keptBefore,
  OUTPUT_RESERVE,
  summaryMessage,
  truncateToFit,
} from './compaction.js'
import { type CompactOutcome, latestUserRequest, previewCompaction, runCompaction } from './compactor.js'
import { encodingFor, TokenEstimator } from './estimate.js'
import { type MaskPlan, placeholderMessage, planMasking } from './masking.js'
import { overflowFigures } from './overflow.js'
import { RequestMeter } from './telemetry.js'
import type { Assembled, ContextManagerOptions } from './options.js'
import type { CompactionPreview, ContextReport } from './types.js'

export type { Assembled, ContextManagerOptions, ContextSettings } from './options.js'

/**
 * The context economy of one session (docs/context.md): assembles each request from the store's history —
 * compaction summary, observation masking, truncation as the last resort — compacts when the window
 * fills up, recovers from an overflow, and measures every request. A view, never an edit: the store and
 * the session log keep every message whole. Caches are per message object (the store never mutates
 * one), so a step costs its new messages, not the whole history.
 */
export class ContextManager {
  readonly opts: ContextManagerOptions
  readonly estimator: TokenEstimator
  readonly system: ChatMessage
  readonly #meter: RequestMeter
  readonly #placeholders = new WeakMap<ChatMessage, ToolMessage>()
  readonly #unmaskable = new WeakSet<ChatMessage>()
  readonly #summaries = new WeakMap<CompactionRecord, UserMessage>()
  #marked: Set<string> | null = null
  #historyLength = 0
  /** The turn whose automatic compaction failed (not retried in that turn); undefined when none. */
  #autoFailedTurn: string | null | undefined = undefined
  /** Set from an endpoint's overflow report when it counted more tokens than we estimated. */
  #scale = 1
  #spillWarned = false

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

  /** Estimated prompt tokens of entries plus the system prompt and tools, scaled by what overflows taught. */
  tokens(entries: readonly Entry[]): number {
    let total = this.estimator.message(this.system) + this.estimator.tools(this.opts.toolDefinitions)
    for (const entry of entries) total += this.estimator.message(entry.message)
    return Math.ceil(total * this.#scale)
  }

  /**
   * The messages of the next request (system prompt first). Spills newly masked results, compacts first
   * when the estimate reaches `compactAt` of the window, and records the request's figures in the store.
   */
  async prepare(opts: { step: number; signal: AbortSignal }): Promise<ChatMessage[]> {
    const store = this.opts.store
    let state = store.getState()
    this.#noticeClear(state)
    const trigger = this.compactAt(state) * this.limit(state)
    let final = await this.#assembleWithSpill(state)
    if (final.tokens >= trigger * 0.5 && !this.estimator.exact) {
      // Near the threshold exact counts matter: load the model's tokenizer (if it has one). Only then —
      // an encoding takes most of a second to load, which an ordinary step should not pay.
      await this.estimator.ready()
      if (this.estimator.exact) final = this.assemble(state, { truncate: true })
    }
    if (final.tokens >= trigger && this.#mayAutoCompact(state, final.tokens)) {
      const outcome = await this.compact({ trigger: 'auto', signal: opts.signal })
      if (!outcome.ok && !opts.signal.aborted) this.#autoFailedTurn = state.run.turnId
      state = store.getState()
      final = await this.#assembleWithSpill(state)
    }
    this.#syncMarks(final)
    const messages = repairPairing([this.system, ...final.entries.map((e) => e.message)])
    const stats = this.#meter.measure({
      step: opts.step,
      system: this.system,
      tools: this.opts.toolDefinitions,
      entries: final.entries,
      originals: final.originals,
      pinned: final.pinned,
      truncated: final.dropped,
    })
    store.dispatch({ type: 'context/measured', stats })
    return messages
  }

  /** Builds the request's entries from the store, with the placeholders spilled so far. Synchronous. */
  assemble(state: State, opts: { truncate: boolean; plan?: MaskPlan }): Assembled {
    this.estimator.refresh()
    const messages = state.messages
    const ids = state.context.messageIds
    const pins = state.context.pins
    const pinnedAt = (i: number) => {
      const id = ids[i]
      return id !== undefined && id !== '' && pins[id] === true
    }
    const record = state.context.compaction
    const kept = record
      ? keptBefore(messages, record.cut, { pinned: pinnedAt, latestUserRequest: record.request })
      : []
    let entries = compactedEntries(messages, record ? { record, summary: this.#summary(record) } : null, kept)
    const plan = opts.plan ?? this.#maskPlan(state)
    const originals = new Map<Entry, ChatMessage>()
    if (plan.indices.length > 0) {
      const masked = new Set(plan.indices)
      entries = entries.map((entry) => {
        if (!masked.has(entry.source)) return entry
        const placeholder = this.#placeholders.get(entry.message)
        if (!placeholder) return entry
        const swapped: Entry = { message: placeholder, source: entry.source, role: 'masked' }
        originals.set(swapped, entry.message)
        return swapped
      })
    }
    let dropped = 0
    const pinned = (entry: Entry) => entry.source >= 0 && pinnedAt(entry.source)
    const fixed = this.tokens([])
    let total = fixed
    for (const entry of entries) total += Math.ceil(this.estimator.message(entry.message) * this.#scale)
    if (opts.truncate) {
      const limit = this.limit(state)
      const budget = (1 - OUTPUT_RESERVE) * limit
      // Compaction comes first; cutting messages out is for when it could not bring the prompt down.
      if (total >= Math.max(1 - OUTPUT_RESERVE, this.compactAt(state)) * limit) {
        const latest = latestUserRequest(state)
        const result = truncateToFit(entries, {
          budget,
          fixed,
          tokens: (e) => Math.ceil(this.estimator.message(e.message) * this.#scale),
          protect: (e) => e.source === latest || pinned(e),
        })
        entries = result.entries
        dropped = result.dropped
      }
    }
    return { entries, originals, plan, dropped, tokens: total, pinned }
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
   * was sent), compacts, and says so. The caller retries the step once.
   */
  async recoverOverflow(error: ProviderError, signal: AbortSignal): Promise<void> {
    const { store } = this.opts
    const state = store.getState()
    const figures = overflowFigures(error.message)
    const sent = state.context.lastRequest?.estimatedTokens ?? 0
    if (figures.requested !== undefined && sent > 0 && figures.requested > sent * this.#scale) {
      this.#scale = figures.requested / (sent / this.#scale)
    }
    const assumed = figures.limit ?? Math.floor(Math.max(sent, figures.requested ?? 0) * 0.9)
    const known = figures.limit !== undefined
    if (assumed > 0 && assumed < this.limit(state)) {
      store.dispatch({ type: 'context/configured', learnedLimit: assumed })
    }
    const tokensSent =
      figures.requested !== undefined ? `${figures.requested} tokens sent` : `about ${sent} tokens sent`
    const said = known
      ? `${tokensSent} for a window of ${figures.limit}`
      : `${tokensSent}; the endpoint named no window, so assuming one of about ${assumed}`
    this.notice(
      'warn',
      `The endpoint says the conversation does not fit the model's context window (${said}); compacting and retrying once.`,
    )
    await this.compact({ trigger: 'overflow', signal })
  }

  /** After a second overflow: says so in the transcript with the figures, and returns the turn's error. */
  overflowStop(error: ProviderError): string {
    const state = this.opts.store.getState()
    const figures = overflowFigures(error.message)
    const sent = figures.requested ?? state.context.lastRequest?.estimatedTokens ?? 0
    const limit = figures.limit ?? this.limit(state)
    const message =
      `the conversation still does not fit the model's context window after compacting: ` +
      `${figures.requested !== undefined ? '' : 'about '}${sent} tokens sent, window ${limit} tokens. ` +
      'Pin less, /clear to start afresh, or use a model with a larger window.'
    this.notice('error', message)
    return message
  }

  /** `/context`: the next request's parts as things stand, and the last request's figures. */
  report(): ContextReport {
    const state = this.opts.store.getState()
    this.estimator.refresh()
    const assembled = this.assemble(state, { truncate: true })
    const b = this.#meter.breakdown({
      system: this.system,
      tools: this.opts.toolDefinitions,
      entries: assembled.entries,
      pinned: assembled.pinned,
    })
    const profile = this.profile()
    return {
      model: this.opts.model(),
      contextLimit: this.limit(state),
      limitSource:
        this.limit(state) < profile.contextLimit
          ? 'endpoint error'
          : (profile.contextLimitSource ?? 'profile'),
      compactAt: this.compactAt(state),
      observationWindow: this.window(state),
      masking: this.opts.settings.masking,
      next: {
        ...b,
        total: b.system + b.tools + b.history + b.toolOutput + b.masked,
        maskedResults: assembled.entries.filter((e) => e.role === 'masked').length,
        pinnedItems: Object.keys(state.context.pins).length,
        truncated: assembled.dropped,
      },
      exact: this.estimator.exact,
      compactions: state.context.compactions,
      last: state.context.lastRequest,
    }
  }

  notice(level: 'info' | 'warn' | 'error', text: string): void {
    this.opts.store.dispatch({ type: 'notice/added', id: this.opts.newId('notice'), level, text })
  }

  /** Assembles after spilling the results newly due for masking (each once; the file is content-addressed). */
  async #assembleWithSpill(state: State): Promise<Assembled> {
    const plan = this.#maskPlan(state)
    for (const index of plan.indices) {
      const original = state.messages[index] as ToolMessage
      if (this.#placeholders.has(original) || this.#unmaskable.has(original)) continue
      const id = state.context.messageIds[index] ?? ''
      const item = state.transcript.items[id]
      const hint = item?.kind === 'tool' ? item.name : 'tool-result'
      try {
        const path = await this.opts.spill.spill(original.content, hint)
        const placeholder = placeholderMessage(original, path)
        if (placeholder.content.length < original.content.length)
          this.#placeholders.set(original, placeholder)
        else this.#unmaskable.add(original)
      } catch (error) {
        // Without a file to restore it from, a result must stay whole.
        this.#unmaskable.add(original)
        if (!this.#spillWarned) {
          this.#spillWarned = true
          this.notice(
            'warn',
            `could not save a tool result for masking (${error instanceof Error ? error.message : String(error)}); such results stay in the context whole`,
          )
        }
      }
    }
    return this.assemble(state, { truncate: true, plan })
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
    if (this.#autoFailedTurn !== undefined && this.#autoFailedTurn === state.run.turnId) return false
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
    const state = this.opts.store.getState()
    if (!this.#marked) {
      this.#marked = new Set()
      for (const id of state.transcript.order) {
        const item = state.transcript.items[id]
        if (item?.kind === 'tool' && item.masked) this.#marked.add(id)
      }
    }
    const ids = state.context.messageIds
    const masked: string[] = []
    const unmasked: string[] = []
    for (const entry of assembled.entries) {
      const id = entry.source >= 0 ? ids[entry.source] : undefined
      if (!id) continue
      if (entry.role === 'masked' && !this.#marked.has(id)) masked.push(id)
      else if (entry.role !== 'masked' && this.#marked.has(id)) unmasked.push(id)
    }
    if (masked.length === 0 && unmasked.length === 0) return
    for (const id of masked) this.#marked.add(id)
    for (const id of unmasked) this.#marked.delete(id)
    this.opts.store.dispatch({ type: 'context/masked', masked, unmasked })
  }

  /** After `/clear` the next request shares nothing with the last one. */
  #noticeClear(state: State): void {
    if (state.messages.length < this.#historyLength) {
      this.#meter.reset()
      this.#marked = null
      this.#autoFailedTurn = undefined
    }
    this.#historyLength = state.messages.length
  }
}
