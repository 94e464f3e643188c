import type { Dispatch } from '../store/create-store.js'
import type { ConsentDecision, ErrorCategory } from '../store/domain.js'
import type { CallOutcome } from './call-outcome.js'

/**
 * What the user's answer at a consent prompt means for the call and the turn (see executor.ts): a note
 * added to an approval goes to the model with the result; a plain denial stops the turn, one with a note
 * lets the model go on with it.
 */

/** The note the user added to an approval (shown in the transcript too), or undefined. */
export function approvalNoteOf(
  decision: ConsentDecision,
  summary: string,
  callId: string,
  dispatch: Dispatch,
): string | undefined {
  const note = decision.note?.trim() || undefined
  if (note) {
    const text = `Your note goes to the model with the result of ${summary}: ${note}`
    dispatch({ type: 'notice/added', id: `note-${callId}`, level: 'info', text })
  }
  return note
}

/** The model's line for a note the user added when allowing a call. */
export function approvalNote(note: string): string {
  return `[The user allowed this call and added a note: ${note}]`
}

/**
 * A denial at the consent prompt. By the user: without a note the turn stops and waits for them (the
 * outcome says so); with one, the model goes on with it. By the prompt's timeout: an ordinary refusal.
 */
export function denied(
  decision: Extract<ConsentDecision, { kind: 'deny' }>,
  failWith: (
    category: ErrorCategory,
    message: string,
    opts: { hint: string; status: 'denied' },
  ) => CallOutcome,
  tool: string,
): CallOutcome {
  if (decision.automatic) {
    return failWith('permission', `${tool} was denied: ${decision.note ?? 'no answer'}`, {
      hint: 'do not retry the same call; adjust the approach or ask the user',
      status: 'denied',
    })
  }
  const note = decision.note?.trim()
  const out = note
    ? failWith('permission', `the user denied ${tool} and said: ${note}`, {
        hint: 'do not retry the same call; do what the user said instead',
        status: 'denied',
      })
    : failWith('permission', `the user denied ${tool}`, {
        hint: 'stop here: the user will say how to go on',
        status: 'denied',
      })
  return { ...out, userDenial: note ? { note } : {} }
}
