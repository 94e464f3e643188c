import type { ToolCall } from '../../store/messages.js'
import type { FinishReason } from '../../provider/types.js'

/** A call that must not run, and what the model is told instead (a validation envelope). */
export interface RefusedCall {
  message: string
  hint: string
}

export interface PreparedCalls {
  /** The calls as the history keeps them: arguments are always valid JSON, so strict servers accept it. */
  calls: ToolCall[]
  /** Calls that are answered with an envelope instead of running, by call id. */
  refused: ReadonlyMap<string, RefusedCall>
  /** The parsed arguments of the other calls, by call id: the executor validates these, it does not parse again. */
  parsed: ReadonlyMap<string, { value: unknown }>
  /** Names of the calls whose arguments the output limit cut off (for the user's notice). */
  cutByLimit: string[]
}

/**
 * Readies one step's tool calls. Arguments that parse (after the trivial repairs) are kept, re-encoded
 * when a repair was needed; arguments that do not are replaced by `{}` in the history and the call is
 * refused with the parse error — after `finish_reason: length` with the reason: the limit cut them off.
 */
export function prepareToolCalls(toolCalls: ToolCall[], finishReason: FinishReason): PreparedCalls {
  const refused = new Map<string, RefusedCall>()
  const values = new Map<string, { value: unknown }>()
  const cutByLimit: string[] = []
  const calls = toolCalls.map((call) => {
    const parsed = parseToolArguments(call.function.arguments)
    if (parsed.ok) {
      values.set(call.id, { value: parsed.value })
      if (!parsed.repaired) return call
      return { ...call, function: { ...call.function, arguments: JSON.stringify(parsed.value) } }
    }
    if (finishReason === 'length') {
      cutByLimit.push(call.function.name)
      refused.set(call.id, {
        message:
          `the reply hit the output token limit (finish_reason: length) while this call's arguments were ` +
          `being written: they were cut off, so the call was not run (${parsed.error})`,
        hint: 'send the call again with shorter arguments, e.g. write a large file in several smaller parts',
      })
    } else {
      refused.set(call.id, {
        message: `${parsed.error}; the call was not run`,
        hint: 'send the arguments again as one complete JSON object',
      })
    }
    return { ...call, function: { ...call.function, arguments: '{}' } }
  })
  return { calls, refused, parsed: values, cutByLimit }
}

export type ParsedArguments = { ok: true; value: unknown; repaired: boolean } | { ok: false; error: string }

/**
 * Parses a tool call's JSON arguments, repairing only the trivial defects ARCHITECTURE.md#invariants allows: code fences
 * around the JSON, trailing commas, and an empty string for "no arguments". Nothing missing is ever
 * invented: arguments cut short (a missing `}` or `"`) are an error, because guessing where they ended
 * would run a call the model never finished writing.
 */
export function parseToolArguments(raw: string): ParsedArguments {
  const text = raw.trim()
  if (text === '') return { ok: true, value: {}, repaired: raw !== '' }
  const direct = tryParse(text)
  if (direct.ok) return { ok: true, value: direct.value, repaired: false }
  const unfenced = stripFences(text)
  for (const candidate of [unfenced, removeTrailingCommas(unfenced)]) {
    if (candidate === text) continue
    const attempt = tryParse(candidate)
    if (attempt.ok) return { ok: true, value: attempt.value, repaired: true }
  }
  return { ok: false, error: `arguments are not valid JSON (${direct.error}); received: ${excerpt(text)}` }
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) }
  }
}

function stripFences(text: string): string {
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/i.exec(text)
  return fenced?.[1] ?? text
}

function removeTrailingCommas(text: string): string {
  // Only outside strings: walk the text so a ", }" inside a string value stays intact.
  let out = ''
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string
    if (inString) {
      out += ch
      if (ch === '\\') {
        out += text[i + 1] ?? ''
        i++
      } else if (ch === '"') inString = false
      continue
    }
    if (ch === '"') inString = true
    if (ch === ',') {
      const rest = text.slice(i + 1).trimStart()
      if (rest.startsWith('}') || rest.startsWith(']')) continue
    }
    out += ch
  }
  return out
}

function excerpt(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}
