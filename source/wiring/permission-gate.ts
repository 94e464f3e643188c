import type { PermissionRulesView, RuleView } from '../agent/commands.js'
import type { GateCheck, PermissionGate } from '../agent/permission-gate.js'
import type { SourcedRules } from '../config/load.js'
import type { ConsentBroker, PendingCall } from '../permissions/broker.js'
import { evaluate } from '../permissions/policy.js'
import { scanGitConfig } from '../permissions/git-config-scan.js'
import { resolveStartUpPaths, resolveTarget } from '../permissions/real-path.js'
import {
  describeRule,
  matchRule,
  parseRule,
  type Rule,
  ruleCoversTool,
  splitRuleList,
} from '../permissions/rules.js'
import { realpathSync } from 'node:fs'
import { isAbsolute, relative } from 'node:path'
import type { StartUpPath } from '../permissions/start-up-files.js'
import type { PermissionTarget } from '../permissions/target.js'
import { directoryRule, suggestRule } from '../permissions/suggest-rule.js'
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
  /** Real paths of agent-tui's own settings and state dirs: writes there ask. */
  appDirs?: string[]
  /** Files that run code at a later start, at every place they may be (default: found from HOME and the environment). */
  startUp?: readonly StartUpPath[]
  /** False in headless runs: a call that would ask is denied. */
  interactive: boolean
  /** Where "allow always" rules are saved, as shown to the user. */
  savedTo: string
  /**
   * The git that answers what a repository configures before a read-only git call is judged: found
   * outside the workspace (undefined: none there). Absent: `git` from PATH (tests).
   */
  gitProgram?: () => string | undefined
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

/**
 * Joins the pure policy, the configured rules, the session's grants and the consent broker. A user
 * command's `allowed-tools` are not held here: they come with each call of its turn (`GateCheck.grants`),
 * so nothing else that consults this gate meanwhile (a background subagent) gets them.
 */
export function createPermissionGate(opts: GateOptions): RuntimeGate {
  const { store, broker, workspace, home } = opts
  // What ~/.bashrc and the other start-up files lead to (a dotfiles repository in the workspace): looked
  // at on the first call the gate judges, off the start's path.
  let startUp = opts.startUp
  const startUpPaths = () => {
    startUp ??= resolveStartUpPaths(home, process.env)
    return startUp
  }
  // A home under a symlink: the workspace and added dirs are real paths.
  let realHome: string | undefined
  const homeReal = () => {
    realHome ??= realPathOr(home)
    return realHome
  }
  let rules = opts.rules
  const check = (
    {
      tool,
      risk,
      target,
      readOnly,
      hookAllow,
      grants,
    }: PendingCall & Pick<GateCheck, 'hookAllow' | 'grants'>,
    extra: readonly Rule[] = [],
  ) => {
    const verdict = evaluate({
      mode: store.getState().mode,
      tool,
      risk,
      target,
      readOnly,
      rules: {
        allow: [
          ...rules.allow,
          ...broker.sessionRules(),
          ...(grants ?? []),
          ...(hookAllow ? hookAllowRules(tool) : []),
          ...extra,
        ],
        ask: rules.ask,
        deny: rules.deny,
      },
      workspace,
      home,
      additionalDirs: opts.additionalDirs,
      trustedReadDirs: opts.trustedReadDirs,
      startUp: startUpPaths(),
      ...(homeReal() !== home ? { realHome: homeReal() } : {}),
      ...(opts.appDirs ? { appDirs: opts.appDirs } : {}),
      // The Bash tool says when its command will run in the OS sandbox.
      ...(target.kind === 'command' && target.sandbox ? { sandbox: target.sandbox } : {}),
    })
    return verdict.rule === HOOK_RULE
      ? { ...verdict, reason: verdict.reason.replace(HOOK_RULE_SAYS, 'a PreToolUse hook') }
      : verdict
  }
  return {
    mode: () => store.getState().mode,
    resolveTarget: (target) =>
      resolveTarget(target, {
        workspace,
        home,
        ...(opts.gitProgram
          ? { scanGit: (dir: string) => scanGitConfig(dir, { program: opts.gitProgram?.() ?? null }) }
          : {}),
      }),
    check: (call) => check(call),
    allowsNow: (call) => check(call).decision === 'allow',
    suggestRule: (tool, target) => suggestRule(tool, target, workspace, home),
    sessionEditsRule: (tool, target) => sessionEditsRule(tool, target, workspace),
    offerRules(call, verdict) {
      const rule = verdict.suggestedRule ?? suggestRule(call.tool, call.target, workspace, home)
      // Offered only when granting it would let this very call through: a rule that cannot is not a choice.
      let after: ReturnType<typeof check> | undefined
      try {
        after = check(
          call,
          splitRuleList(rule).map((r) => parseRule(r)),
        )
      } catch {
        after = undefined
      }
      if (verdict.protectedWrite || after?.decision !== 'allow')
        return { rule, noRule: verdict.protectedWrite || !after ? verdict.reason : after.reason }
      const count = splitRuleList(rule).length
      if (count > MAX_OFFERED_RULES)
        return {
          rule,
          noRule: `it runs ${count} different commands; allow it once, or add rules to ${opts.savedTo}`,
        }
      const folder = directoryRule(call.tool, call.target, workspace)
      return folder && folder !== rule ? { rule, directoryRule: folder } : { rule }
    },
    deniedRead(tool) {
      const restricting = rules.deny.filter(
        (rule) => rule.specifier !== undefined && rule.specifier !== '*' && ruleCoversTool(rule, tool),
      )
      if (restricting.length === 0) return undefined
      return (path) => {
        const call = { tool, target: { kind: 'path', path, access: 'read' } as const, workspace, home }
        const rule = restricting.find((r) => matchRule(r, call, 'restrict'))
        return rule ? describeRule(rule) : undefined
      }
    },
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

const HOOK_RULE = '(PreToolUse hook)'
const HOOK_RULE_SAYS = `rule ${HOOK_RULE}`

/**
 * A PreToolUse hook's `allow` is an allow rule for that one call, placed with the other allow rules: it
 * decides only what the mode would have decided, so deny and ask rules, protected paths, plan mode and
 * local addresses still hold. A command's redirections into files are covered as the command is.
 */
function hookAllowRules(tool: string): Rule[] {
  const rules: Rule[] = [{ text: HOOK_RULE, tool }]
  if (tool === 'Bash') rules.push({ text: HOOK_RULE, tool: 'Edit' })
  return rules
}

/** More rules than this for one command is not an answer to "always allow this?". */
const MAX_OFFERED_RULES = 4

function view(rule: Rule): RuleView {
  return { text: rule.text, source: rule.source ?? 'unknown' }
}

/** Every edit in the workspace (the Edit family, never a protected path: those ask whatever the rules). */
export const SESSION_EDITS_RULE = 'Edit(**)'

/** "Allow all edits this session" is offered for an edit whose real path lies in the workspace. */
function sessionEditsRule(tool: string, target: PermissionTarget, workspace: string): string | undefined {
  if (target.kind !== 'path' || !ruleCoversTool({ text: 'Edit', tool: 'Edit' }, tool)) return undefined
  const rel = relative(workspace, target.real ?? target.path)
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? SESSION_EDITS_RULE : undefined
}

/** The real path of a directory, or itself when it cannot be resolved. */
function realPathOr(path: string): string {
  try {
    return realpathSync.native(path)
  } catch {
    return path
  }
}
