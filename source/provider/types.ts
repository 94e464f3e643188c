import type { ChatMessage, ToolCall, ToolChoice, ToolDefinition, Usage } from '../store/messages.js'
import type { TextToolFormat } from './text-tool-markup.js'

export interface ChatRequest {
  model: string
  /** Full history including the system prompt, already obeying the tool_calls ↔ tool pairing rule. */
  messages: ChatMessage[]
  tools: ToolDefinition[]
  toolChoice: ToolChoice
  signal: AbortSignal
  maxTokens?: number
  /**
   * Recover tool calls the model wrote as text (a local server that does not parse them), for the tools
   * in `tools`: the model profile's `textToolCalls`. `bareJson`: Llama's untagged JSON form counts too.
   */
  textToolCalls?: { bareJson: boolean }
}

export interface RetryInfo {
  /** The attempt about to start after the wait (2 = first retry). */
  attempt: number
  maxAttempts: number
  delayMs: number
  reason: string
  /** The wait is the server's own (Retry-After), not our backoff. */
  serverAsked: boolean
  /**
   * The failed attempt had already streamed output (text, reasoning, tool-call names) to the handlers:
   * none of it counts, and what the next attempt streams replaces it.
   */
  discarded: boolean
}

export interface StreamHandlers {
  onText?(delta: string): void
  onReasoning?(delta: string): void
  /** A tool call's name became known (for a "running" card before arguments finish). */
  onToolCallStart?(call: { index: number; id: string; name: string }): void
  onRetry?(info: RetryInfo): void
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'aborted' | 'unknown'

export interface StepResponse {
  text: string
  reasoning: string
  toolCalls: ToolCall[]
  finishReason: FinishReason
  usage: Usage | null
  /** True when the caller's signal aborted the stream; text/toolCalls hold what arrived before. */
  aborted: boolean
  /** Tool-call markup found in the text (ChatRequest.textToolCalls): run as calls, or left as text and why. */
  textToolCalls?: TextToolCallsReport
}

export type TextToolCallsReport =
  | { outcome: 'recovered'; format: TextToolFormat; calls: number }
  | { outcome: 'unknown'; format: TextToolFormat; names: string[] }
  | { outcome: 'unreadable'; format: TextToolFormat; why: string }
  | { outcome: 'quoted'; format: TextToolFormat; names: string[] }

export interface ModelInfo {
  id: string
  contextLength?: number
}

/** Never rejects for an abort (returns `aborted: true`); rejects with ProviderError for everything else. */
export interface ChatProvider {
  stream(request: ChatRequest, handlers: StreamHandlers): Promise<StepResponse>
  listModels(signal?: AbortSignal): Promise<ModelInfo[]>
}

export type ProviderErrorKind =
  | 'auth'
  | 'not_found'
  | 'model_not_found'
  | 'context_overflow'
  | 'rate_limit'
  | 'server'
  | 'network'
  | 'timeout'
  | 'bad_request'
  | 'protocol'

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind
  readonly status: number | undefined
  readonly url: string
  constructor(
    kind: ProviderErrorKind,
    message: string,
    opts: { status?: number; url: string; cause?: unknown },
  ) {
    super(message, { cause: opts.cause })
    this.name = 'ProviderError'
    this.kind = kind
    this.status = opts.status
    this.url = opts.url
  }
}
