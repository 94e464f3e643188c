import type { ImagePart, ToolCall } from '../provider/messages.js'
import type { ErrorCategory, ToolDisplay } from '../store/domain.js'
import type { ToolStatus } from '../store/state.js'
import { cancelledEnvelope, envelope, formatEnvelope } from './envelope.js'

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
}

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
  }
}
