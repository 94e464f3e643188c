import type { ConsentDecision, ConsentRequest, Mode, Risk } from '../store/domain.js'
import type { PermissionTarget } from '../permissions/target.js'

export interface GateCheck {
  tool: string
  risk: Risk
  target: PermissionTarget
  readOnly: boolean
}

export interface GateVerdict {
  decision: 'allow' | 'ask' | 'deny'
  reason: string
}

/**
 * What the executor needs from the permission system: a pure verdict, the rule "allow always" would
 * save, and a way to ask the user (a promise; headless answers it by policy).
 */
export interface PermissionGate {
  mode(): Mode
  check(input: GateCheck): GateVerdict
  suggestRule(tool: string, target: PermissionTarget): string
  /** Whether anyone can answer a prompt (false in headless/ci: "ask" becomes a denial). */
  canAsk(): boolean
  request(req: Omit<ConsentRequest, 'id' | 'createdAt'>, signal: AbortSignal): Promise<ConsentDecision>
}
