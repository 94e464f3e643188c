import type { Authorization } from '../../permissions/gate.js'
import type { ImagePart, ToolCall } from '../../store/messages.js'
import type { Dispatch } from '../../store/create-store.js'
import type { ConsentDecision, ErrorCategory, ToolDisplay } from '../../store/domain.js'
import type { ToolStatus } from '../../store/state.js'
import { ToolError, type ToolSuccess } from '../../tools/types.js'
import { cancelledEnvelope, envelope, formatEnvelope } from './envelope.js'

/**
 * The outcome phase of a tool call (pipeline.ts): what became of it, for the model (`content`, an error
 * envelope on failure) and for the card, including what the user's answer at the consent prompt means:
 * a note added to an approval goes to the model with the result; a plain denial stops the turn, one with
 * a note lets the model go on with it.
 */

/** What became of one tool call: the model's result (`content`), the card's, and how it ended. */
export interface CallOutcome {
  callId: string
  name: string
  summary: string
  status: Exclude<ToolStatus, 'pending' | 'running'>
  content: string
  preview: string
  display: ToolDisplay | null
  images: ImagePart[]
  durationMs: number
  ok: boolean
  retryable: boolean
  errorMessage?: string
  errorCategory?: ErrorCategory
  /** A hook answered `"continue": false`: the turn stops after this batch, and this says why. */
  stopTurn?: string
  /** The user denied it at the consent prompt (not a policy or a timeout); `note` is what they added. */
  userDenial?: { note?: string }
  /** Withdrawn while waiting for consent because the user denied another call of the same message. */
  skipped?: boolean
  /** The envelope's hint: what to do instead (e.g. the rule that would allow a denied call). */
  errorHint?: string
  /** A refused call no allow rule would let through (a deny rule, a protected write), and why. */
  noAllowRule?: string
  /** A refused call this allow rule would let through (the gate re-checked it): for who can add one. */
  allowRule?: string
  /**
   * The JSON of the arguments the call ran with, when it is not what the history holds (a PreToolUse
   * hook rewrote them): the history is changed to say what ran.
   */
  arguments?: string
}

/** The call an outcome answers, and the times its duration is measured between. */
export interface OutcomeBase {
  call: ToolCall
  /** The tool's name and card label; both default to the name the model called. */
  name?: string
  summary?: string
  started: number
  now: number
}

/** Why a call failed, as the model's error envelope and the card say it. */
export interface FailureDetails {
  hint?: string
  status?: CallOutcome['status']
  /** What the user added to their answer at the consent prompt. */
  note?: string
  noAllowRule?: string
  allowRule?: string
}

/** A failure a phase of the pipeline ends the call with. */
export type CallFailure = FailureDetails & { category: ErrorCategory; message: string }

/** Result for a call the loop refuses before running it (e.g. arguments that are not JSON). */
export function refusedOutcome(
  call: ToolCall,
  refusal: { message: string; hint: string },
  now: number,
): CallOutcome {
  return failedOutcome(
    { call, started: now, now },
    { category: 'validation', message: refusal.message, hint: refusal.hint },
  )
}

/** Result for a call that never finished because the user interrupted (keeps the pairing rule). */
export function cancelled(base: OutcomeBase): CallOutcome {
  const name = base.name ?? base.call.function.name
  return {
    callId: base.call.id,
    name,
    summary: base.summary ?? name,
    status: 'cancelled',
    content: cancelledEnvelope(name),
    preview: 'cancelled by user',
    display: null,
    images: [],
    durationMs: base.now - base.started,
    ok: false,
    retryable: false,
    errorMessage: 'cancelled by user',
    errorCategory: 'aborted',
  }
}

/** A failed call: its error envelope for the model, its message on the card. */
export function failedOutcome(
  base: OutcomeBase,
  error: FailureDetails & { category: ErrorCategory; message: string },
): CallOutcome {
  const name = base.name ?? base.call.function.name
  const env = envelope(name, error.category, error.message, {
    ...(error.hint ? { hint: error.hint } : {}),
    ...(error.note ? { userNote: error.note } : {}),
  })
  return {
    callId: base.call.id,
    name,
    summary: base.summary ?? name,
    status: error.status ?? 'error',
    content: formatEnvelope(env),
    preview: error.message,
    display: null,
    images: [],
    durationMs: base.now - base.started,
    ok: false,
    retryable: env.retryable,
    errorMessage: error.message,
    errorCategory: error.category,
    ...(error.hint ? { errorHint: error.hint } : {}),
    ...(error.noAllowRule ? { noAllowRule: error.noAllowRule } : {}),
    ...(error.allowRule ? { allowRule: error.allowRule } : {}),
  }
}

/** A call that ran: the tool's result, with what the PostToolUse hooks and the user's note add. */
export function resultOutcome(
  base: Required<Pick<OutcomeBase, 'call' | 'name' | 'summary'>>,
  result: ToolSuccess,
  extra: { durationMs: number; feedback?: string; note?: string; stop?: string | null },
): CallOutcome {
  return {
    callId: base.call.id,
    name: base.name,
    summary: base.summary,
    status: result.failed ? 'error' : 'done',
    content: [result.forModel, extra.feedback, extra.note ? approvalNote(extra.note) : undefined]
      .filter((part) => part !== undefined && part !== '')
      .join('\n\n'),
    preview: previewOf(result.forModel),
    display: result.display ?? null,
    images: result.images ?? [],
    durationMs: extra.durationMs,
    ok: true,
    retryable: false,
    ...(extra.stop ? { stopTurn: `PostToolUse hook stopped the turn: ${extra.stop}` } : {}),
  }
}

function previewOf(text: string): string {
  const lines = text.split('\n').slice(0, 4).join('\n')
  return lines.length > 400 ? `${lines.slice(0, 400)}…` : lines
}

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

/** A call the gate did not allow: why, for the model, and whether the user's denial stops the turn. */
export function denialOf(
  auth: Extract<Authorization, { decision: 'deny' }>,
  tool: string,
): { failure: CallFailure; userDenial?: { note?: string } } {
  if (auth.by === 'user') return userDenialOf(auth.answer, tool)
  const { verdict, offer } = auth
  // The rule that would let this call through (the gate re-checked it); never for a protected write.
  const ruleOffer = offer.noRule
    ? { noAllowRule: offer.noRule }
    : verdict.protectedWrite
      ? {}
      : { allowRule: offer.rule }
  if (auth.by === 'policy') {
    return {
      failure: {
        category: 'permission',
        message: `${tool} denied: ${verdict.reason}`,
        hint: 'do not retry this call; choose another approach or ask the user',
        status: 'denied',
        ...ruleOffer,
      },
    }
  }
  return {
    failure: {
      category: 'permission',
      message: `${tool} needs approval (${verdict.reason}) and no user is available`,
      hint: verdict.protectedWrite
        ? 'writes to protected paths are not opened by allow rules; only a user at the consent prompt can allow this one'
        : offer.noRule
          ? 'no allow rule can open it; only a user at the consent prompt can allow this one'
          : `mode ${auth.mode} denies it; the user can allow it with --allowed-tools "${offer.rule}" or another --mode`,
      status: 'denied',
      ...ruleOffer,
    },
  }
}

/**
 * A denial at the consent prompt. By the user: without a note the turn stops and waits for them (the
 * outcome says so); with one, the model goes on with it. By the prompt's timeout: an ordinary refusal.
 */
function userDenialOf(
  decision: Extract<ConsentDecision, { kind: 'deny' }>,
  tool: string,
): { failure: CallFailure; userDenial?: { note?: string } } {
  if (decision.automatic) {
    return {
      failure: {
        category: 'permission',
        message: `${tool} was denied: ${decision.note ?? 'no answer'}`,
        hint: 'do not retry the same call; adjust the approach or ask the user',
        status: 'denied',
      },
    }
  }
  const note = decision.note?.trim()
  const failure: CallFailure = note
    ? {
        category: 'permission',
        message: `the user denied ${tool} and said: ${note}`,
        hint: 'do not retry the same call; do what the user said instead',
        status: 'denied',
      }
    : {
        category: 'permission',
        message: `the user denied ${tool}`,
        hint: 'stop here: the user will say how to go on',
        status: 'denied',
      }
  return { failure, userDenial: note ? { note } : {} }
}

/** A tool that threw: an expected `ToolError` with its category and hint, or anything else. */
export function thrownFailure(
  err: unknown,
  tool: string,
  note?: string,
): CallFailure & { retryable?: boolean } {
  if (err instanceof ToolError) {
    return {
      category: err.category,
      message: err.message,
      ...(err.hint ? { hint: err.hint } : {}),
      ...(note ? { note } : {}),
      retryable: err.retryable,
    }
  }
  const message = err instanceof Error ? err.message : String(err)
  return { category: 'execution', message: `${tool} failed unexpectedly: ${message}` }
}
