import type { PermissionRulesView, RuleView } from '../agent/commands.js'
import type { PermissionGate } from '../agent/permission-gate.js'
import type { SourcedRules } from '../config/load.js'
import type { ConsentBroker, PendingCall } from '../permissions/broker.js'
import { evaluate } from '../permissions/policy.js'
import { resolveTarget } from '../permissions/real-path.js'
import { type Rule, suggestRule } from '../permissions/rules.js'
import type { Store } from '../store/create-store.js'
import type { ConsentDecision } from '../store/domain.js'

export interface GateOptions {
  store: Store
  rules: SourcedRules
  broker: ConsentBroker
  /** Real path of the workspace. */
  workspace: string
  home: string
  /** Real paths of the directories added with --add-dir / additionalDirectories. */
  additionalDirs: string[]
  /** Real paths of directories the session may always read (its outputs). */
  trustedReadDirs: string[]
  /** False in headless runs: a call that would ask is denied. */
  interactive: boolean
  /** Where "allow always" rules are saved, as shown to the user. */
  savedTo: string
}

export type RuntimeGate = PermissionGate & {
  /** Whether the policy, with the session's grants so far, now allows a pending call. */
  allowsNow(call: PendingCall): boolean
  resolve(id: string, decision: ConsentDecision): void
  cancelAll(note: string): void
  describeRules(): PermissionRulesView
  /** Replaces the configured rules (the folder was trusted or distrusted during the session). */
  setRules(rules: SourcedRules): void
}

/** Joins the pure policy, the configured rules, the session's grants and the consent broker. */
export function createPermissionGate(opts: GateOptions): RuntimeGate {
  const { store, broker, workspace, home } = opts
  let rules = opts.rules
  const check = ({ tool, risk, target, readOnly }: PendingCall) =>
    evaluate({
      mode: store.getState().mode,
      tool,
      risk,
      target,
      readOnly,
      rules: {
        allow: [...rules.allow, ...broker.sessionRules()],
        ask: rules.ask,
        deny: rules.deny,
      },
      workspace,
      home,
      additionalDirs: opts.additionalDirs,
      trustedReadDirs: opts.trustedReadDirs,
    })
  return {
    mode: () => store.getState().mode,
    resolveTarget: (target) => resolveTarget(target, { workspace, home }),
    check,
    allowsNow: (call) => check(call).decision === 'allow',
    suggestRule: (tool, target) => suggestRule(tool, target, workspace, home),
    canAsk: () => opts.interactive,
    request: (req, signal) => broker.request(req, signal),
    resolve: (id, decision) => {
      broker.resolve(id, decision)
    },
    cancelAll: (note) => broker.denyAll(note),
    describeRules: () => ({
      allow: [...rules.allow, ...broker.sessionRules()].map(view),
      ask: rules.ask.map(view),
      deny: rules.deny.map(view),
      savedTo: opts.savedTo,
    }),
    setRules: (next) => {
      rules = next
    },
  }
}

function view(rule: Rule): RuleView {
  return { text: rule.text, source: rule.source ?? 'unknown' }
}
