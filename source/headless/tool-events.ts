import { parseToolArguments } from '../agent/tool-call/arguments.js'
import type { ToolCall } from '../store/messages.js'

/**
 * How tool calls appear in headless output (README "Headless output"): the arguments as the model sent
 * them (a JSON object), and the result as the model received it, bounded so one huge result cannot flood
 * a pipe — head and tail around a marker, with the full size given. The session log keeps it whole.
 */

/** Characters of a result a `tool_result` event carries; a `json` trace's `tool_calls` carry fewer. */
export const STREAM_RESULT_CHARS = 30_000
export const TRACE_RESULT_CHARS = 4_000

/** The call's arguments as an object (`{}` when they were not valid JSON: the result says why). */
export function toolInput(call: Pick<ToolCall, 'function'>): Record<string, unknown> {
  const parsed = parseToolArguments(call.function.arguments)
  if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value))
    return {}
  return parsed.value as Record<string, unknown>
}

export interface BoundedResult {
  content: string
  /** Present when cut: the result's full length in characters. */
  content_chars?: number
  truncated?: true
}

export function boundedResult(content: string, limit: number): BoundedResult {
  if (content.length <= limit) return { content }
  const head = Math.floor(limit * 0.4)
  const tail = limit - head
  const omitted = content.length - head - tail
  return {
    content: `${content.slice(0, head)}\n… [${omitted} characters not shown here; the session log has the whole result] …\n${content.slice(-tail)}`,
    content_chars: content.length,
    truncated: true,
  }
}

/** What went wrong, for a call that did not succeed: an error envelope's message, or the output's first line. */
export function toolError(
  status: string,
  content: string,
): { error: string; error_category?: string } | null {
  if (status === 'done') return null
  try {
    const parsed = JSON.parse(content) as { error?: { message?: string; category?: string } }
    if (parsed.error?.message) {
      return {
        error: parsed.error.message,
        ...(parsed.error.category ? { error_category: parsed.error.category } : {}),
      }
    }
  } catch {
    // not an envelope: a command that failed, whose output is the result
  }
  const lines = content.split('\n')
  // A command's own status line says more than its first line of output.
  const line =
    lines.find((l) => /^(Exit code \d|Command timed out|Killed by )/.test(l)) ??
    lines.find((l) => l.trim() !== '') ??
    status
  return { error: line.length > 200 ? `${line.slice(0, 200)}…` : line }
}
