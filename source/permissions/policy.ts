import { evaluateCall } from './policy-call.js'
import { evaluateCommand } from './policy-command.js'
import type { PolicyInput, PolicyResult } from './policy-types.js'

export type { Decision, PolicyInput, PolicyResult, RuleSet } from './policy-types.js'

/**
 * The permission policy (docs/permissions.md#rules) as one pure function. Precedence, highest first:
 *   deny rules (even in dangerous mode) → ci cannot ask the user → trusted reads (session outputs) →
 *   plan mode's hard denials → protected writes (.git/ always asks; outside the workspace, .agent-tui/
 *   and secrets ask in every mode but dangerous) → the read boundary (outside the workspace and its
 *   added directories, and secrets, ask but in dangerous mode) → ask rules → allow rules → the mode table.
 * Paths are judged as named and as they really are: the gate resolves symlinks into the target's `real`
 * fields before calling this. In ci mode nobody can answer, so every "ask" becomes "deny". Compound shell
 * commands are split and every program (seen through wrappers) and every file it names must be allowed.
 */

/** Evaluate one tool call. Never throws. */
export function evaluate(input: PolicyInput): PolicyResult {
  const result = input.target.kind === 'command' ? evaluateCommand(input, input.target) : evaluateCall(input)
  if (input.mode === 'ci' && result.decision === 'ask') {
    return {
      ...result,
      decision: 'deny',
      reason: `${result.reason}; nobody can answer in ci mode, so it is denied`,
    }
  }
  return result
}
