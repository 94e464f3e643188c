import type { HookOutcome } from './protocol.js'
import type { HookCard, HookEvent } from './types.js'

/**
 * What the hooks of one event decided together, and the cards the transcript shows for them. Pure.
 *
 * The hooks of an event run in parallel and never see each other's answers, so their answers are combined
 * by precedence: for PreToolUse deny beats ask beats allow; any hook that blocks blocks; context from every
 * hook is kept, in configuration order; the first argument rewrite wins (a second one is reported).
 */

export interface HookVerdict {
  /** How many hooks ran. */
  ran: number
  /** PreToolUse only: the strongest permission answer, or null when no hook gave one. */
  permission: 'allow' | 'ask' | 'deny' | null
  /** The reasons given with the winning permission answer (empty when none was given). */
  permissionReason: string
  /**
   * Why the event is blocked: PreToolUse denies the call, PostToolUse sends this to the model,
   * UserPromptSubmit drops the prompt, Stop / SubagentStop keep the agent working. Null: not blocked.
   */
  block: string | null
  /** PreToolUse: the tool's new arguments. */
  updatedInput: Record<string, unknown> | null
  /** Text for the model: additionalContext, and plain stdout of UserPromptSubmit and SessionStart. */
  context: string[]
  /** A hook answered `"continue": false`: the turn stops after this event, with this reason for the user. */
  stop: string | null
  cards: HookCard[]
}

/** Events whose exit 2 / `decision: block` changes what happens (the rest only show stderr). */
const BLOCKING: ReadonlySet<HookEvent> = new Set([
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
])

/** Events whose plain stdout on exit 0 is context for the model rather than a note for the user. */
const STDOUT_IS_CONTEXT: ReadonlySet<HookEvent> = new Set(['UserPromptSubmit', 'SessionStart'])

export const EMPTY_VERDICT: HookVerdict = {
  ran: 0,
  permission: null,
  permissionReason: '',
  block: null,
  updatedInput: null,
  context: [],
  stop: null,
  cards: [],
}

/** `target`: the tool's name for tool events, for the cards. */
export function combine(event: HookEvent, outcomes: readonly HookOutcome[], target = ''): HookVerdict {
  const blocking = BLOCKING.has(event)
  const blocks = blocking ? outcomes.filter((o) => o.kind === 'block') : []
  const asks = outcomes.filter((o) => o.kind === 'ok' && o.answer.permissionDecision === 'ask')
  const allows = outcomes.filter(
    (o) => o.kind === 'ok' && (o.answer.permissionDecision === 'allow' || o.answer.decision === 'approve'),
  )
  let permission: HookVerdict['permission'] = null
  let permissionReason = ''
  if (event === 'PreToolUse') {
    const winners = blocks.length ? blocks : asks.length ? asks : allows
    permission = blocks.length ? 'deny' : asks.length ? 'ask' : allows.length ? 'allow' : null
    permissionReason = joinReasons(
      winners.map((o) =>
        o.kind === 'block' ? o.reason : (o.answer.permissionDecisionReason ?? o.answer.reason),
      ),
    )
  }
  const cards = outcomes.flatMap((o) => cardsFor(event, o, target))
  const rewrites =
    event === 'PreToolUse' && permission !== 'deny'
      ? outcomes.filter((o) => o.kind === 'ok' && o.answer.updatedInput)
      : []
  if (rewrites.length > 1) {
    cards.push({
      event,
      level: 'warn',
      text: `${rewrites.length} PreToolUse hooks rewrote the ${target} arguments; the first one's were used`,
      detail: rewrites.map((o) => `$ ${o.hook.command}`).join('\n'),
    })
  }
  // A JSON answer that blocks may still add context (PostToolUse: the reason and the context both go).
  const answered = (o: HookOutcome) => o.kind === 'ok' || o.kind === 'block'
  const context = outcomes.flatMap((o) => {
    if (!answered(o)) return []
    const parts: string[] = []
    if (o.answer.additionalContext?.trim()) parts.push(o.answer.additionalContext.trim())
    if (STDOUT_IS_CONTEXT.has(event) && o.text?.trim()) parts.push(o.text.trim())
    return parts
  })
  const stopper = outcomes.find((o) => answered(o) && o.answer.continue === false)
  return {
    ran: outcomes.length,
    permission,
    permissionReason,
    block: blocks.length ? joinReasons(blocks.map((o) => o.reason)) : null,
    updatedInput: rewrites[0]?.answer.updatedInput ?? null,
    context,
    stop: stopper ? stopper.answer.stopReason?.trim() || `a ${event} hook stopped the turn` : null,
    cards,
  }
}

function joinReasons(reasons: ReadonlyArray<string | null | undefined>): string {
  return reasons
    .map((r) => r?.trim())
    .filter((r): r is string => Boolean(r))
    .join('\n')
}

/** The transcript cards of one hook's run: none for a silent success. */
export function cardsFor(event: HookEvent, o: HookOutcome, target = ''): HookCard[] {
  const card = (level: HookCard['level'], text: string): HookCard => ({
    event,
    level,
    text,
    detail: detailOf(o, STDOUT_IS_CONTEXT.has(event)),
  })
  const on = target ? ` ${target}` : ''
  switch (o.kind) {
    case 'aborted':
      return []
    case 'timeout':
      return [
        card(
          'error',
          `${event} hook timed out after ${o.hook.timeoutSeconds} s and was stopped (its processes were killed)`,
        ),
      ]
    case 'error': {
      if (o.run.refused !== undefined) return [card('warn', `${event} hook not run: ${o.run.refused}`)]
      if (o.run.spawnError !== undefined)
        return [card('error', `${event} hook could not start: ${o.run.spawnError}`)]
      const how = o.run.exitCode === null ? 'was killed' : `failed (exit ${o.run.exitCode})`
      const first = firstLine(o.run.stderr) || firstLine(o.run.stdout)
      return [card('warn', `${event} hook ${how}${first ? `: ${first}` : ''}`)]
    }
  }
  const a = o.answer
  const out: HookCard[] = []
  // `continue: false` wins over any decision, as in Claude Code.
  if (a.continue === false) {
    out.push(card('warn', `${event} hook stopped the turn: ${a.stopReason?.trim() || 'no reason given'}`))
  } else if (o.kind === 'block') {
    out.push(card('warn', blockText(event, o.reason ?? '', on)))
  } else if (event === 'PreToolUse' && a.permissionDecision === 'ask') {
    const why = (a.permissionDecisionReason ?? a.reason)?.trim()
    out.push(card('info', `PreToolUse hook asks before${on}${why ? `: ${why}` : ''}`))
  } else if (event === 'PreToolUse' && a.updatedInput) {
    out.push(card('info', `PreToolUse hook rewrote the${on} arguments`))
  } else if (a.additionalContext?.trim() || (STDOUT_IS_CONTEXT.has(event) && o.text?.trim())) {
    const added = a.additionalContext?.trim() || o.text?.trim() || ''
    out.push(card('info', `${event} hook added context for the model: ${firstLine(added)}`))
  } else if (o.text?.trim() && !a.suppressOutput) {
    out.push(card('info', `${event} hook: ${firstLine(o.text)}`))
  }
  if (a.systemMessage?.trim()) out.push(card('warn', `${event} hook: ${a.systemMessage.trim()}`))
  if (o.problems.length > 0) {
    out.push(card('warn', `${event} hook answered with problems: ${o.problems.join('; ')}`))
  }
  return out
}

function blockText(event: HookEvent, reason: string, on: string): string {
  const why = firstLine(reason)
  switch (event) {
    case 'PreToolUse':
      return `PreToolUse hook blocked${on}: ${why}`
    case 'PostToolUse':
      return `PostToolUse hook on${on} told the model: ${why}`
    case 'UserPromptSubmit':
      return `UserPromptSubmit hook blocked the prompt: ${why}`
    case 'Stop':
      return `Stop hook keeps the agent working: ${why}`
    case 'SubagentStop':
      return `SubagentStop hook keeps the subagent working: ${why}`
    default:
      return `${event} hook (exit 2): ${why}`
  }
}

/** Output kept in a card's detail (and the session log) per stream. */
const DETAIL_CHARS = 4000

/** What Ctrl+O shows: the command, where it is configured, how it ended and what it printed. */
function detailOf(o: HookOutcome, stdoutIsContext: boolean): string {
  const { hook, run } = o
  const end = run.timedOut
    ? `timed out after ${hook.timeoutSeconds} s`
    : run.refused !== undefined
      ? `not run: ${run.refused}`
      : run.spawnError !== undefined
        ? `could not start: ${run.spawnError}`
        : run.exitCode === null
          ? 'killed'
          : `exit ${run.exitCode}`
  const lines = [`$ ${hook.command}`, `${hook.file} · ${end} · ${Math.round(run.durationMs)} ms`]
  const hideStdout = o.answer.suppressOutput === true && !stdoutIsContext
  if (run.stdout.trim() && !hideStdout) lines.push('stdout:', clip(run.stdout))
  if (run.stderr.trim()) lines.push('stderr:', clip(run.stderr))
  return lines.join('\n')
}

function clip(text: string): string {
  const t = text.replace(/\s+$/, '')
  return t.length > DETAIL_CHARS
    ? `${t.slice(0, DETAIL_CHARS)}\n… (${t.length - DETAIL_CHARS} more characters)`
    : t
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0]?.trim() ?? ''
  return line.length > 200 ? `${line.slice(0, 199)}…` : line
}
