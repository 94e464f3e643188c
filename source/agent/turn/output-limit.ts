import type { Dispatch } from '../../store/create-store.js'
import type { TurnResult } from '../../store/domain.js'

/*
 * A reply that ends on `finish_reason: length` was cut by the server's output limit. Its text is kept
 * and the model is asked to continue; a tool call whose arguments were cut is not run (tool-call/arguments.ts).
 * A model that hits the limit every time would loop, so continuations in a row are bounded.
 */

export const CONTINUE_INSTRUCTION =
  'Your previous reply was cut off by the output token limit. Continue exactly where it stopped, without ' +
  'repeating what you already wrote.'

/** Replies cut by the output limit that are continued in a row before the turn stops. */
export const MAX_LENGTH_CONTINUATIONS = 2

export function limitStopResult(text: string): Omit<TurnResult, 'steps'> {
  return {
    kind: 'stopped',
    text,
    error:
      `stopped: the reply hit the output token limit ${MAX_LENGTH_CONTINUATIONS + 1} times in a row; ` +
      'what it wrote may be incomplete — ask for a shorter answer or raise the limit on the server',
  }
}

/** Tells the user a reply hit the output limit, and what comes next: a continuation, the tool results, or nothing. */
export function noteLimit(
  dispatch: Dispatch,
  newId: (prefix: string) => string,
  at: { cut: string[]; next: 'continue' | 'tools' | 'none'; hits: number },
): void {
  const what =
    at.cut.length > 0 ? ` in the middle of the ${at.cut.join(', ')} call (not run; the model was told)` : ''
  const next =
    at.next === 'continue'
      ? `; asking the model to continue where it stopped (${at.hits} of ${MAX_LENGTH_CONTINUATIONS})`
      : ''
  dispatch({
    type: 'notice/added',
    id: newId('notice'),
    level: 'warn',
    text: `The reply hit the output token limit (finish_reason: length)${what}${next}`,
  })
}
