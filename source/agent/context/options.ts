import type { ChatMessage, ToolDefinition } from '../../store/messages.js'
import type { ModelProfile } from '../../provider/model-profiles.js'
import type { ChatProvider } from '../../provider/types.js'
import type { Store } from '../../store/create-store.js'
import type { State } from '../../store/state.js'
import type { OutputSpiller } from '../../tools/types.js'
import type { Entry } from './compaction.js'
import type { CounterLoader, TokenEstimator } from './estimate.js'
import type { MaskPlan } from './masking.js'
import type { Budget, KeptSet } from './budget.js'
import type { ContextReport } from './types.js'

export interface ContextSettings {
  /** `contextManagement.masking` (default on). */
  masking: boolean
  /** `contextManagement.observationWindow` / `compactAt`: beat the model profile. */
  observationWindow?: number
  compactAt?: number
  /** `summarizerModel`: a model for summaries; the session's model when absent. */
  summarizerModel?: string
}

export interface ContextManagerOptions {
  store: Store
  provider: ChatProvider
  spill: OutputSpiller
  systemPrompt: string
  toolDefinitions: ToolDefinition[]
  model(): string
  /** Asked on every use, so it should be cheap (cached per model by the caller). */
  profile(model: string): ModelProfile
  settings: ContextSettings
  newId(prefix: string): string
  now(): number
  loadCounter?: CounterLoader
  /**
   * Runs before every compaction (PreCompact hooks): `manual` for /compact, `auto` when the window fills
   * up or the endpoint reports an overflow. It cannot stop the compaction; it must not reject.
   */
  beforeCompact?(trigger: 'manual' | 'auto', focus: string, signal: AbortSignal): Promise<void>
}

/** A request's messages as assembled, before the system prompt and the pairing repair. */
export interface Assembled {
  entries: Entry[]
  /** For each masked entry, the tool message it stands in for. */
  originals: Map<Entry, ChatMessage>
  /** History indices the masking plan wants masked (some may lack a placeholder yet). */
  plan: MaskPlan
  /** Always 0: nothing is cut any more (kept for the request figures' shape). */
  dropped: number
  /** Estimated prompt tokens as the request is sent (system prompt and tools included), scaled. */
  tokens: number
  pinned(entry: Entry): boolean
}

/**
 * What compaction (compactor.ts) and the budget's checks (budget-checks.ts) use of the ContextManager,
 * so they do not import each other.
 */
export interface ContextHost {
  readonly opts: ContextManagerOptions
  readonly estimator: TokenEstimator
  readonly system: ChatMessage
  /** How much more the server counts than we estimate (at least 1). */
  readonly scale: number
  assemble(state: State, opts: { fit: boolean; plan?: MaskPlan }): Assembled
  /** Estimated tokens of entries with the system prompt and the tools, scaled. */
  tokens(entries: readonly Entry[]): number
  notice(level: 'info' | 'warn' | 'error', text: string): void
  limit(state?: State): number
  compactAt(state?: State): number
  budget(state?: State): Budget
  keptSet(state: State): KeptSet
  limitSource(state?: State): ContextReport['limitSource']
  sourceText(state: State): string
}
