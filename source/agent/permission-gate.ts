import type { Rule } from '../permissions/rule.js'
import type { PermissionTarget } from '../permissions/target.js'
import type { ConsentDecision, ConsentRequest, Mode, Risk } from '../store/domain.js'

export interface GateCheck {
  tool: string
  risk: Risk
  /** As `resolveTarget` returned it: paths judged after resolving symlinks. */
  target: PermissionTarget
  readOnly: boolean
  /**
   * A PreToolUse hook allowed this call. It counts as an allow rule for this one call, so it skips what
   * the mode would ask but never beats a deny or ask rule, a protected path, plan mode or a local address.
   */
  hookAllow?: boolean
  /**
   * Allow rules of this call's turn alone: a user command's `allowed-tools`. Carried by the call, never
   * held by the gate, so a subagent or a later turn (which never carry them) cannot use them.
   */
  grants?: readonly Rule[]
}

export interface GateVerdict {
  decision: 'allow' | 'ask' | 'deny'
  reason: string
  /** The rule "allow always" should save when the default suggestion would not cover this call. */
  suggestedRule?: string
  /** Asks because of a protected write, which no allow rule opens. */
  protectedWrite?: boolean
}

/** The rules the consent prompt offers for a call that asks. */
export interface RuleOffer {
  /** The narrowest rule (or comma-separated rules) that covers the call; "allow for the session/always" grant it. */
  rule: string
  /** A broader rule for an edit: its folder (`Edit(source/**)`). */
  directoryRule?: string
  /** Why no rule can allow the call (a protected write, a path only known when it runs): only "allow once". */
  noRule?: string
}

/** A consent request with what it is about, so a later grant can settle it when it now covers it. */
export type GateRequest = Omit<ConsentRequest, 'id' | 'createdAt'> & {
  target?: PermissionTarget
  readOnly?: boolean
}

/**
 * What the executor needs from the permission system: the target's real paths (resolved once per
 * call), a pure verdict, the rule "allow always" would save, and a way to ask the user (a promise;
 * headless answers it by policy).
 */
export interface PermissionGate {
  mode(): Mode
  /** Resolves symlinks in the target's paths; the tool's write later checks nothing moved since. */
  resolveTarget(target: PermissionTarget): Promise<PermissionTarget>
  check(input: GateCheck): GateVerdict
  suggestRule(tool: string, target: PermissionTarget): string
  /**
   * The session rule "allow all edits this session" would add for this call (an edit inside the workspace),
   * or undefined when that choice makes no sense for it.
   */
  sessionEditsRule?(tool: string, target: PermissionTarget): string | undefined
  /** What the prompt offers to remember for a call that asks; without it, `suggestRule` alone. */
  offerRules?(input: GateCheck, verdict: GateVerdict): RuleOffer
  /**
   * For a tool that searches directories: which deny rule, if any, keeps it from reading a file found
   * there (rules are checked for the directory only). Undefined when no deny rule restricts it by path.
   */
  deniedRead?(tool: string): ((path: string) => string | undefined) | undefined
  /** Whether anyone can answer a prompt (false in headless/ci: "ask" becomes a denial). */
  canAsk(): boolean
  request(req: GateRequest, signal: AbortSignal): Promise<ConsentDecision>
}
