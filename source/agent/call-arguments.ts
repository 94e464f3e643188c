import type { ToolCall } from '../provider/messages.js'
import type { FinishReason } from '../provider/types.js'
import { encodeArguments, parseToolArguments } from './parse-arguments.js'

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
  /** Names of the calls whose arguments the output limit cut off (for the user's notice). */
  cutByLimit: string[]
}

/**
 * Readies one step's tool calls. The history never keeps the model's own text: arguments that parse
 * (after the trivial repairs) are re-encoded as the JSON of their value (a byte-order mark, odd spacing
 * or a duplicate key would otherwise go back to the server verbatim); arguments that do not are replaced
 * by `{}` and the call is refused with the parse error — after `finish_reason: length` with the reason:
 * the limit cut them off. The executor later writes back what actually ran, if a hook changed it.
 */
export function prepareToolCalls(toolCalls: ToolCall[], finishReason: FinishReason): PreparedCalls {
  const refused = new Map<string, RefusedCall>()
  const cutByLimit: string[] = []
  const calls = toolCalls.map((call) => {
    const parsed = parseToolArguments(call.function.arguments)
    const encoded = parsed.ok ? encodeArguments(parsed.value) : null
    if (encoded !== null) {
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
  return { calls, refused, cutByLimit }
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
