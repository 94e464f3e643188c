import type { ContentPart, ToolCall, UserMessage } from '../../store/messages.js'
import type { TurnResult } from '../../store/domain.js'
import { executeBatch } from '../tool-call/batch.js'
import { prepareToolCalls } from '../tool-call/arguments.js'
import { type CircuitBreakerConfig, CircuitBreaker } from './circuit-breaker.js'
import { type CallOutcome, type ExecutorDeps, failedOutcome } from '../tool-call/pipeline.js'
import { withOverflowRecovery } from '../context/recovery.js'
import { LoopGuard, reminderText } from './loop-guard.js'
import { CONTINUE_INSTRUCTION, limitStopResult, MAX_LENGTH_CONTINUATIONS, noteLimit } from './output-limit.js'
import { interruptedText } from './user-input.js'
import { requestStep, type StepDeps } from './request-step.js'
import { admitResults } from './result-budget.js'
import type { UserInput } from './user-input.js'
import { checkStop, MAX_STOP_CONTINUATIONS, submitPrompt, type TurnHooks } from './turn-hooks.js'
import type { ToolReplyCheck } from './tool-reply-check.js'

export const MAX_STEPS_INSTRUCTION =
  'MAX_STEPS: this is the last step of this turn, so tools are disabled. Do not call any tool. Summarise what ' +
  'was done, what remains, and what the user should do next.'

export type { UserInput } from './user-input.js'

export interface TurnDeps extends StepDeps {
  /** Before each step's request: the first fixes the tool definitions, later ones announce MCP tools. */
  prepareStep?(signal: AbortSignal): Promise<void>
  executor: ExecutorDeps
  supportsVision(): boolean
  maxSteps: number
  breaker: CircuitBreakerConfig
  /** Interactive sessions pause (end the turn and wait for the user); headless follows silentBehavior. */
  interactive: boolean
  takeQueued(): UserInput[]
  /** UserPromptSubmit and Stop hooks (absent: none configured). */
  hooks?: TurnHooks
  /** Messages still queued (an interrupted turn leaves them for the user's next message). */
  queuedCount?(): number
  /** The session's first-turn probe: a tool call written as text gets one notice (tool-reply-check.ts). */
  toolReplyCheck?: ToolReplyCheck
}

/** One user turn: request → stream → tools → repeat, until done, capped, stopped or interrupted. */
export async function runTurn(deps: TurnDeps, input: UserInput, signal: AbortSignal): Promise<TurnResult> {
  const { store } = deps
  const dispatch = store.dispatch
  const turnId = deps.newId('turn')
  dispatch({ type: 'turn/started', turnId, at: deps.now() })
  const guard = new LoopGuard()
  const breaker = new CircuitBreaker(deps.breaker, deps.now())
  let step = 0
  let lastText = ''
  /** Times a Stop hook sent the model back to work in this turn. */
  let stopContinuations = 0
  /** Replies in a row that ended on the output limit, and the cut text a continuation extends. */
  let limitHits = 0
  let continued = ''
  const end = (result: Omit<TurnResult, 'steps'>): TurnResult => {
    const full = { ...result, steps: step }
    if (result.kind === 'interrupted') {
      const text = interruptedText(deps.queuedCount?.() ?? 0)
      dispatch({ type: 'notice/added', id: deps.newId('notice'), level: 'info', text })
    }
    dispatch({ type: 'turn/ended', result: full })
    return full
  }
  const stopWith = (result: Omit<TurnResult, 'steps'>): TurnResult => {
    if (result.error)
      dispatch({ type: 'notice/added', id: deps.newId('notice'), level: 'warn', text: result.error })
    return end(result)
  }

  // A user command's shell commands and file reads run first: the prompt is what they make of it.
  const prepared = input.prepare ? await input.prepare(signal) : { content: input.content }
  if ('error' in prepared) {
    if (!signal.aborted) {
      dispatch({ type: 'notice/added', id: deps.newId('notice'), level: 'error', text: prepared.error })
    }
    return end({ kind: signal.aborted ? 'interrupted' : 'error', text: '', error: prepared.error })
  }
  // The prompt goes to the model only once UserPromptSubmit hooks let it (their card says why not).
  const first = await submitPrompt(deps, { ...input, content: prepared.content }, turnId, signal)
  if (first !== 'sent') return end({ kind: first.kind, text: '', ...(first.why ? { error: first.why } : {}) })
  if (!store.getState().session.title && input.text.trim()) {
    dispatch({ type: 'session/titled', title: titleFrom(input.text) })
  }

  while (true) {
    step++
    dispatch({ type: 'step/started', step })
    await deps.prepareStep?.(signal)
    for (const queued of deps.takeQueued()) await submitPrompt(deps, queued, undefined, signal)
    const lastStep = step >= deps.maxSteps
    if (lastStep) {
      dispatch({
        type: 'history/appended',
        message: { role: 'user', content: MAX_STEPS_INSTRUCTION },
        note: `step limit (${deps.maxSteps}) reached: tools disabled for the final answer`,
      })
    }
    const response = await withOverflowRecovery(
      deps.context,
      () => requestStep(deps, lastStep, signal),
      signal,
    )
    if (response instanceof Error) return end({ kind: 'error', text: lastText, error: response.message })
    const assistantId = response.assistantId
    const prepared = prepareToolCalls(response.aborted ? [] : response.toolCalls, response.finishReason)
    const toolCalls = prepared.calls
    if (response.text || response.reasoning || toolCalls.length > 0) {
      dispatch({
        type: 'assistant/settled',
        id: assistantId,
        message: {
          role: 'assistant',
          content: response.text || null,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          ...(response.reasoning ? { reasoning: response.reasoning } : {}),
        },
      })
    }
    if (response.text) lastText = continued + response.text
    continued = ''
    if (response.aborted || signal.aborted) return end({ kind: 'interrupted', text: lastText })
    // On the last step tools are off: a call written as text there says nothing about the server.
    if (!lastStep) checkToolReply(deps, response.text, toolCalls.length, response.textToolCalls !== undefined)
    const hitLimit = response.finishReason === 'length'
    limitHits = hitLimit ? limitHits + 1 : 0
    const limitStop = hitLimit && !lastStep && limitHits > MAX_LENGTH_CONTINUATIONS
    if (hitLimit && !limitStop) {
      const next = lastStep ? 'none' : toolCalls.length > 0 ? 'tools' : 'continue'
      noteLimit(dispatch, deps.newId, { cut: prepared.cutByLimit, next, hits: limitHits })
    }
    if (toolCalls.length === 0) {
      if (lastStep) return end({ kind: 'max-steps', text: lastText })
      if (limitStop) return stopWith(limitStopResult(lastText))
      if (hitLimit) {
        // The cut reply stays in the history; the model is asked to go on from where it stopped.
        dispatch({ type: 'history/appended', message: { role: 'user', content: CONTINUE_INSTRUCTION } })
        continued = response.text ? lastText : ''
        continue
      }
      if (deps.hooks?.service.has('Stop')) {
        const verdict = await checkStop(
          deps.hooks,
          { continuations: stopContinuations, lastText, id: turnId },
          signal,
        )
        if (signal.aborted) return end({ kind: 'interrupted', text: lastText })
        if (verdict.kind === 'continue') {
          stopContinuations++
          dispatch({ type: 'history/appended', message: { role: 'user', content: verdict.feedback } })
          continue
        }
        if (verdict.kind === 'cap') {
          dispatch({
            type: 'notice/added',
            id: deps.newId('notice'),
            level: 'warn',
            text: `a Stop hook kept the agent working ${MAX_STOP_CONTINUATIONS} times in this turn; it stops now (the hook can read stop_hook_active to end the loop itself)`,
          })
        }
      }
      return end({ kind: 'completed', text: lastText })
    }
    if (lastStep) {
      // The model called tools despite tool_choice "none": answer them so the history stays paired.
      for (const call of toolCalls) finish(deps, disabledOutcome(call, deps.now()))
      return end({ kind: 'max-steps', text: lastText })
    }

    dispatch({ type: 'phase/changed', phase: 'tools' })
    const outcomes = await admitResults(
      deps.context,
      await executeBatch(deps.executor, prepared, signal),
      dispatch,
      deps.newId,
    )
    const images: ContentPart[] = []
    let stop: Omit<TurnResult, 'steps'> | null = limitStop ? limitStopResult(lastText) : null
    let hookStop: string | null = null
    for (const outcome of outcomes) {
      finish(deps, outcome)
      hookStop ??= outcome.stopTurn ?? null
      if (outcome.images.length && deps.supportsVision()) {
        images.push({ type: 'text', text: `Image returned by ${outcome.summary}:` }, ...outcome.images)
      }
      if (outcome.status === 'cancelled') continue
      const call = toolCalls.find((c) => c.id === outcome.callId)
      const verdict = guard.record(outcome.name, call?.function.arguments ?? '', outcome)
      if (verdict === 'remind') {
        dispatch({
          type: 'history/appended',
          message: { role: 'user', content: reminderText(outcome.name, outcome.errorMessage ?? 'error') },
          note: `loop guard: ${outcome.name} failed repeatedly with the same arguments; reminded the model`,
        })
      } else if (verdict === 'stop' && !stop) {
        stop = {
          kind: 'stopped',
          text: lastText,
          error: `stopped: the model kept repeating a failing ${outcome.name} call after a reminder`,
        }
      }
      const tripped = breaker.record(outcome.name, deps.now())
      if (tripped.kind === 'warn') {
        dispatch({ type: 'notice/added', id: deps.newId('notice'), level: 'warn', text: tripped.message })
      } else if (tripped.kind === 'stop' && !stop) {
        stop = { kind: 'stopped', text: lastText, error: tripped.message }
      } else if (tripped.kind === 'pause' && !stop) {
        stop = pauseResult(deps, tripped.message, lastText)
      }
    }
    if (images.length) {
      dispatch({ type: 'history/appended', message: { role: 'user', content: images } satisfies UserMessage })
    }
    if (signal.aborted) return end({ kind: 'interrupted', text: lastText })
    // The hook's card already says why.
    if (hookStop) return end({ kind: 'stopped', text: lastText, error: hookStop })
    if (stop) return stopWith(stop)
    // Like Claude Code: a plain "no" ends the step and waits for the user; a "no" with a note goes on with it.
    const denial = outcomes.find((o) => o.userDenial)
    if (denial && denial.userDenial?.note === undefined) {
      dispatch({
        type: 'notice/added',
        id: deps.newId('notice'),
        level: 'info',
        text: `Denied ${denial.summary}: the agent stopped and waits for you. Say what to do instead (a note added with Tab when denying lets it go on).`,
      })
      return end({ kind: 'stopped', text: lastText })
    }
  }
}

/** Says once when the endpoint turned a tool call into text (tool-reply-check.ts). */
function checkToolReply(deps: TurnDeps, text: string, toolCalls: number, recoveryReported: boolean): void {
  const note = deps.toolReplyCheck?.observe({
    text,
    toolCalls,
    recoveryReported,
    toolNames: () => deps.toolDefinitions.map((d) => d.function.name),
    baseUrl: deps.store.getState().session.baseUrl,
    model: deps.model(),
  })
  if (note)
    deps.store.dispatch({ type: 'notice/added', id: deps.newId('tool-support'), level: 'warn', text: note })
}

function pauseResult(deps: TurnDeps, message: string, text: string): Omit<TurnResult, 'steps'> | null {
  if (deps.interactive) {
    return { kind: 'stopped', text, error: `${message}: paused — send a message (e.g. "continue") to go on` }
  }
  const behavior = deps.breaker.silentBehavior
  if (behavior === 'warn-and-continue') {
    deps.store.dispatch({ type: 'notice/added', id: deps.newId('notice'), level: 'warn', text: message })
    return null
  }
  return { kind: behavior === 'error' ? 'error' : 'stopped', text, error: `${message}: stopped (headless)` }
}

function finish(deps: TurnDeps, outcome: CallOutcome): void {
  // Tools never touch the store; typed display data that is also state is applied here.
  if (outcome.display?.kind === 'todos') {
    deps.store.dispatch({ type: 'todos/replaced', todos: outcome.display.todos })
  }
  deps.store.dispatch({
    type: 'tool/finished',
    callId: outcome.callId,
    name: outcome.name,
    summary: outcome.summary,
    status: outcome.status,
    content: outcome.content,
    preview: outcome.preview,
    display: outcome.display,
    durationMs: outcome.durationMs,
    ...(outcome.arguments !== undefined ? { arguments: outcome.arguments } : {}),
  })
}

function disabledOutcome(call: ToolCall, now: number): CallOutcome {
  const out = failedOutcome(
    { call, started: now, now },
    { category: 'permission', message: 'tools are disabled on the last step' },
  )
  return { ...out, preview: 'tools disabled on the last step' }
}

/** A session title from the first user message: its first line, at most 60 characters. */
export function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0] ?? ''
  return line.length > 60 ? `${line.slice(0, 59)}…` : line
}
