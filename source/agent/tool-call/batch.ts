import type { ToolCall } from '../../store/messages.js'
import type { PreparedCalls } from './arguments.js'
import { envelope, formatEnvelope } from './envelope.js'
import {
  type CallOutcome,
  cancelled,
  type ExecutorDeps,
  executeCall,
  refusedOutcome,
  resolve,
  summaryOf,
  validate,
} from './pipeline.js'

/**
 * Runs the tool calls of one assistant message in order; consecutive calls that may overlap (read-only
 * ones, subagents) run concurrently.
 * Results come back in call order, one per call (the pairing rule).
 *
 * When the user denies a call at the consent prompt, the calls after it are not run: they get a "not run"
 * envelope, and calls of the same concurrent group still waiting for consent are withdrawn. Whether the
 * turn then stops is the loop's decision (`userDenial` on the outcome).
 */
export async function executeBatch(
  executor: ExecutorDeps,
  prepared: Pick<PreparedCalls, 'calls' | 'refused' | 'parsed'>,
  signal: AbortSignal,
): Promise<CallOutcome[]> {
  const { calls, refused, parsed } = prepared
  const argsOf = (call: ToolCall) => checkedArgs(executor, call, parsed.get(call.id))
  const outcomes: CallOutcome[] = []
  let denied: CallOutcome | null = null
  let i = 0
  while (i < calls.length) {
    const first = calls[i] as ToolCall
    if (signal.aborted) {
      for (const call of calls.slice(i))
        outcomes.push(cancelled({ call, started: executor.now(), now: executor.now() }))
      break
    }
    if (denied) {
      outcomes.push(notRunOutcome(first, denied, executor, argsOf))
      i++
      continue
    }
    const refusal = refused.get(first.id)
    if (refusal !== undefined) {
      outcomes.push(refusedOutcome(first, refusal, executor.now()))
      i++
      continue
    }
    const group = [first]
    if (mayOverlap(executor, first, argsOf)) {
      while (
        i + group.length < calls.length &&
        !refused.has((calls[i + group.length] as ToolCall).id) &&
        mayOverlap(executor, calls[i + group.length] as ToolCall, argsOf)
      ) {
        group.push(calls[i + group.length] as ToolCall)
      }
    }
    // A denial withdraws the group's other consent requests: the user answered for this message.
    const skip = new AbortController()
    const results = await Promise.all(
      group.map((call) =>
        executeCall(call, executor, signal, { skip: skip.signal, ...withParsed(parsed.get(call.id)) }).then(
          (outcome) => {
            if (outcome.userDenial) skip.abort()
            return outcome
          },
        ),
      ),
    )
    denied = results.find((o) => o.userDenial) ?? null
    outcomes.push(
      ...results.map((o, at) =>
        o.skipped && denied ? notRunOutcome(group[at] as ToolCall, denied, executor, argsOf) : o,
      ),
    )
    i += group.length
  }
  return outcomes
}

/** The answer for a call of a message in which the user denied an earlier one. */
function notRunOutcome(
  call: ToolCall,
  denied: CallOutcome,
  executor: ExecutorDeps,
  argsOf: (call: ToolCall) => unknown,
): CallOutcome {
  const now = executor.now()
  const note = denied.userDenial?.note
  const message = `not run: the user denied ${denied.summary} in the same message, so the calls after it were not run`
  const hint = note
    ? 'follow what the user said; call it again only if it still fits'
    : 'wait for the user to say how to go on'
  return {
    ...cancelled({ call, summary: labelOf(executor, call, argsOf), started: now, now }),
    content: formatEnvelope(envelope(call.function.name, 'permission', message, { hint })),
    preview: 'not run: an earlier call was denied',
    errorMessage: message,
    errorCategory: 'permission',
  }
}

/** The card's one-line summary (`Bash touch x`), as if the call had run. */
function labelOf(executor: ExecutorDeps, call: ToolCall, argsOf: (call: ToolCall) => unknown): string {
  const resolved = resolve(call, executor.tools)
  const args = argsOf(call)
  return 'failure' in resolved || args === undefined
    ? call.function.name
    : summaryOf(resolved.tool, args, resolved.tool.name)
}

/** The tool a call runs (the one a CallTool call names), or undefined. */
function toolOf(executor: ExecutorDeps, call: ToolCall, parsed?: { value: unknown }) {
  const resolved = resolve(call, executor.tools, parsed)
  return 'failure' in resolved ? undefined : resolved
}

/** The call's arguments checked against its tool's schema (from the loop's one parse), or undefined. */
function checkedArgs(
  executor: ExecutorDeps,
  call: ToolCall,
  parsed: { value: unknown } | undefined,
): unknown {
  const resolved = toolOf(executor, call, parsed)
  if (!resolved) return undefined
  const valid = validate(resolved.tool, resolved.raw, resolved.parsed)
  return 'failure' in valid ? undefined : valid.args
}

function withParsed(parsed: { value: unknown } | undefined): { parsed?: { value: unknown } } {
  return parsed ? { parsed } : {}
}

/**
 * Read-only calls change nothing, and subagents each work in their own conversation (their own calls
 * still ask for consent one by one): both may run beside their neighbours.
 */
function mayOverlap(executor: ExecutorDeps, call: ToolCall, argsOf: (call: ToolCall) => unknown): boolean {
  const tool = toolOf(executor, call)?.tool
  if (tool?.risk !== 'read' && tool?.risk !== 'spawn') return false
  const args = argsOf(call)
  return args !== undefined && (tool.risk === 'spawn' || tool.isReadOnly(args))
}
