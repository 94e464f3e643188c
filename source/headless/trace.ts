import type { Usage } from '../provider/messages.js'
import type { Action } from '../store/actions.js'
import type { TurnResult } from '../store/domain.js'

export interface TraceToolCall {
  id: string
  name: string
  input: string
  ok: boolean
  status: string
  duration_ms: number
}

export interface HeadlessTrace {
  result: string
  status: TurnResult['kind']
  steps: number
  usage: Usage
  tool_calls: TraceToolCall[]
  errors: string[]
  duration_ms: number
  session_id: string
}

/** Collects the execution trace of a headless run from the action stream. */
export class TraceCollector {
  readonly toolCalls: TraceToolCall[] = []
  readonly errors: string[] = []

  observe(action: Action): void {
    if (action.type === 'tool/finished') {
      this.toolCalls.push({
        id: action.callId,
        name: action.name,
        input: action.summary,
        ok: action.status === 'done',
        status: action.status,
        duration_ms: Math.round(action.durationMs),
      })
      if (action.status === 'error' || action.status === 'denied') {
        this.errors.push(`${action.name}: ${errorMessage(action.content)}`)
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
      duration_ms: Math.round(opts.durationMs),
      session_id: opts.sessionId,
    }
  }
}

function errorMessage(content: string): string {
  try {
    const parsed = JSON.parse(content) as { error?: { message?: string } }
    if (parsed.error?.message) return parsed.error.message
  } catch {
    // not an envelope: a failed command's output
  }
  const first = content.split('\n')[0] ?? ''
  return first.length > 200 ? `${first.slice(0, 200)}…` : first
}

/** One stream-json line per meaningful action; null for actions that have no event. */
export function streamEvent(action: Action): Record<string, unknown> | null {
  switch (action.type) {
    case 'assistant/delta':
      if (action.text) return { type: 'assistant_delta', text: action.text }
      if (action.reasoning) return { type: 'reasoning_delta', text: action.reasoning }
      return null
    case 'assistant/settled':
      return {
        type: 'assistant',
        text: action.message.role === 'assistant' ? (action.message.content ?? '') : '',
      }
    case 'tool/started':
      return { type: 'tool_use', id: action.callId, name: action.name, input: action.summary }
    case 'tool/finished':
      return {
        type: 'tool_result',
        id: action.callId,
        name: action.name,
        ok: action.status === 'done',
        status: action.status,
        duration_ms: Math.round(action.durationMs),
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
    case 'usage/recorded':
      return { type: 'usage', usage: action.usage }
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
