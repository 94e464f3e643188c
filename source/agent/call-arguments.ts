import type { ToolCall } from '../provider/messages.js'
import type { FinishReason } from '../provider/types.js'
import { parseToolArguments } from './parse-arguments.js'

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
