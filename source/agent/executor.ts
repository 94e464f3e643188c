import { changeKind } from '../checkpoints/change-kind.js'
import type { ToolCall } from '../provider/messages.js'
import type { Rule } from '../permissions/rule.js'
import type { Dispatch } from '../store/create-store.js'
import type { PermissionTarget } from '../permissions/target.js'
import type { ErrorCategory, Risk } from '../store/domain.js'
import { type AnyTool, type ToolContext, ToolError } from '../tools/types.js'
import { type CallOutcome, cancelled, type FailureDetails, failedOutcome } from './call-outcome.js'
import { approvalNote, approvalNoteOf, denied } from './consent-answer.js'
import { encodeArguments, parseToolArguments } from './parse-arguments.js'
import type { GateVerdict, PermissionGate } from './permission-gate.js'
import { postToolUse, preToolUse, showCards, type ToolHooks } from './tool-hooks.js'

export type { CallOutcome, FailureDetails, OutcomeBase } from './call-outcome.js'
export { cancelled, failedOutcome, refusedOutcome } from './call-outcome.js'

/** Snapshots around calls that change the workspace (see source/checkpoints/). */
export interface CheckpointHook {
  /** Awaited before the call runs; never rejects. */
  before(kind: 'edit' | 'exec'): Promise<void>
  /** After the call, whatever its outcome; records what it changed in the background. */
  after(): void
}

/** The session's tools by name (a Map, or the session's built-in + MCP lookup). */
export interface ToolLookup {
  get(name: string): AnyTool | undefined
  keys(): Iterable<string>
}

export interface ExecutorDeps {
  tools: ToolLookup
  checkpoint?: CheckpointHook
  gate: PermissionGate
  /** PreToolUse / PostToolUse hooks (absent: none configured for this session). */
  hooks?: ToolHooks
  /** Allow rules for this executor's calls only: the `allowed-tools` of the user command whose turn it runs. */
  grants?: readonly Rule[]
  dispatch: Dispatch
  makeContext(signal: AbortSignal, onProgress: (text: string) => void, callId: string): ToolContext
  now(): number
  /** Minimum gap between live output previews of one call (ms). */
  progressIntervalMs?: number
  /** Told just before a call that nobody was asked about runs (see RuntimeOptions.unasked). */
  unasked?: (call: UnaskedCall) => void
}

/** A call about to run that nobody was asked about. */
export interface UnaskedCall {
  tool: string
  risk: Risk
  target: PermissionTarget
  readOnly: boolean
}

/**
 * Looks a call up, validates and authorises it, runs it. Never throws: every failure is an envelope.
 * `skip` withdraws a consent request still waiting (the user denied another call of the same message).
 */
export async function executeCall(
  call: ToolCall,
  deps: ExecutorDeps,
  signal: AbortSignal,
  skip?: AbortSignal,
): Promise<CallOutcome> {
  const ran: { arguments?: string } = {}
  const outcome = await runCall(call, deps, signal, skip, ran)
  return ran.arguments === undefined ? outcome : { ...outcome, arguments: ran.arguments }
}

/** `executeCall`; `ran.arguments` is set when a PreToolUse hook changed what the call runs with. */
async function runCall(
  call: ToolCall,
  deps: ExecutorDeps,
  signal: AbortSignal,
  skip: AbortSignal | undefined,
  ran: { arguments?: string },
): Promise<CallOutcome> {
  // Reset once the call is authorised, so durations show the tool's own time, not the user's.
  let started = deps.now()
  const name = call.function.name
  const tool = deps.tools.get(name)
  const fail = (category: ErrorCategory, message: string, opts: FailureDetails = {}) =>
    failedOutcome(
      { call, name: tool?.name ?? name, summary: summaryOf(tool, undefined, name), started, now: deps.now() },
      { category, message, ...opts },
    )

  if (!tool) {
    const available = [...deps.tools.keys()].join(', ')
    return fail('not_found', `unknown tool "${name}"`, { hint: `available tools: ${available}` })
  }
  const parsed = parseToolArguments(call.function.arguments)
  if (!parsed.ok) return fail('validation', parsed.error, { hint: 'send the arguments as one JSON object' })
  const validated = tool.schema.safeParse(parsed.value)
  if (!validated.success) {
    return fail('validation', `invalid arguments for ${tool.name}: ${issuesOf(validated.error.issues)}`, {
      hint: 'fix the listed fields and call again',
    })
  }
  let args = validated.data
  /** What the hooks see as `tool_input` (its paths made absolute): the arguments as the model sent them, or as a hook rewrote them. */
  let input: unknown = parsed.value
  let summary = summaryOf(tool, args, name)
  const failWith = (category: ErrorCategory, message: string, opts: FailureDetails = {}) =>
    failedOutcome(
      { call, name: tool.name, summary, started, now: deps.now() },
      { category, message, ...opts },
    )

  // PreToolUse runs before the permission check: it may deny, ask, allow (never past the policy's hard
  // limits: see wiring/permission-gate.ts) or rewrite the arguments, which are then validated again.
  const hooks = deps.hooks?.service.has('PreToolUse') ? deps.hooks : undefined
  const pre = hooks ? await preToolUse(hooks, { id: call.id, tool: tool.name, input }, signal) : undefined
  if (signal.aborted) return cancelled({ call, name: tool.name, summary, started, now: deps.now() })
  if (pre) started = deps.now()
  if (pre?.stop) {
    return {
      ...failWith('permission', `a PreToolUse hook stopped the turn before ${tool.name} ran: ${pre.stop}`, {
        hint: "the user's hook ended this turn; wait for the user",
        status: 'denied',
      }),
      stopTurn: `PreToolUse hook stopped the turn: ${pre.stop}`,
    }
  }
  if (pre && pre.deny !== null) {
    return failWith('permission', `${tool.name} blocked by a PreToolUse hook: ${pre.deny}`, {
      hint: "the user's hook refused this call; do not retry it as it is: follow the reason or ask the user",
      status: 'denied',
    })
  }
  if (pre?.updatedInput) {
    const rewritten = tool.schema.safeParse(pre.updatedInput)
    if (!rewritten.success) {
      return failWith(
        'validation',
        `a PreToolUse hook rewrote the arguments of ${tool.name} into invalid ones: ${issuesOf(rewritten.error.issues)}`,
        {
          hint: "the user's hook is at fault, not your call; tell the user",
        },
      )
    }
    args = rewritten.data
    input = pre.updatedInput
    summary = summaryOf(tool, args, name)
    // The history says what ran: the hook's arguments, not the model's.
    const encoded = encodeArguments(args)
    if (encoded !== null && encoded !== call.function.arguments) ran.arguments = encoded
  }
  deps.dispatch({ type: 'tool/started', callId: call.id, name: tool.name, summary, at: started })

  /** What the user added to their approval (Tab at the consent prompt): it goes to the model with the result. */
  let note: string | undefined
  const progress = throttledProgress(deps.progressIntervalMs ?? 100, deps.now, (text) =>
    deps.dispatch({ type: 'tool/progress', callId: call.id, preview: tailLines(text, 4) }),
  )
  const ctx = deps.makeContext(signal, progress.push, call.id)

  let asking = false
  let asked = false
  try {
    // Symlinks are resolved once, here: the policy judges real paths and the write checks against them.
    const target = await deps.gate.resolveTarget(await tool.permissionTarget(args, ctx))
    const readOnly = tool.isReadOnly(args)
    const check = { tool: tool.name, risk: tool.risk, target, readOnly, ...grantsOf(deps) }
    let verdict: GateVerdict = deps.gate.check(pre?.allow ? { ...check, hookAllow: true } : check)
    if (pre?.allow) explainHookAllow(deps, call.id, tool.name, verdict, deps.gate.check(check))
    if (pre?.ask && verdict.decision === 'allow')
      verdict = { ...verdict, decision: 'ask', reason: `a PreToolUse hook asks: ${pre.ask}` }
    else if (pre?.ask && verdict.decision === 'ask')
      verdict = { ...verdict, reason: `${verdict.reason}; a PreToolUse hook asks too: ${pre.ask}` }
    const offer = deps.gate.offerRules?.(check, verdict) ?? {
      rule: verdict.suggestedRule ?? deps.gate.suggestRule(tool.name, target),
    }
    const suggestedRule = offer.rule
    const noAllowRule = offer.noRule ? { noAllowRule: offer.noRule } : {}
    if (verdict.decision === 'deny') {
      return failWith('permission', `${tool.name} denied: ${verdict.reason}`, {
        hint: 'do not retry this call; choose another approach or ask the user',
        status: 'denied',
        ...noAllowRule,
      })
    }
    if (verdict.decision === 'ask') {
      if (!deps.gate.canAsk()) {
        return failWith(
          'permission',
          `${tool.name} needs approval (${verdict.reason}) and no user is available`,
          {
            hint: verdict.protectedWrite
              ? 'writes to protected paths are not opened by allow rules; only a user at the consent prompt can allow this one'
              : offer.noRule
                ? 'no allow rule can open it; only a user at the consent prompt can allow this one'
                : `mode ${deps.gate.mode()} denies it; the user can allow it with --allowed-tools "${suggestedRule}" or another --mode`,
            status: 'denied',
            ...noAllowRule,
          },
        )
      }
      deps.dispatch({ type: 'phase/changed', phase: 'awaiting-user' })
      deps.hooks?.notify('permission_prompt', `agent-tui needs your permission to use ${tool.name}`)
      const preview = await tool.preview(args, ctx)
      // A protected write is never opened by a rule: saving one ("for the session", "always") would do
      // nothing, so the prompt offers only "allow once" for it.
      const editsRule = verdict.protectedWrite ? undefined : deps.gate.sessionEditsRule?.(tool.name, target)
      asking = true
      asked = true
      const decision = await deps.gate.request(
        {
          callId: call.id,
          tool: tool.name,
          risk: tool.risk,
          summary,
          reason: verdict.reason,
          preview,
          suggestedRule,
          ...(verdict.protectedWrite ? { protectedWrite: true } : {}),
          ...(editsRule ? { sessionEditsRule: editsRule } : {}),
          ...(offer.directoryRule ? { directoryRule: offer.directoryRule } : {}),
          ...(offer.noRule ? { noRule: offer.noRule } : {}),
          target,
          readOnly,
        },
        skip ? AbortSignal.any([signal, skip]) : signal,
      )
      asking = false
      deps.dispatch({ type: 'phase/changed', phase: 'tools' })
      if (decision.kind === 'deny') return denied(decision, failWith, tool.name)
      note = approvalNoteOf(decision, summary, call.id, deps.dispatch)
      started = deps.now()
    }
    if (!asked) deps.unasked?.({ tool: tool.name, risk: tool.risk, target, readOnly })
    const change = deps.checkpoint ? changeKind(tool.risk, target, readOnly) : null
    if (change) {
      await deps.checkpoint?.before(change)
      started = deps.now()
    }
    let result: Awaited<ReturnType<typeof tool.execute>>
    try {
      const deniedRead = tool.risk === 'read' ? deps.gate.deniedRead?.(tool.name) : undefined
      result = await tool.execute(args, { ...ctx, permission: target, ...(deniedRead ? { deniedRead } : {}) })
    } finally {
      if (change) deps.checkpoint?.after()
    }
    if (signal.aborted) return cancelled({ call, name: tool.name, summary, started, now: deps.now() })
    const durationMs = deps.now() - started
    const post = deps.hooks?.service.has('PostToolUse')
      ? await postToolUse(deps.hooks, { id: call.id, tool: tool.name, input }, result, signal)
      : undefined
    return {
      callId: call.id,
      name: tool.name,
      summary,
      status: result.failed ? 'error' : 'done',
      content: [result.forModel, post?.feedback, note ? approvalNote(note) : undefined]
        .filter((part) => part !== undefined && part !== '')
        .join('\n\n'),
      preview: previewOf(result.forModel),
      display: result.display ?? null,
      images: result.images ?? [],
      durationMs,
      ok: true,
      retryable: false,
      ...(post?.stop ? { stopTurn: `PostToolUse hook stopped the turn: ${post.stop}` } : {}),
    }
  } catch (err) {
    if (signal.aborted) return cancelled({ call, name: tool.name, summary, started, now: deps.now() })
    if (asking && skip?.aborted)
      return { ...cancelled({ call, name: tool.name, summary, started, now: deps.now() }), skipped: true }
    if (err instanceof ToolError) {
      const out = failWith(err.category, err.message, {
        ...(err.hint ? { hint: err.hint } : {}),
        ...(note ? { note } : {}),
      })
      return { ...out, retryable: err.retryable }
    }
    const message = err instanceof Error ? err.message : String(err)
    return failWith('execution', `${tool.name} failed unexpectedly: ${message}`)
  } finally {
    progress.stop()
  }
}

/**
 * Live output previews of one call, at most one per `intervalMs`, the first once the call has run that
 * long: a command done sooner shows its result, not a preview of it, and its output costs no update of
 * the view on the way to the result. Output that arrives between two previews is shown at the next one
 * (a timer of the call's own, stopped with it), so a command that goes quiet shows its latest lines.
 */
export function throttledProgress(
  intervalMs: number,
  now: () => number,
  emit: (text: string) => void,
): { push(text: string): void; stop(): void } {
  let last = now()
  let pending: string | null = null
  let timer: NodeJS.Timeout | null = null
  const flush = () => {
    timer = null
    if (pending === null) return
    const text = pending
    pending = null
    last = now()
    emit(text)
  }
  return {
    push(text) {
      pending = text
      if (timer) return
      const wait = last + intervalMs - now()
      if (wait <= 0) flush()
      else timer = setTimeout(flush, wait)
    },
    stop() {
      if (timer) clearTimeout(timer)
      timer = null
      pending = null
    },
  }
}

function issuesOf(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues.map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`).join('; ')
}

/**
 * A hook's allow acts as an allow rule for this one call: when it is what let the call run, or when the
 * policy's hard limits overrode it, the transcript says so.
 */
function explainHookAllow(
  deps: ExecutorDeps,
  callId: string,
  tool: string,
  withHook: GateVerdict,
  without: GateVerdict,
): void {
  if (!deps.hooks || (withHook.decision === 'allow' && without.decision === 'allow')) return
  const text =
    withHook.decision === 'allow'
      ? `PreToolUse hook allowed ${tool} without asking (otherwise: ${without.reason})`
      : `PreToolUse hook allowed ${tool}, but its allow does not override this: ${withHook.reason}`
  showCards(deps.dispatch, deps.hooks.newId(`hook-allow-${callId}`), [
    { event: 'PreToolUse', level: 'info', text, detail: '' },
  ])
}

function grantsOf(deps: ExecutorDeps): { grants?: readonly Rule[] } {
  return deps.grants?.length ? { grants: deps.grants } : {}
}

function summaryOf(tool: AnyTool | undefined, args: unknown, fallback: string): string {
  if (!tool || args === undefined) return fallback
  try {
    return tool.summarize(args)
  } catch {
    return tool.name
  }
}

function previewOf(text: string): string {
  const lines = text.split('\n').slice(0, 4).join('\n')
  return lines.length > 400 ? `${lines.slice(0, 400)}…` : lines
}

function tailLines(text: string, n: number): string {
  const lines = text.replace(/\n+$/, '').split('\n')
  return lines.slice(-n).join('\n').slice(-400)
}
