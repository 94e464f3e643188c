/**
 * The tool_calls ↔ tool pairing rule as an independent checker (ARCHITECTURE.md#invariants), used by the scripted server on
 * every request. Deliberately written from scratch rather than imported from source/, so a bug in the
 * runtime's own repair code cannot hide itself.
 */

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null
}

function callIds(message: Record<string, unknown>): string[] | null {
  const calls = message.tool_calls
  if (!Array.isArray(calls) || calls.length === 0) return null
  return calls.map((call) => {
    const id = asRecord(call)?.id
    return typeof id === 'string' ? id : ''
  })
}

/**
 * Returns a description of the first violation of the pairing rule, or null when the history obeys it:
 * every assistant message with `tool_calls` is followed immediately by exactly one `tool` message per
 * call id, in call order, before any other message; no `tool` message appears anywhere else.
 */
export function checkPairing(messages: unknown[]): string | null {
  let i = 0
  while (i < messages.length) {
    const message = asRecord(messages[i])
    if (message === null) return `message ${i} is not an object`
    if (message.role === 'tool') {
      return `message ${i}: orphan tool message (tool_call_id ${JSON.stringify(message.tool_call_id)}) not preceded by its assistant tool call`
    }
    const ids = message.role === 'assistant' ? callIds(message) : null
    i += 1
    if (ids === null) continue
    for (const [k, id] of ids.entries()) {
      if (id === '') return `message ${i - 1}: tool call ${k} has no id`
      const next = asRecord(messages[i])
      if (next === null || next.role !== 'tool') {
        const found = next === null ? 'end of history' : `a ${String(next.role)} message`
        return `message ${i}: expected the tool result for call ${id} (call ${k + 1} of ${ids.length}) but found ${found}`
      }
      if (next.tool_call_id !== id) {
        return `message ${i}: expected the tool result for call ${id} but found one for ${JSON.stringify(next.tool_call_id)}`
      }
      i += 1
    }
  }
  return null
}

/** The first string in `value` that is not well-formed Unicode (a lone surrogate), as a path. */
function illFormedString(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.isWellFormed() ? null : path
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = illFormedString(item, `${path}[${i}]`)
      if (found) return found
    }
    return null
  }
  const record = asRecord(value)
  if (!record) return null
  for (const [key, item] of Object.entries(record)) {
    if (!key.isWellFormed()) return `${path} (a key)`
    const found = illFormedString(item, `${path}.${key}`)
    if (found) return found
  }
  return null
}

/**
 * What a strict server accepts of a history beyond the pairing rule: every tool call's `arguments` is
 * exactly the JSON of one object (`JSON.stringify(JSON.parse(arguments)) === arguments`, so no byte-order
 * mark, fence or second object rides along), and no string holds a lone surrogate. Null when it holds.
 */
export function checkWellFormed(messages: unknown[]): string | null {
  for (const [i, raw] of messages.entries()) {
    const message = asRecord(raw)
    if (message === null) return `message ${i} is not an object`
    const illFormed = illFormedString(message, `message ${i}`)
    if (illFormed) return `${illFormed}: a lone surrogate (strict JSON parsers refuse it)`
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls : []
    for (const [k, call] of calls.entries()) {
      const args = asRecord(asRecord(call)?.function)?.arguments
      if (typeof args !== 'string') return `message ${i}: tool call ${k} has no arguments string`
      let value: unknown
      try {
        value = JSON.parse(args)
      } catch {
        return `message ${i}: tool call ${k} has arguments that are not JSON: ${JSON.stringify(args.slice(0, 80))}`
      }
      if (asRecord(value) === null) return `message ${i}: tool call ${k} has arguments that are not an object`
      if (JSON.stringify(value) !== args) {
        return `message ${i}: tool call ${k} has arguments that are not their own JSON: ${JSON.stringify(args.slice(0, 80))}`
      }
    }
  }
  return null
}
