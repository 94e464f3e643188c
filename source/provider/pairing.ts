import type { ChatMessage, ToolCall, ToolMessage } from '../store/messages.js'

/** The model-visible result for a call that never produced one (interrupt, crash, lost result). */
export function cancelledToolResult(call: ToolCall): ToolMessage {
  const envelope = {
    tool: call.function.name,
    category: 'aborted',
    retryable: false,
    message: 'cancelled by user: the call did not run to completion and produced no result',
    hint: 'Do not assume it ran. Continue with the user request; repeat the call only if it is still needed.',
  }
  return { role: 'tool', tool_call_id: call.id, content: JSON.stringify(envelope) }
}

/**
 * Returns a history that obeys the tool_calls ↔ tool pairing rule (ARCHITECTURE.md#invariants): right after each assistant
 * message with tool calls comes exactly one tool message per call, in call order. Results found later in
 * the same stretch (before the next assistant message) are moved up into place; unanswered calls get a
 * synthesised "cancelled by user" result; tool messages that answer nothing (orphans, duplicates) are
 * dropped. Pure: returns the same array when nothing needed fixing.
 */
export function repairPairing(messages: ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = []
  let i = 0
  while (i < messages.length) {
    const message = messages[i]!
    i += 1
    if (message.role === 'tool') continue // not claimed by a preceding assistant message: an orphan
    out.push(message)
    const calls = message.role === 'assistant' ? (message.tool_calls ?? []) : []
    if (calls.length === 0) continue
    const results: ToolMessage[] = []
    const others: ChatMessage[] = []
    while (i < messages.length && messages[i]!.role !== 'assistant') {
      const next = messages[i]!
      if (next.role === 'tool') results.push(next)
      else others.push(next)
      i += 1
    }
    const used = new Set<number>()
    for (const call of calls) {
      const k = results.findIndex((r, idx) => !used.has(idx) && r.tool_call_id === call.id)
      if (k === -1) {
        out.push(cancelledToolResult(call))
      } else {
        used.add(k)
        out.push(results[k]!)
      }
    }
    out.push(...others)
  }
  const unchanged = out.length === messages.length && out.every((m, idx) => m === messages[idx])
  return unchanged ? messages : out
}
