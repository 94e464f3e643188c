import type { Usage } from '../store/messages.js'
import type { Action } from '../store/actions.js'
import type { ContextWarning, TurnResult } from '../store/domain.js'
import {
  type BoundedResult,
  boundedResult,
  STREAM_RESULT_CHARS,
  TRACE_RESULT_CHARS,
  toolError,
  toolInput,
} from './tool-events.js'

export type TraceToolCall = {
  id: string
  name: string
  /** The arguments the model sent (an object). */
  input: Record<string, unknown>
  /** The one-line summary the transcript shows, e.g. `Read src/a.ts`. */
  summary: string
  ok: boolean
  status: string
  duration_ms: number
  /** For a call that did not succeed: what went wrong (an error envelope's message). */
  error?: string
  error_category?: string
} & BoundedResult

/** Context economy over the run (docs/context.md#seeing-what-the-model-sees), summed over its requests. */
export interface TraceContext {
  requests: number
  prompt_bytes: number
  /** Bytes masking and spilling kept out of the requests. */
  bytes_saved: number
  /** Requests that extended the previous one without changing it. */
  append_only: number
  compactions: number
  /** The model's window the last request was built for, and where its size came from. */
  window?: number
  window_source?: string
  /** What the context budget warned of at start (the definitions take over a third of the window). */
  warnings: Array<ContextWarning & { text: string }>
}

/** A hook card, as the TUI's transcript shows it. */
export interface TraceHook {
  event: string
  level: string
  text: string
}

export interface HeadlessTrace {
  result: string
  status: TurnResult['kind']
  steps: number
  usage: Usage
  tool_calls: TraceToolCall[]
  errors: string[]
  /** What hooks did that is worth knowing: blocked calls, added context, failures. */
  hooks: TraceHook[]
  duration_ms: number
  session_id: string
  context: TraceContext
}

/** Collects the execution trace of a headless run from the action stream. */
export class TraceCollector {
  readonly toolCalls: TraceToolCall[] = []
  /** Arguments of the calls the model made, by call id, until their results arrive. */
  private readonly inputs = new Map<string, Record<string, unknown>>()
  readonly errors: string[] = []
  readonly hooks: TraceHook[] = []
  readonly context: TraceContext = {
    requests: 0,
    prompt_bytes: 0,
    bytes_saved: 0,
    append_only: 0,
    compactions: 0,
    warnings: [],
  }

  observe(action: Action): void {
    if (action.type === 'hook/ran') {
      this.hooks.push({ event: action.event, level: action.level, text: action.text })
      if (action.level === 'error') this.errors.push(action.text)
    } else if (action.type === 'context/measured') {
      const s = action.stats
      this.context.requests++
      this.context.prompt_bytes += s.promptBytes
      this.context.bytes_saved += s.maskedBytesSaved + s.spilledBytesSaved
      if (s.appendOnly) this.context.append_only++
      if (s.window !== undefined) this.context.window = s.window
      if (s.windowSource !== undefined) this.context.window_source = s.windowSource
    } else if (action.type === 'context/warned') {
      this.context.warnings.push({ ...action.warning, text: action.text })
    } else if (action.type === 'context/compacted') this.context.compactions++
    else if (action.type === 'assistant/settled' && action.message.role === 'assistant') {
      for (const call of action.message.tool_calls ?? []) this.inputs.set(call.id, toolInput(call))
    } else if (action.type === 'tool/finished') {
      const error = toolError(action.status, action.content)
      this.toolCalls.push({
        id: action.callId,
        name: action.name,
        input: this.inputs.get(action.callId) ?? {},
        summary: action.summary,
        ok: action.status === 'done',
        status: action.status,
        duration_ms: Math.round(action.durationMs),
        ...(error ?? {}),
        ...boundedResult(action.content, TRACE_RESULT_CHARS),
      })
      this.inputs.delete(action.callId)
      if (error && (action.status === 'error' || action.status === 'denied')) {
        this.errors.push(`${action.name}: ${error.error}`)
      }
    } else if (action.type === 'notice/added' && action.level === 'error') {
      this.errors.push(action.text)
    }
  }

  build(opts: { result: TurnResult; usage: Usage; durationMs: number; sessionId: string }): HeadlessTrace {
    const errors = [...this.errors]
    if (opts.result.error && !errors.includes(opts.result.error)) errors.push(opts.result.error)
    return {
      result: opts.result.text,
      status: opts.result.kind,
      steps: opts.result.steps,
      usage: opts.usage,
      tool_calls: this.toolCalls,
      errors,
      hooks: this.hooks,
      duration_ms: Math.round(opts.durationMs),
      session_id: opts.sessionId,
      context: { ...this.context, warnings: [...this.context.warnings] },
    }
  }
}

/** The stream-json lines of one action (README "Headless output"); none for most actions. */
export function streamEvents(action: Action): Record<string, unknown>[] {
  if (action.type === 'assistant/settled' && action.message.role === 'assistant') {
    // Like Claude Code's stream: the message, then each tool call it makes with its arguments.
    const calls = action.message.tool_calls ?? []
    return [
      { type: 'assistant', text: action.message.content ?? '' },
      ...calls.map((call) => ({
        type: 'tool_use',
        id: call.id,
        name: call.function.name,
        input: toolInput(call),
      })),
    ]
  }
  const event = streamEvent(action)
  return event ? [event] : []
}

function streamEvent(action: Action): Record<string, unknown> | null {
  switch (action.type) {
    case 'assistant/delta':
      if (action.text) return { type: 'assistant_delta', text: action.text }
      if (action.reasoning) return { type: 'reasoning_delta', text: action.reasoning }
      return null
    case 'tool/finished': {
      const error = toolError(action.status, action.content)
      return {
        type: 'tool_result',
        id: action.callId,
        name: action.name,
        summary: action.summary,
        ok: action.status === 'done',
        status: action.status,
        is_error: error !== null,
        duration_ms: Math.round(action.durationMs),
        ...(error ?? {}),
        ...boundedResult(action.content, STREAM_RESULT_CHARS),
      }
    }
    case 'provider/retried':
      return {
        type: 'retry',
        attempt: action.attempt,
        max_attempts: action.maxAttempts,
        delay_ms: action.delayMs,
        reason: action.reason,
        server_asked: action.serverAsked,
        discarded: action.discarded,
      }
    case 'notice/added':
      return { type: 'notice', level: action.level, text: action.text }
    case 'context/warned':
      return { type: 'notice', level: 'warn', text: action.text, context: action.warning }
    case 'hook/ran':
      return {
        type: 'hook',
        event: action.event,
        level: action.level,
        text: action.text,
        detail: action.detail,
      }
    case 'usage/recorded':
      return action.purpose
        ? { type: 'usage', usage: action.usage, purpose: action.purpose }
        : { type: 'usage', usage: action.usage }
    case 'context/measured': {
      const s = action.stats
      return {
        type: 'context',
        step: s.step,
        messages: s.messages,
        prompt_bytes: s.promptBytes,
        estimated_tokens: s.estimatedTokens,
        masked: s.masked,
        bytes_saved: s.maskedBytesSaved + s.spilledBytesSaved,
        tokens_saved: s.maskedTokensSaved + s.spilledTokensSaved,
        prefix_bytes: s.prefixBytes,
        append_only: s.appendOnly,
        truncated: s.truncated,
        breakdown: s.breakdown,
        ...(s.window !== undefined ? { window: s.window, window_source: s.windowSource } : {}),
      }
    }
    case 'context/compacted': {
      const c = action.compaction
      return {
        type: 'compaction',
        trigger: c.trigger,
        summarised: c.summarised,
        tokens_before: c.tokensBefore,
        tokens_after: c.tokensAfter,
        ...(c.focus ? { focus: c.focus } : {}),
      }
    }
    default:
      return null
  }
}

export function exitCodeFor(kind: TurnResult['kind']): number {
  switch (kind) {
    case 'completed':
      return 0
    case 'max-steps':
    case 'stopped':
      return 3
    case 'interrupted':
      return 130
    default:
      return 1
  }
}
