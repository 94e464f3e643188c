import type { Mode } from '../store/domain.js'
import type { ConfiguredHook, HookEvent } from './types.js'

/**
 * Claude Code's hook protocol, both directions. Pure.
 *
 * In: the event as one JSON object on the hook's stdin — `session_id`, `transcript_path`, `cwd`,
 * `permission_mode`, `hook_event_name` and the event's own fields.
 *
 * Out: the exit code carries the meaning — 0 success (stdout may be a JSON answer), 2 blocking (stderr is
 * the reason), anything else a non-blocking error. A JSON answer is read only on exit 0.
 */

export interface HookCommon {
  session_id: string
  transcript_path: string
  cwd: string
  permission_mode: string
}

/** The event's own fields, by event. */
export interface EventFields {
  PreToolUse: { tool_name: string; tool_input: unknown; tool_use_id: string }
  PostToolUse: { tool_name: string; tool_input: unknown; tool_response: unknown; tool_use_id: string }
  UserPromptSubmit: { prompt: string }
  Stop: { stop_hook_active: boolean; last_assistant_message?: string }
  SubagentStop: {
    stop_hook_active: boolean
    agent_id?: string
    agent_type?: string
    last_assistant_message?: string
  }
  PreCompact: { trigger: 'manual' | 'auto'; custom_instructions: string }
  SessionStart: { source: 'startup' | 'resume' | 'clear' | 'compact'; model?: string }
  SessionEnd: { reason: 'clear' | 'logout' | 'prompt_input_exit' | 'other' }
  Notification: { message: string; notification_type: string; title?: string }
}

/** Claude Code's names for the permission modes (and ours in `agent_tui_mode`). */
const PERMISSION_MODE: Record<Mode, string> = {
  safe: 'default',
  auto: 'acceptEdits',
  plan: 'plan',
  dangerous: 'bypassPermissions',
  ci: 'dontAsk',
}

export function permissionModeName(mode: Mode): string {
  return PERMISSION_MODE[mode]
}

export function buildInput<E extends HookEvent>(
  event: E,
  common: HookCommon,
  fields: EventFields[E],
): Record<string, unknown> {
  return { ...common, hook_event_name: event, ...fields }
}

/** How one hook process ended, as the runner saw it. */
export interface RawRun {
  /** null when it was killed by a signal or never started. */
  exitCode: number | null
  stdout: string
  stderr: string
  durationMs: number
  /** Killed at its timeout (the whole process group). */
  timedOut: boolean
  /** Killed because the turn was interrupted. */
  aborted: boolean
  /** It could not be started at all. */
  spawnError?: string
  /** agent-tui did not start it, and why (what it runs changed while commands ran unasked). */
  refused?: string
}

/** A JSON answer, with every field of the wrong type left out (and named in `problems`). */
export interface HookAnswer {
  continue?: boolean
  stopReason?: string
  suppressOutput?: boolean
  systemMessage?: string
  decision?: 'approve' | 'block'
  reason?: string
  permissionDecision?: 'allow' | 'deny' | 'ask'
  permissionDecisionReason?: string
  updatedInput?: Record<string, unknown>
  additionalContext?: string
}

export type OutcomeKind = 'ok' | 'block' | 'error' | 'timeout' | 'aborted'

/** One hook's run, read. */
export interface HookOutcome {
  hook: ConfiguredHook
  run: RawRun
  kind: OutcomeKind
  answer: HookAnswer
  /** Exit 2's stderr, or the JSON answer's reason for blocking / denying. */
  reason: string | null
  /** stdout on exit 0 when it is not a JSON answer. */
  text: string | null
  problems: string[]
}

/** Reads the hook's exit code and output for `event`. */
export function interpret(event: HookEvent, hook: ConfiguredHook, run: RawRun): HookOutcome {
  const base = { hook, run, answer: {}, reason: null, text: null, problems: [] as string[] }
  if (run.aborted) return { ...base, kind: 'aborted' }
  if (run.timedOut) return { ...base, kind: 'timeout' }
  // A guard that did not run cannot guard: the call it was to judge does not run either.
  if (run.refused !== undefined && event === 'PreToolUse')
    return {
      ...base,
      kind: 'block',
      reason: `the PreToolUse hook \`${hook.command}\` was not run: ${run.refused}`,
    }
  if (run.spawnError !== undefined || run.exitCode === null) return { ...base, kind: 'error' }
  if (run.exitCode === 2) {
    return { ...base, kind: 'block', reason: run.stderr.trim() || `the ${event} hook exited with code 2` }
  }
  if (run.exitCode !== 0) return { ...base, kind: 'error' }
  const parsed = parseAnswer(run.stdout, event)
  const answer = parsed.answer
  const blocks =
    answer.decision === 'block' || (event === 'PreToolUse' && answer.permissionDecision === 'deny')
  const reason = blocks
    ? (event === 'PreToolUse' ? answer.permissionDecisionReason : undefined) ||
      answer.reason ||
      `the ${event} hook gave no reason`
    : null
  return {
    ...base,
    kind: blocks ? 'block' : 'ok',
    answer,
    reason,
    text: parsed.text,
    problems: parsed.problems,
  }
}

/**
 * stdout on exit 0: a JSON object is an answer; anything else is plain text. Fields of the wrong type
 * are dropped and named, so a typo never turns into a decision nobody made.
 */
export function parseAnswer(
  stdout: string,
  event: HookEvent,
): { answer: HookAnswer; text: string | null; problems: string[] } {
  const body = stdout.trim()
  if (body === '') return { answer: {}, text: null, problems: [] }
  let json: unknown
  try {
    json = body.startsWith('{') ? JSON.parse(body) : undefined
  } catch (err) {
    return {
      answer: {},
      text: body,
      problems: [`stdout starts like JSON but does not parse (${(err as Error).message}); read as text`],
    }
  }
  if (!isRecord(json)) return { answer: {}, text: body, problems: [] }
  const problems: string[] = []
  const answer: HookAnswer = {}
  const take = <K extends keyof HookAnswer>(
    key: K,
    from: Record<string, unknown>,
    field: string,
    check: (v: unknown) => v is NonNullable<HookAnswer[K]>,
    expected: string,
  ) => {
    const value = from[field]
    if (value === undefined || value === null) return
    if (check(value)) answer[key] = value
    else problems.push(`"${field}" should be ${expected}; ignored`)
  }
  take('continue', json, 'continue', isBoolean, 'true or false')
  take('stopReason', json, 'stopReason', isString, 'a string')
  take('suppressOutput', json, 'suppressOutput', isBoolean, 'true or false')
  take('systemMessage', json, 'systemMessage', isString, 'a string')
  take('decision', json, 'decision', oneOf('approve', 'block'), '"approve" or "block"')
  take('reason', json, 'reason', isString, 'a string')
  const specific = json.hookSpecificOutput
  if (isRecord(specific)) {
    const named = specific.hookEventName
    if (named !== undefined && named !== event) {
      problems.push(`hookSpecificOutput is for ${String(named)}, not ${event}; ignored`)
    } else {
      take(
        'permissionDecision',
        specific,
        'permissionDecision',
        oneOf('allow', 'deny', 'ask'),
        '"allow", "deny" or "ask"',
      )
      take('permissionDecisionReason', specific, 'permissionDecisionReason', isString, 'a string')
      take('updatedInput', specific, 'updatedInput', isRecord, 'an object')
      take('additionalContext', specific, 'additionalContext', isString, 'a string')
    }
  } else if (specific !== undefined) problems.push('"hookSpecificOutput" should be an object; ignored')
  return { answer, text: null, problems }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isString(value: unknown): value is string {
  return typeof value === 'string'
}

function isBoolean(value: unknown): value is boolean {
  return typeof value === 'boolean'
}

function oneOf<T extends string>(...values: T[]): (value: unknown) => value is T {
  return (value: unknown): value is T => typeof value === 'string' && (values as string[]).includes(value)
}
