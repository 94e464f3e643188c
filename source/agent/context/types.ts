import type { ToolsReport } from '../toolset/toolset.js'
import type { ContextBreakdown, RequestStats } from '../../store/domain.js'

/** What `/compact` would do, shown before it runs (docs/context.md#compaction). */
export interface CompactionPreview {
  /** False when there is nothing to summarise yet; `reason` says why. */
  ok: boolean
  reason?: string
  focus?: string
  contextLimit: number
  /** Automatic compaction starts at this many estimated tokens. */
  triggerTokens: number
  /** Estimated tokens of the next request as things stand. */
  tokensNow: number
  summarise: {
    messages: number
    tokens: number
    user: number
    assistant: number
    tool: number
    /** A few of them, oldest first, as the transcript labels them. */
    samples: string[]
  }
  keep: {
    systemTokens: number
    toolsTokens: number
    /** The summary's token budget: min(5 % of the window, 2,000), at least 500. */
    summaryBudget: number
    /** The latest user request, when it is older than the recent messages (kept verbatim anyway). */
    latestRequest?: string
    pinned: string[]
    pinnedTokens: number
    recentMessages: number
    recentTokens: number
  }
  /** Estimated tokens right after compacting (with the summary at its full budget). */
  tokensAfter: number
}

/** `/context`: where the window goes, for the next request as things stand and the last one sent. */
export interface ContextReport {
  model: string
  contextLimit: number
  /** Where the window size came from: the model table, the endpoint's listing, settings, an overflow error. */
  limitSource: 'profile' | 'endpoint' | 'settings' | 'endpoint error'
  /** Which field or route of the endpoint said it (`/api/ps`, `max_model_len`…), when it was the endpoint. */
  limitDetail?: string
  /** What a request may take (docs/context.md#the-budget): tokens for the prompt and kept for the reply. */
  budget: { prompt: number; reply: number; margin: number; scale: number }
  compactAt: number
  observationWindow: number
  masking: boolean
  /** Estimated tokens of the next request, by part. */
  next: ContextBreakdown & { total: number; maskedResults: number; pinnedItems: number; truncated: number }
  /** Token counts are exact (the model's tokenizer) rather than estimated from characters. */
  exact: boolean
  compactions: number
  last: RequestStats | null
  /** The tool definitions: sent, on demand, masked (agent/toolset/); the runtime adds it. */
  tools?: ToolsReport
}
