import type { ChatMessage, ToolDefinition } from '../../store/messages.js'
import { toWireMessages } from '../../provider/request-body.js'
import type { ContextBreakdown, RequestStats } from '../../store/domain.js'
import type { Entry } from './compaction.js'
import type { TokenEstimator } from './estimate.js'

/**
 * Matches the marker `boundOutput` puts where it cut a spilled output's middle out. The ellipsis is
 * escaped: esbuild keeps a regular expression's characters as written, and one character beyond Latin-1
 * makes V8 hold the whole chunk's source two bytes per character (scripts/build.mjs checks).
 */
const SPILL_MARKER = /\u2026 (\d+) chars(?: \(\d+ lines?\))? omitted; /

export interface MeasureInput {
  step: number
  system: ChatMessage
  tools: readonly ToolDefinition[]
  /** The request's messages after the system prompt, as sent. */
  entries: readonly Entry[]
  /** For masked entries: the message they stand in for. */
  originals: ReadonlyMap<Entry, ChatMessage>
  pinned(entry: Entry): boolean
  truncated: number
}

/**
 * Measures each request against the previous one: sizes, savings, and how much of its start is byte for
 * byte what was sent before (what a provider's prompt cache can reuse). Sizes are cached per message
 * object, so a step costs its new messages and a pass over references.
 */
export class RequestMeter {
  readonly #estimator: TokenEstimator
  #bytes = new WeakMap<object, number>()
  #spilled = new WeakMap<object, number>()
  #previous: readonly ChatMessage[] | null = null

  constructor(estimator: TokenEstimator) {
    this.#estimator = estimator
  }

  /** Forgets the previous request (a cleared conversation shares nothing with what came before). */
  reset(): void {
    this.#previous = null
  }

  measure(input: MeasureInput): RequestStats {
    const est = this.#estimator
    const messages = input.entries.map((e) => e.message)
    const systemBytes = this.bytes(input.system)
    const toolsBytes = this.#toolsBytes(input.tools)
    const breakdown: ContextBreakdown = {
      system: est.message(input.system),
      tools: est.tools(input.tools),
      history: 0,
      toolOutput: 0,
      masked: 0,
      pinned: 0,
      summary: 0,
    }
    let messageBytes = systemBytes
    let maskedBytesSaved = 0
    let maskedTokensSaved = 0
    let spilledBytesSaved = 0
    let masked = 0
    for (const entry of input.entries) {
      const message = entry.message
      const tokens = est.message(message)
      messageBytes += this.bytes(message)
      if (entry.role === 'masked') {
        masked++
        breakdown.masked += tokens
        const original = input.originals.get(entry)
        if (original) {
          maskedBytesSaved += this.bytes(original) - this.bytes(message)
          maskedTokensSaved += est.message(original) - tokens
        }
      } else if (message.role === 'tool') {
        breakdown.toolOutput += tokens
        spilledBytesSaved += this.#spilledOf(message)
      } else breakdown.history += tokens
      if (entry.role === 'summary') breakdown.summary += tokens
      if (input.pinned(entry)) breakdown.pinned += tokens
    }
    const shared = this.#sharedPrefix(messages)
    this.#previous = messages
    const estimatedTokens =
      breakdown.system + breakdown.tools + breakdown.history + breakdown.toolOutput + breakdown.masked
    return {
      step: input.step,
      messages: messages.length + 1,
      messageBytes,
      promptBytes: messageBytes + toolsBytes,
      estimatedTokens,
      promptTokens: null,
      cachedTokens: null,
      masked,
      maskedBytesSaved,
      maskedTokensSaved,
      spilledBytesSaved,
      spilledTokensSaved: est.forChars(spilledBytesSaved),
      prefixBytes: shared.count === 0 && !shared.any ? 0 : systemBytes + toolsBytes + shared.bytes,
      appendOnly: shared.appendOnly,
      truncated: input.truncated,
      breakdown,
    }
  }

  /** Estimated tokens by part, without recording anything (for `/context`). */
  breakdown(input: {
    system: ChatMessage
    tools: readonly ToolDefinition[]
    entries: readonly Entry[]
    pinned(entry: Entry): boolean
  }): ContextBreakdown {
    const est = this.#estimator
    const b: ContextBreakdown = {
      system: est.message(input.system),
      tools: est.tools(input.tools),
      history: 0,
      toolOutput: 0,
      masked: 0,
      pinned: 0,
      summary: 0,
    }
    for (const entry of input.entries) {
      const tokens = est.message(entry.message)
      if (entry.role === 'masked') b.masked += tokens
      else if (entry.message.role === 'tool') b.toolOutput += tokens
      else b.history += tokens
      if (entry.role === 'summary') b.summary += tokens
      if (input.pinned(entry)) b.pinned += tokens
    }
    return b
  }

  /** UTF-8 bytes of a message as sent (the display-only reasoning dropped). */
  bytes(message: object): number {
    const known = this.#bytes.get(message)
    if (known !== undefined) return known
    const bytes = Buffer.byteLength(wireJson(message as ChatMessage))
    this.#bytes.set(message, bytes)
    return bytes
  }

  #toolsBytes(tools: readonly ToolDefinition[]): number {
    const known = this.#bytes.get(tools)
    if (known !== undefined) return known
    const bytes = Buffer.byteLength(JSON.stringify(tools))
    this.#bytes.set(tools, bytes)
    return bytes
  }

  #spilledOf(message: ChatMessage): number {
    const known = this.#spilled.get(message)
    if (known !== undefined) return known
    const m = typeof message.content === 'string' ? SPILL_MARKER.exec(message.content) : null
    const saved = m ? Number.parseInt(m[1] ?? '0', 10) : 0
    this.#spilled.set(message, saved)
    return saved
  }

  #sharedPrefix(messages: readonly ChatMessage[]): {
    count: number
    bytes: number
    appendOnly: boolean
    any: boolean
  } {
    const previous = this.#previous
    if (!previous) return { count: 0, bytes: 0, appendOnly: false, any: false }
    const n = Math.min(previous.length, messages.length)
    let count = 0
    let bytes = 0
    while (count < n) {
      const a = previous[count] as ChatMessage
      const b = messages[count] as ChatMessage
      if (a !== b && wireJson(a) !== wireJson(b)) break
      bytes += this.bytes(b)
      count++
    }
    if (count < n) {
      // Inside the first message that differs, its JSON may still share a start.
      const a = wireJson(previous[count] as ChatMessage)
      const b = wireJson(messages[count] as ChatMessage)
      let k = 0
      while (k < a.length && k < b.length && a.charCodeAt(k) === b.charCodeAt(k)) k++
      bytes += Buffer.byteLength(b.slice(0, k))
    }
    return { count, bytes, appendOnly: count === previous.length, any: true }
  }
}

function wireJson(message: ChatMessage): string {
  return JSON.stringify(toWireMessages([message])[0])
}
