import type { FinishReason } from '../../provider/types.js'
import type { ToolCall } from '../../store/messages.js'

/** A call's arguments: parsed once, with only the trivial repairs, and kept in the history as what ran. */

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
  /** The parsed arguments of the other calls, by call id: the pipeline validates these, it does not parse again. */
  parsed: ReadonlyMap<string, { value: unknown }>
  /** Names of the calls whose arguments the output limit cut off (for the user's notice). */
  cutByLimit: string[]
}

/**
 * Readies one step's tool calls. The history never keeps the model's own text: arguments that parse
 * (after the trivial repairs) are re-encoded as the JSON of their value (a byte-order mark, odd spacing
 * or a duplicate key would otherwise go back to the server verbatim); arguments that do not are replaced
 * by `{}` and the call is refused with the parse error — after `finish_reason: length` with the reason:
 * the limit cut them off. The pipeline later writes back what actually ran, if a hook changed it.
 */
export function prepareToolCalls(toolCalls: ToolCall[], finishReason: FinishReason): PreparedCalls {
  const refused = new Map<string, RefusedCall>()
  const values = new Map<string, { value: unknown }>()
  const cutByLimit: string[] = []
  const calls = toolCalls.map((call) => {
    const parsed = parseToolArguments(call.function.arguments)
    const encoded = parsed.ok ? encodeArguments(parsed.value) : null
    if (parsed.ok && encoded !== null) {
      values.set(call.id, { value: parsed.value })
      if (encoded === call.function.arguments) return call
      return { ...call, function: { ...call.function, arguments: encoded } }
    }
    const error = parsed.ok ? 'arguments are nested too deeply to be read' : parsed.error
    if (finishReason === 'length' && !parsed.ok) {
      cutByLimit.push(call.function.name)
      refused.set(call.id, {
        message:
          `the reply hit the output token limit (finish_reason: length) while this call's arguments were ` +
          `being written: they were cut off, so the call was not run (${error})`,
        hint: 'send the call again with shorter arguments, e.g. write a large file in several smaller parts',
      })
    } else {
      refused.set(call.id, {
        message: `${error}; the call was not run`,
        hint: 'send the arguments again as one complete JSON object',
      })
    }
    return { ...call, function: { ...call.function, arguments: '{}' } }
  })
  return { calls, refused, parsed: values, cutByLimit }
}

/**
 * A call's arguments as the history may hold them: the JSON of their value, or `{}` when they do not
 * parse. For a session log written before the history kept only that (its call was then refused with
 * the parse error, which is its result in the log).
 */
export function historyArguments(raw: string): string {
  const parsed = parseToolArguments(raw)
  return (parsed.ok ? encodeArguments(parsed.value) : null) ?? '{}'
}

export type ParsedArguments = { ok: true; value: unknown; repaired: boolean } | { ok: false; error: string }

/**
 * Parses a tool call's JSON arguments, repairing only the trivial defects ARCHITECTURE.md#invariants allows: code fences
 * around the JSON, trailing commas, and an empty string for "no arguments". Nothing missing is ever
 * invented: arguments cut short (a missing `}` or `"`) are an error, because guessing where they ended
 * would run a call the model never finished writing. The value is always one JSON object, and its
 * strings are well-formed Unicode (a lone surrogate, written as a `\ud800` escape, becomes U+FFFD: it is
 * what a file or a command would get anyway, and strict servers refuse it in the history).
 */
export function parseToolArguments(raw: string): ParsedArguments {
  // trim() also drops a byte-order mark in front, which JSON.parse refuses.
  const text = raw.trim()
  if (text === '') return { ok: true, value: {}, repaired: raw !== '' }
  const direct = tryParse(text)
  if (direct.ok) return objectOnly(direct.value, false, text)
  const unfenced = stripFences(text)
  for (const candidate of [unfenced, removeTrailingCommas(unfenced)]) {
    if (candidate === text) continue
    const attempt = tryParse(candidate)
    if (attempt.ok) return objectOnly(attempt.value, true, candidate)
  }
  return { ok: false, error: `arguments are not valid JSON (${direct.error}); received: ${excerpt(text)}` }
}

/**
 * The arguments as the history keeps them: exactly the JSON of the value that was judged and ran, never
 * the model's own text (a byte-order mark, spacing, duplicate keys). Null when the value cannot be
 * written back (nested too deeply for JSON.stringify).
 */
export function encodeArguments(value: unknown): string | null {
  try {
    return JSON.stringify(value) ?? null
  } catch {
    return null
  }
}

function objectOnly(value: unknown, repaired: boolean, text: string): ParsedArguments {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`
    return { ok: false, error: `arguments must be one JSON object, not ${kind}; received: ${excerpt(text)}` }
  }
  if (!mayHoldLoneSurrogate(text)) return { ok: true, value, repaired }
  const wellFormed = tryParse(text, wellFormedStrings)
  return wellFormed.ok
    ? { ok: true, value: wellFormed.value, repaired }
    : { ok: false, error: `arguments could not be read (${wellFormed.error})` }
}

/** A lone surrogate in the text itself, or an escape of one (`\udXXX`); rare, so the common case is cheap. */
function mayHoldLoneSurrogate(text: string): boolean {
  return !text.isWellFormed() || /\\u[dD][89a-fA-F]/.test(text)
}

/** JSON.parse reviver: strings, and the keys of objects, as well-formed Unicode. */
function wellFormedStrings(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed()
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  const keys = Object.keys(value)
  if (keys.every((k) => k.isWellFormed())) return value
  return Object.fromEntries(keys.map((k) => [k.toWellFormed(), (value as Record<string, unknown>)[k]]))
}

function tryParse(
  text: string,
  reviver?: (key: string, value: unknown) => unknown,
): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text, reviver) }
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
