import { changeKind } from '../checkpoints/change-kind.js'
import type { ImagePart, ToolCall } from '../provider/messages.js'
import type { Dispatch } from '../store/create-store.js'
import type { ErrorCategory, ToolDisplay } from '../store/domain.js'
import type { ToolStatus } from '../store/state.js'
import { type AnyTool, type ToolContext, ToolError } from '../tools/types.js'
import { cancelledEnvelope, envelope, formatEnvelope } from './envelope.js'
import { parseToolArguments } from './parse-arguments.js'
import type { PermissionGate } from './permission-gate.js'

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
}

/** Snapshots around calls that change the workspace (see source/checkpoints/). */
export interface CheckpointHook {
  /** Awaited before the call runs; never rejects. */
  before(kind: 'edit' | 'exec'): Promise<void>
  /** After the call, whatever its outcome; records what it changed in the background. */
  after(): void
}

export interface ExecutorDeps {
  tools: ReadonlyMap<string, AnyTool>
  checkpoint?: CheckpointHook
  gate: PermissionGate
  dispatch: Dispatch
  makeContext(signal: AbortSignal, onProgress: (text: string) => void, callId: string): ToolContext
  now(): number
  /** Minimum gap between live output previews of one call (ms). */
  progressIntervalMs?: number
}

/** Looks a call up, validates and authorises it, runs it. Never throws: every failure is an envelope. */
export async function executeCall(
  call: ToolCall,
  deps: ExecutorDeps,
  signal: AbortSignal,
): Promise<CallOutcome> {
  // Reset once the call is authorised, so durations show the tool's own time, not the user's.
  let started = deps.now()
  const name = call.function.name
  const tool = deps.tools.get(name)
  const fail = (
    category: ErrorCategory,
    message: string,
    opts: { hint?: string; status?: CallOutcome['status'] } = {},
  ) =>
    failure(
      call,
      tool?.name ?? name,
      summaryOf(tool, undefined, name),
      started,
      deps.now(),
      category,
      message,
      opts,
    )

  if (!tool) {
    const available = [...deps.tools.keys()].join(', ')
    return fail('not_found', `unknown tool "${name}"`, { hint: `available tools: ${available}` })
  }
  const parsed = parseToolArguments(call.function.arguments)
  if (!parsed.ok) return fail('validation', parsed.error, { hint: 'send the arguments as one JSON object' })
  const validated = tool.schema.safeParse(parsed.value)
  if (!validated.success) {
    const issues = validated.error.issues
      .map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`)
      .join('; ')
    return fail('validation', `invalid arguments for ${tool.name}: ${issues}`, {
      hint: 'fix the listed fields and call again',
    })
  }
  const args = validated.data
  const summary = summaryOf(tool, args, name)
  const failWith = (
    category: ErrorCategory,
    message: string,
    opts: { hint?: string; status?: CallOutcome['status'] } = {},
  ) => failure(call, tool.name, summary, started, deps.now(), category, message, opts)
  deps.dispatch({ type: 'tool/started', callId: call.id, name: tool.name, summary, at: started })

  let lastProgress = 0
  const interval = deps.progressIntervalMs ?? 100
  const ctx = deps.makeContext(
    signal,
    (text) => {
      const now = deps.now()
      if (now - lastProgress < interval) return
      lastProgress = now
      deps.dispatch({ type: 'tool/progress', callId: call.id, preview: tailLines(text, 4) })
    },
    call.id,
  )

  try {
    // Symlinks are resolved once, here: the policy judges real paths and the write checks against them.
    const target = await deps.gate.resolveTarget(await tool.permissionTarget(args, ctx))
    const readOnly = tool.isReadOnly(args)
    const verdict = deps.gate.check({ tool: tool.name, risk: tool.risk, target, readOnly })
    const suggestedRule = verdict.suggestedRule ?? deps.gate.suggestRule(tool.name, target)
    if (verdict.decision === 'deny') {
      return failWith('permission', `${tool.name} denied: ${verdict.reason}`, {
        hint: 'do not retry this call; choose another approach or ask the user',
        status: 'denied',
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
              : `mode ${deps.gate.mode()} denies it; the user can allow it with --allowed-tools "${suggestedRule}" or another --mode`,
            status: 'denied',
          },
        )
      }
      deps.dispatch({ type: 'phase/changed', phase: 'awaiting-user' })
      const preview = await tool.preview(args, ctx)
      const decision = await deps.gate.request(
        {
          callId: call.id,
          tool: tool.name,
          risk: tool.risk,
          summary,
          reason: verdict.reason,
          preview,
          suggestedRule,
          target,
          readOnly,
        },
        signal,
      )
      deps.dispatch({ type: 'phase/changed', phase: 'tools' })
      if (decision.kind === 'deny') {
        const note = decision.note ? `; the user says: ${decision.note}` : ''
        return failWith('permission', `the user denied ${tool.name}${note}`, {
          hint: 'do not retry the same call; adjust the approach or ask the user',
          status: 'denied',
        })
      }
      started = deps.now()
    }
    const change = deps.checkpoint ? changeKind(tool.risk, target, readOnly) : null
    if (change) {
      await deps.checkpoint?.before(change)
      started = deps.now()
    }
    let result: Awaited<ReturnType<typeof tool.execute>>
    try {
      result = await tool.execute(args, { ...ctx, permission: target })
    } finally {
      if (change) deps.checkpoint?.after()
    }
    if (signal.aborted) return cancelled(call, tool.name, summary, started, deps.now())
    return {
      callId: call.id,
      name: tool.name,
      summary,
      status: result.failed ? 'error' : 'done',
      content: result.forModel,
      preview: previewOf(result.forModel),
      display: result.display ?? null,
      images: result.images ?? [],
      durationMs: deps.now() - started,
      ok: true,
      retryable: false,
    }
  } catch (err) {
    if (signal.aborted) return cancelled(call, tool.name, summary, started, deps.now())
    if (err instanceof ToolError) {
      const opts: { hint?: string } = {}
      if (err.hint) opts.hint = err.hint
      const out = failure(call, tool.name, summary, started, deps.now(), err.category, err.message, opts)
      return { ...out, retryable: err.retryable }
    }
    const message = err instanceof Error ? err.message : String(err)
    return failWith('execution', `${tool.name} failed unexpectedly: ${message}`)
  }
}

/** Result for a call the loop refuses before running it (e.g. arguments that are not JSON). */
export function refusedOutcome(call: ToolCall, message: string, hint: string, now: number): CallOutcome {
  return failure(call, call.function.name, call.function.name, now, now, 'validation', message, { hint })
}

/** Result for a call that never finished because the user interrupted (keeps the pairing rule). */
export function cancelled(
  call: ToolCall,
  name: string,
  summary: string,
  started: number,
  now: number,
): CallOutcome {
  return {
    callId: call.id,
    name,
    summary,
    status: 'cancelled',
    content: cancelledEnvelope(name),
    preview: 'cancelled by user',
    display: null,
    images: [],
    durationMs: now - started,
    ok: false,
    retryable: false,
    errorMessage: 'cancelled by user',
    errorCategory: 'aborted',
  }
}

function failure(
  call: ToolCall,
  name: string,
  summary: string,
  started: number,
  now: number,
  category: ErrorCategory,
  message: string,
  opts: { hint?: string; status?: CallOutcome['status'] },
): CallOutcome {
  const env = envelope(name, category, message, opts.hint ? { hint: opts.hint } : {})
  return {
    callId: call.id,
    name,
    summary,
    status: opts.status ?? 'error',
    content: formatEnvelope(env),
    preview: message,
    display: null,
    images: [],
    durationMs: now - started,
    ok: false,
    retryable: env.retryable,
    errorMessage: message,
    errorCategory: category,
  }
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
