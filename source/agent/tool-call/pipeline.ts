import { changeKind } from '../../checkpoints/change-kind.js'
import { type Authorization, authorize, type PermissionGate } from '../../permissions/gate.js'
import type { Rule } from '../../permissions/rule.js'
import type { PermissionTarget } from '../../permissions/target.js'
import type { Risk } from '../../store/domain.js'
import type { ToolCall } from '../../store/messages.js'
import type { Dispatch } from '../../store/create-store.js'
import type { AnyTool, ToolContext, ToolSuccess } from '../../tools/types.js'
import {
  approvalNoteOf,
  type CallFailure,
  type CallOutcome,
  cancelled,
  denialOf,
  failedOutcome,
  resultOutcome,
  thrownFailure,
} from './outcome.js'
import { encodeArguments, parseToolArguments } from './arguments.js'
import { resolve, type ToolLookup } from './resolve.js'
import { parametersOf } from '../prompt/tool-definitions.js'
import { tailLines, throttledProgress } from './progress.js'
import { postToolUse, type PreToolVerdict, preToolUse, showCards, type ToolHooks } from './tool-hooks.js'

export type { CallFailure, CallOutcome, FailureDetails, OutcomeBase } from './outcome.js'
export { type Resolved, resolve, type ToolLookup } from './resolve.js'
export { cancelled, failedOutcome, refusedOutcome } from './outcome.js'

/**
 * The one tool-call pipeline. Every call, whoever makes it (the turn loop, a user command's shell
 * pieces), goes through the same phases, in order:
 *
 *   resolve → validate → preHooks → authorize → snapshot → run → postHooks → outcome
 *
 * (authorize runs the tool's own `precheck` between the policy's verdict and a prompt: a call that
 * cannot succeed fails before anyone is asked.)
 *
 * Each phase is a small function below (authorize is one trip to the gate, permissions/gate.ts); a
 * phase that ends the call returns a `CallFailure`, which the outcome phase (outcome.ts) turns into
 * the model's error envelope. `executeCall` is their composition. It never throws.
 */

/** Snapshots around calls that change the workspace (see source/checkpoints/). */
export interface CheckpointHook {
  /** Awaited before the call runs; never rejects. */
  before(kind: 'edit' | 'exec'): Promise<void>
  /** After the call, whatever its outcome; records what it changed in the background. */
  after(): void
}

export interface ExecutorDeps {
  tools: ToolLookup
  checkpoint?: CheckpointHook
  gate: PermissionGate
  /** PreToolUse / PostToolUse hooks (absent: none configured for this session). */
  hooks?: ToolHooks
  /** Allow rules for this executor's calls only: the `allowed-tools` of the user command whose turn it runs. */
  grants?: readonly Rule[]
  commandContext?: boolean // a user command's own `` !`…` `` calls (GateCheck.commandContext)
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

export interface CallOptions {
  /** Withdraws a consent request still waiting (the user denied another call of the same message). */
  skip?: AbortSignal
  /** The arguments as the loop already parsed them (arguments.ts): they are not parsed again. */
  parsed?: { value: unknown }
}

/** Runs one call through the phases. Never throws: every failure is an envelope. */
export async function executeCall(
  call: ToolCall,
  deps: ExecutorDeps,
  signal: AbortSignal,
  opts: CallOptions = {},
): Promise<CallOutcome> {
  const ran: { arguments?: string } = {}
  const outcome = await runPhases(call, deps, signal, opts, ran)
  return ran.arguments === undefined ? outcome : { ...outcome, arguments: ran.arguments }
}

/** The phases in order; `ran.arguments` is set when a PreToolUse hook changed what the call runs with. */
async function runPhases(
  call: ToolCall,
  deps: ExecutorDeps,
  signal: AbortSignal,
  opts: CallOptions,
  ran: { arguments?: string },
): Promise<CallOutcome> {
  // Reset once the call is authorised, so durations show the tool's own time, not the user's.
  let started = deps.now()
  const resolved = resolve(call, deps.tools, opts.parsed)
  if ('failure' in resolved) return failedOutcome({ call, started, now: deps.now() }, resolved.failure)
  const { tool } = resolved
  // The card names the tool that runs, also when CallTool named it.
  const name = resolved.forwarded ? tool.name : call.function.name
  const valid = validate(tool, resolved.raw, resolved.parsed)
  if ('failure' in valid) {
    // Through CallTool the model may never have seen the schema (or it was masked since): it comes along.
    const failure = resolved.forwarded
      ? {
          ...valid.failure,
          hint: `${valid.failure.hint}; ${tool.name} takes ${JSON.stringify(parametersOf(tool))}`,
        }
      : valid.failure
    return failedOutcome({ call, name: tool.name, summary: name, started, now: deps.now() }, failure)
  }
  let summary = summaryOf(tool, valid.args, name)
  const base = () => ({ call, name: tool.name, summary, started, now: deps.now() })

  const pre = await preHooks(deps.hooks, call, tool, valid, signal)
  if (signal.aborted) return cancelled(base())
  if (pre.ran) started = deps.now()
  if ('failure' in pre) {
    const out = failedOutcome(base(), pre.failure)
    return pre.stopTurn ? { ...out, stopTurn: pre.stopTurn } : out
  }
  const { args, input } = pre
  if (pre.rewritten) {
    // The history says what ran: the hook's arguments, not the model's.
    const encoded = encodeArguments(resolved.forwarded ? { name: tool.name, arguments: args } : args)
    if (encoded !== null && encoded !== call.function.arguments) ran.arguments = encoded
  }
  summary = summaryOf(tool, args, name)
  deps.dispatch({ type: 'tool/started', callId: call.id, name: tool.name, summary, at: started })

  /** What the user added to their approval (Tab at the consent prompt): it goes to the model with the result. */
  let note: string | undefined
  const progress = throttledProgress(deps.progressIntervalMs ?? 100, deps.now, (text) =>
    deps.dispatch({ type: 'tool/progress', callId: call.id, preview: tailLines(text, 4) }),
  )
  const ctx = deps.makeContext(signal, progress.push, call.id)
  try {
    const auth = await authorizePhase(
      deps,
      { call, tool, args, summary, ctx, hook: pre.hook },
      signal,
      opts.skip,
    )
    if (auth.decision === 'withdrawn')
      return signal.aborted ? cancelled(base()) : { ...cancelled(base()), skipped: true }
    if (auth.decision === 'deny') {
      const { failure, userDenial } = denialOf(auth, tool.name)
      const out = failedOutcome(base(), failure)
      return userDenial ? { ...out, userDenial } : out
    }
    if (auth.approval) {
      note = approvalNoteOf(auth.approval, summary, call.id, deps.dispatch)
      started = deps.now()
    } else deps.unasked?.({ tool: tool.name, risk: tool.risk, target: auth.target, readOnly: auth.readOnly })
    const change = await snapshot(deps.checkpoint, tool, auth)
    if (change) started = deps.now()
    const result = await run(tool, args, ctx, auth, change ? deps.checkpoint : undefined)
    if (signal.aborted) return cancelled(base())
    const durationMs = deps.now() - started
    const post = await postHooks(deps.hooks, call, tool, input, result, signal)
    return resultOutcome({ call, name: tool.name, summary }, result, {
      durationMs,
      ...(post ?? {}),
      ...(note ? { note } : {}),
    })
  } catch (err) {
    if (signal.aborted) return cancelled(base())
    const { retryable, ...failure } = thrownFailure(err, tool.name, note)
    const out = failedOutcome(base(), failure)
    return retryable === undefined ? out : { ...out, retryable }
  } finally {
    progress.stop()
  }
}

/**
 * validate: the arguments parsed as JSON (only the trivial repairs, arguments.ts; not again when
 * the loop parsed them) and checked against the tool's schema. `input` is what hooks see as `tool_input`.
 */
export function validate(
  tool: AnyTool,
  raw: string,
  parsed?: { value: unknown },
): { args: unknown; input: unknown } | { failure: CallFailure } {
  const json = parsed ? { ok: true as const, value: parsed.value } : parseToolArguments(raw)
  if (!json.ok)
    return {
      failure: { category: 'validation', message: json.error, hint: 'send the arguments as one JSON object' },
    }
  const checked = tool.schema.safeParse(json.value)
  if (!checked.success) {
    return {
      failure: {
        category: 'validation',
        message: `invalid arguments for ${tool.name}: ${issuesOf(checked.error.issues)}`,
        hint: 'fix the listed fields and call again',
      },
    }
  }
  return { args: checked.data, input: json.value }
}

/** A call the PreToolUse hooks let go on (maybe with rewritten arguments), and what they said. */
export interface PreHookGo {
  args: unknown
  input: unknown
  hook?: { allow: boolean; ask: string | null }
  /** A hook rewrote the arguments (`updatedInput`). */
  rewritten?: true
}

/** A call a PreToolUse hook ended (denied, stopped the turn, rewrote into invalid arguments). */
export interface PreHookEnd {
  failure: CallFailure
  stopTurn?: string
}

export type PreHookStep = { ran: boolean } & (PreHookGo | PreHookEnd)

/**
 * preHooks: PreToolUse runs before the permission check. It may stop the turn, deny, ask, allow (never
 * past the policy's hard limits: the gate folds it in) or rewrite the arguments, validated again.
 */
export async function preHooks(
  hooks: ToolHooks | undefined,
  call: ToolCall,
  tool: AnyTool,
  checked: { args: unknown; input: unknown },
  signal: AbortSignal,
): Promise<PreHookStep> {
  if (!hooks?.service.has('PreToolUse')) return { ran: false, ...checked }
  const verdict = await preToolUse(hooks, { id: call.id, tool: tool.name, input: checked.input }, signal)
  return { ran: true, ...readPreHook(verdict, tool, checked) }
}

/** What a PreToolUse verdict means for the call (pure). */
export function readPreHook(
  pre: PreToolVerdict,
  tool: AnyTool,
  checked: { args: unknown; input: unknown },
): PreHookGo | PreHookEnd {
  if (pre.stop) {
    return {
      failure: {
        category: 'permission',
        message: `a PreToolUse hook stopped the turn before ${tool.name} ran: ${pre.stop}`,
        hint: "the user's hook ended this turn; wait for the user",
        status: 'denied',
      },
      stopTurn: `PreToolUse hook stopped the turn: ${pre.stop}`,
    }
  }
  if (pre.deny !== null) {
    return {
      failure: {
        category: 'permission',
        message: `${tool.name} blocked by a PreToolUse hook: ${pre.deny}`,
        hint: "the user's hook refused this call; do not retry it as it is: follow the reason or ask the user",
        status: 'denied',
      },
    }
  }
  const hook = { allow: pre.allow, ask: pre.ask }
  if (!pre.updatedInput) return { ...checked, hook }
  const rewritten = tool.schema.safeParse(pre.updatedInput)
  if (!rewritten.success) {
    return {
      failure: {
        category: 'validation',
        message: `a PreToolUse hook rewrote the arguments of ${tool.name} into invalid ones: ${issuesOf(rewritten.error.issues)}`,
        hint: "the user's hook is at fault, not your call; tell the user",
      },
    }
  }
  return { args: rewritten.data, input: pre.updatedInput, hook, rewritten: true }
}

/**
 * authorize: the call's one trip to the gate (permissions/gate.ts), with what it may need from the
 * call: the target the tool builds, its read-only judgement, the preview (only computed if it asks),
 * and the runtime's side of a prompt (the phase, the Notification hook, the hook-allow card).
 */
export async function authorizePhase(
  deps: Pick<ExecutorDeps, 'gate' | 'hooks' | 'dispatch' | 'grants' | 'commandContext'>,
  c: {
    call: ToolCall
    tool: AnyTool
    args: unknown
    summary: string
    ctx: ToolContext
    hook?: { allow: boolean; ask: string | null } | undefined
  },
  signal: AbortSignal,
  skip?: AbortSignal,
): Promise<Authorization> {
  const { call, tool, args, ctx } = c
  const hooks = deps.hooks
  return authorize(
    deps.gate,
    {
      callId: call.id,
      tool: tool.name,
      risk: tool.risk,
      summary: c.summary,
      target: await tool.permissionTarget(args, ctx),
      readOnly: (target) => tool.isReadOnly(args, target),
      ...(tool.consentForSession ? { sessionGrant: true as const } : {}),
      ...(c.hook ? { hook: c.hook } : {}),
      ...(deps.grants?.length ? { grants: deps.grants } : {}),
      ...(deps.commandContext ? { commandContext: true } : {}),
    },
    {
      signal: skip ? AbortSignal.any([signal, skip]) : signal,
      preview: () => tool.preview(args, ctx),
      // The call's own checks before anyone is asked (validate-before-asking), against the judged target.
      precheck: async (target) => tool.precheck?.(args, { ...ctx, permission: target }),
      onPrompt(open) {
        deps.dispatch({ type: 'phase/changed', phase: open ? 'awaiting-user' : 'tools' })
        if (open) hooks?.notify('permission_prompt', `agent-tui needs your permission to use ${tool.name}`)
      },
      ...(hooks
        ? {
            onHookAllow: (text: string) =>
              showCards(deps.dispatch, hooks.newId(`hook-allow-${call.id}`), [
                { event: 'PreToolUse', level: 'info', text, detail: '' },
              ]),
          }
        : {}),
    },
  )
}

/** snapshot: a checkpoint before a call that changes the workspace; what changes, or null. */
export async function snapshot(
  checkpoint: CheckpointHook | undefined,
  tool: AnyTool,
  auth: Extract<Authorization, { decision: 'allow' }>,
): Promise<'edit' | 'exec' | null> {
  const change = checkpoint ? changeKind(tool.risk, auth.target, auth.readOnly, tool.writesWorkspace) : null
  if (change) await checkpoint?.before(change)
  return change
}

/** run: the tool itself, against the target the gate judged; the checkpoint after, whatever happens. */
export async function run(
  tool: AnyTool,
  args: unknown,
  ctx: ToolContext,
  auth: Extract<Authorization, { decision: 'allow' }>,
  checkpoint: CheckpointHook | undefined,
): Promise<ToolSuccess> {
  try {
    return await tool.execute(args, {
      ...ctx,
      permission: auth.target,
      ...(auth.deniedRead ? { deniedRead: auth.deniedRead } : {}),
    })
  } finally {
    checkpoint?.after()
  }
}

/** postHooks: PostToolUse, whose feedback goes to the model with the result. */
export async function postHooks(
  hooks: ToolHooks | undefined,
  call: ToolCall,
  tool: AnyTool,
  input: unknown,
  result: ToolSuccess,
  signal: AbortSignal,
): Promise<{ feedback: string; stop: string | null } | undefined> {
  if (!hooks?.service.has('PostToolUse')) return undefined
  return postToolUse(hooks, { id: call.id, tool: tool.name, input }, result, signal)
}

function issuesOf(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues.map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`).join('; ')
}

/** The card's one-line label; the tool's name when it cannot say. */
export function summaryOf(tool: AnyTool, args: unknown, fallback: string): string {
  if (args === undefined) return fallback
  try {
    return tool.summarize(args)
  } catch {
    return tool.name
  }
}
