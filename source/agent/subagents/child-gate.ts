import type { GateCheck, GateVerdict } from '../../permissions/gate.js'
import type { RuntimeOptions } from '../runtime/runtime.js'

type Gate = RuntimeOptions['gate']

/**
 * Why a read-only agent may not make this call, or null. Held in the executor, so an explore or plan
 * agent cannot change anything whatever the mode or the rules say.
 */
export function readOnlyRefusal(input: GateCheck, name: string): string | null {
  if (input.risk === 'edit') return `the ${name} agent is read-only: it makes no edits`
  if (input.risk === 'config') return `the ${name} agent is read-only: it changes no settings`
  if (input.risk === 'exec' && !input.readOnly)
    return `the ${name} agent is read-only: it runs only read-only commands`
  return null
}

/** A gate that refuses what a read-only profile may not do, then asks `gate`. */
export function profileGate<G extends Pick<Gate, 'check'>>(
  gate: G,
  profile: () => { readOnly: boolean; name: string },
): G {
  return {
    ...gate,
    check(input: GateCheck): GateVerdict {
      const current = profile()
      const refusal = current.readOnly ? readOnlyRefusal(input, current.name) : null
      return refusal ? { decision: 'deny', reason: refusal } : gate.check(input)
    },
  }
}

/**
 * A subagent's gate: the main session's policy, rules, grants and mode (so the parent's mode bounds the
 * child's, live), the read-only limits of its profile, and consent requests labelled with who asks. It
 * never cancels the main session's pending prompts.
 */
export function childGate(parent: Gate, opts: { readOnly: boolean; label: string; name: string }): Gate {
  const restricted = profileGate(parent, () => ({ readOnly: opts.readOnly, name: opts.name }))
  return {
    mode: () => parent.mode(),
    resolveTarget: (target) => parent.resolveTarget(target),
    check: (input) => restricted.check(input),
    suggestRule: (tool, target) => parent.suggestRule(tool, target),
    canAsk: () => parent.canAsk(),
    request: (req, signal) => parent.request({ ...req, agent: opts.label }, signal),
    resolve: (id, decision) => parent.resolve(id, decision),
    cancelAll: () => undefined,
    describeRules: () => parent.describeRules(),
    deniedRead: (tool) => parent.deniedRead?.(tool),
  }
}
