import type { Dispatch } from '../../store/create-store.js'
import type { RequestContext } from '../context/recovery.js'
import { envelope, formatEnvelope } from '../tool-call/envelope.js'
import type { CallOutcome } from '../tool-call/pipeline.js'

const k = (n: number) => (n < 1000 ? String(Math.round(n)) : `${(n / 1000).toFixed(1)}k`)

/**
 * A step's tool results before they join the history (docs/context.md#the-budget): one that could never
 * be sent whole in the model's window becomes an error envelope for the model — the whole result saved to
 * a file it can Read in parts — and a notice for the user. A failed call, so the loop guard sees the
 * model repeat it. Outcomes that fit are returned as they are.
 */
export async function admitResults(
  context: RequestContext | undefined,
  outcomes: CallOutcome[],
  dispatch: Dispatch,
  newId: (prefix: string) => string,
): Promise<CallOutcome[]> {
  if (!context?.oversized || outcomes.length === 0) return outcomes
  const big = await context.oversized(outcomes.map((o) => ({ name: o.name, content: o.content })))
  if (big.length === 0) return outcomes
  const out = [...outcomes]
  for (const { index, tokens, room, path } of big) {
    const outcome = outcomes[index] as CallOutcome
    const saved = path ? `the whole result is saved in ${path}` : 'it could not be saved to a file either'
    const message = `the result is ~${k(tokens)} tokens, more than the ~${k(Math.max(0, room))} the model's context window leaves for this step's results, so it was not sent; ${saved}`
    const hint = path
      ? `Read ${path} in parts (offset and limit), or ask for less: a narrower command or a smaller range.`
      : 'Ask for less: a narrower command or a smaller range.'
    out[index] = {
      ...outcome,
      status: 'error',
      content: formatEnvelope(envelope(outcome.name, 'too_large', message, { hint })),
      preview: message,
      display: null,
      images: [],
      ok: false,
      retryable: false,
      errorMessage: message,
      errorCategory: 'too_large',
      errorHint: hint,
    }
    dispatch({
      type: 'notice/added',
      id: newId('notice'),
      level: 'warn',
      text: `${outcome.summary}: its result (~${k(tokens)} tokens) does not fit the model's context window; the model got an error instead, and ${saved}.`,
    })
  }
  return out
}
