import { evaluateCall, shownPath } from './policy-call.js'
import { evaluateCommand } from './policy-command.js'
import type { PolicyInput, PolicyResult } from './policy-types.js'
import type { PathTarget } from './target.js'

export type { Decision, PolicyInput, PolicyResult, RuleSet } from './policy-types.js'

/**
 * The permission policy (docs/permissions.md#rules) as one pure function. Precedence, highest first:
 *   deny rules (even in dangerous mode) → ci cannot ask the user → trusted reads (session outputs) →
 *   plan mode's hard denials → protected writes (.git/ always asks; outside the workspace, .agent-tui/
 *   and secrets ask in every mode but dangerous) → the read boundary (outside the workspace and its
 *   added directories, and secrets, ask but in dangerous mode) → ask rules → allow rules → the mode table.
 * Paths are judged as named and as they really are: the gate resolves symlinks into the target's `real`
 * fields before calling this. In ci mode nobody can answer, so every "ask" becomes "deny". Compound shell
 * commands are split and every program (seen through wrappers) and every file it names must be allowed;
 * so must every file of a call that changes several.
 */

/** Evaluate one tool call. Never throws. */
export function evaluate(input: PolicyInput): PolicyResult {
  const result =
    input.target.kind === 'command'
      ? evaluateCommand(input, input.target)
      : input.target.kind === 'paths'
        ? evaluatePaths(input, input.target.paths)
        : evaluateCall(input)
  if (input.mode === 'ci' && result.decision === 'ask') {
    return {
      ...result,
      decision: 'deny',
      reason: `${result.reason}; nobody can answer in ci mode, so it is denied`,
    }
  }
  return result
}

const RANK: Record<PolicyResult['decision'], number> = { allow: 0, ask: 1, deny: 2 }

/**
 * A call that changes several files (apply_patch) is judged file by file, as if each were its own call:
 * a deny for any file denies it, an ask for any asks (a protected one: only once), and it is allowed only
 * when every file is — so an allow rule must cover them all. The reason names the files when they differ.
 */
function evaluatePaths(input: PolicyInput, paths: readonly PathTarget[]): PolicyResult {
  if (paths.length === 0) return evaluateCall({ ...input, target: { kind: 'none' } })
  const each = paths.map((target) => ({ target, result: evaluateCall({ ...input, target }) }))
  const worst = Math.max(...each.map((e) => RANK[e.result.decision]))
  const deciding = each.filter((e) => RANK[e.result.decision] === worst)
  const first = deciding[0]!.result
  const reasons = [...new Set(deciding.map((e) => e.result.reason))]
  const reason =
    reasons.length === 1 && deciding.length === each.length
      ? first.reason
      : deciding.map((e) => `${shownPath(e.target.path, input)}: ${e.result.reason}`).join('; ')
  return {
    decision: first.decision,
    reason,
    ...(first.rule !== undefined ? { rule: first.rule } : {}),
    ...(deciding.some((e) => e.result.protectedWrite) ? { protectedWrite: true } : {}),
  }
}
