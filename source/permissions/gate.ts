import { realpathSync } from 'node:fs'
import { isAbsolute, relative } from 'node:path'
import type { Store } from '../store/create-store.js'
import type { ConsentDecision, ConsentPreview, ConsentRequest, Mode, Risk } from '../store/domain.js'
import type { ConsentBroker, PendingCall } from './broker.js'
import { analysisOf } from './command-analysis.js'
import { scanGitConfig } from './git-config-scan.js'
import { evaluate } from './policy.js'
import { resolveStartUpPaths, resolveTarget } from './real-path.js'
import { describeRule, matchRule, parseRule, type Rule, ruleCoversTool, splitRuleList } from './rules.js'
import type { StartUpPath } from './start-up-files.js'
import { directoryRule, ruleCaution, suggestRule } from './suggest-rule.js'
import type { PermissionTarget } from './target.js'

/**
 * The permission gate: the one place a tool call is authorised. `authorize` resolves the target's real
 * paths (and, for a command, analyses it once), judges it with the pure policy (a PreToolUse hook's
 * allow and ask folded in), builds what the prompt offers to remember, and asks the user through the
 * broker when it must. `createPermissionGate` joins the policy, the configured rules, the session's
 * grants and the consent broker into the gate's parts.
 */

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
  /**
   * A user command's own `` !`…` `` call, run to build its prompt: in ci a read-only command (as the
   * classifier judges it) runs without an allow rule, as Claude Code runs a command's context in `-p`.
   */
  commandContext?: boolean
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
  /** Why the rule offered is only the exact command (it runs a program that deletes or runs any code). */
  caution?: string
}

/** A consent request with what it is about, so a later grant can settle it when it now covers it. */
export type GateRequest = Omit<ConsentRequest, 'id' | 'createdAt'> & {
  target?: PermissionTarget
  readOnly?: boolean
}

/** A rule as `/permissions` lists it. */
export interface RuleView {
  /** Canonical text, e.g. `Bash(npm test *)`. */
  text: string
  /** Where it came from: a settings file, a flag, or "this session". */
  source: string
}

export interface PermissionRulesView {
  allow: RuleView[]
  ask: RuleView[]
  deny: RuleView[]
  /** The file "allow always" decisions are saved to. */
  savedTo: string
}

/**
 * The gate's parts, which `authorize` puts together: the target's real paths, a pure verdict, the rule
 * "allow always" would save, and a way to ask the user (a promise; headless answers it by policy). A
 * wrapper (a read-only profile, a subagent) replaces a part and keeps the rest.
 */
export interface PermissionGate {
  mode(): Mode
  /**
   * Resolves symlinks in the target's paths (the tool's write later checks nothing moved since) and
   * analyses a command once; everything after judges the returned target.
   */
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

/** One call as the gate is asked about it. */
export interface GateCall {
  callId: string
  tool: string
  risk: Risk
  /** The call's one-line label, for the prompt. */
  summary: string
  /** As the tool built it (lexical paths, the command as written). */
  target: PermissionTarget
  /** The tool's judgement that the call only reads, given the resolved (and analysed) target. */
  readOnly(target: PermissionTarget): boolean
  /** What a PreToolUse hook answered: its allow acts as an allow rule for this call, its ask asks. */
  hook?: { allow: boolean; ask: string | null }
  /** Allow rules of this call's turn alone (a user command's `allowed-tools`). */
  grants?: readonly Rule[]
  /** Allowing this call once allows the tool's suggested rule for the session (SaveMemory). */
  sessionGrant?: true
  /** A user command's own `` !`…` `` call (see GateCheck). */
  commandContext?: boolean
}

export interface AuthorizeOptions {
  /** Withdraws the prompt (an interrupt, or the user denied another call of the same message). */
  signal: AbortSignal
  /** What the prompt shows; computed only when the gate asks. */
  preview(): Promise<ConsentPreview>
  /**
   * The tool's own checks (`Tool.precheck`), run only for a call that would ask, after the policy (a
   * denied path is never probed), on a path a Read would see unasked, before the prompt; a ToolError it
   * throws ends the call unasked.
   */
  precheck?(target: PermissionTarget): Promise<void>
  /** The prompt opens (true) and is answered (false). */
  onPrompt?(open: boolean): void
  /** When a hook's allow decided the call, or the policy's hard limits overrode it: what to show. */
  onHookAllow?(text: string): void
}

/** What the gate answers for one call. */
export type Authorization =
  | {
      decision: 'allow'
      /** The target as judged (real paths, the command's analysis): the tool runs against it. */
      target: PermissionTarget
      readOnly: boolean
      /** The user's approval, when they were asked (its note goes to the model). */
      approval?: ConsentDecision
      /** For a tool that searches: which deny rule keeps it from reading a file it finds. */
      deniedRead?: (path: string) => string | undefined
    }
  | {
      decision: 'deny'
      /** By the policy, or because it asks and nobody can answer. */
      by: 'policy'
      verdict: GateVerdict
      offer: RuleOffer
      mode: Mode
    }
  | { decision: 'deny'; by: 'no-user'; verdict: GateVerdict; offer: RuleOffer; mode: Mode }
  | { decision: 'deny'; by: 'user'; answer: Extract<ConsentDecision, { kind: 'deny' }> }
  /** The prompt was withdrawn before anyone answered (`signal` aborted). */
  | { decision: 'withdrawn' }

/**
 * Authorises one call: the one trip to the gate a tool call makes. Resolves and judges the target,
 * folds in the hook, offers rules, and asks through the broker when the verdict is "ask".
 */
export async function authorize(
  gate: PermissionGate,
  call: GateCall,
  opts: AuthorizeOptions,
): Promise<Authorization> {
  // Symlinks are resolved once, here: the policy judges real paths and the write checks against them.
  const target = await gate.resolveTarget(call.target)
  const readOnly = call.readOnly(target)
  const check: GateCheck = {
    tool: call.tool,
    risk: call.risk,
    target,
    readOnly,
    ...(call.grants?.length ? { grants: call.grants } : {}),
    ...(call.commandContext ? { commandContext: true } : {}),
  }
  let verdict = gate.check(call.hook?.allow ? { ...check, hookAllow: true } : check)
  if (call.hook?.allow && opts.onHookAllow) {
    const note = hookAllowNote(call.tool, verdict, gate.check(check))
    if (note) opts.onHookAllow(note)
  }
  const ask = call.hook?.ask
  if (ask && verdict.decision === 'allow')
    verdict = { ...verdict, decision: 'ask', reason: `a PreToolUse hook asks: ${ask}` }
  else if (ask && verdict.decision === 'ask')
    verdict = { ...verdict, reason: `${verdict.reason}; a PreToolUse hook asks too: ${ask}` }
  if (verdict.decision === 'allow') {
    const deniedRead = call.risk === 'read' ? gate.deniedRead?.(call.tool) : undefined
    return { decision: 'allow', target, readOnly, ...(deniedRead ? { deniedRead } : {}) }
  }
  const offer = gate.offerRules?.(check, verdict) ?? {
    rule: verdict.suggestedRule ?? gate.suggestRule(call.tool, target),
  }
  if (verdict.decision === 'deny')
    return { decision: 'deny', by: 'policy', verdict, offer, mode: gate.mode() }
  if (!gate.canAsk()) return { decision: 'deny', by: 'no-user', verdict, offer, mode: gate.mode() }
  if (opts.precheck && readableUnasked(gate, target)) await opts.precheck(target)
  opts.onPrompt?.(true)
  const preview = await opts.preview()
  // A protected write is never opened by a rule: saving one ("for the session", "always") would do
  // nothing, so the prompt offers only "allow once" for it.
  const editsRule = verdict.protectedWrite ? undefined : gate.sessionEditsRule?.(call.tool, target)
  let answer: ConsentDecision
  try {
    answer = await gate.request(
      {
        callId: call.callId,
        tool: call.tool,
        risk: call.risk,
        summary: call.summary,
        reason: verdict.reason,
        preview,
        suggestedRule: offer.rule,
        ...(verdict.protectedWrite ? { protectedWrite: true } : {}),
        ...(editsRule ? { sessionEditsRule: editsRule } : {}),
        ...(offer.directoryRule ? { directoryRule: offer.directoryRule } : {}),
        ...(offer.noRule ? { noRule: offer.noRule } : {}),
        ...(call.sessionGrant && !verdict.protectedWrite && !offer.noRule
          ? { sessionGrant: true as const }
          : {}),
        ...(offer.caution ? { ruleCaution: offer.caution } : {}),
        target,
        readOnly,
      },
      opts.signal,
    )
  } catch (err) {
    if (opts.signal.aborted) return { decision: 'withdrawn' }
    throw err
  }
  opts.onPrompt?.(false)
  if (answer.kind === 'deny') return { decision: 'deny', by: 'user', answer }
  const deniedRead = call.risk === 'read' ? gate.deniedRead?.(call.tool) : undefined
  return { decision: 'allow', target, readOnly, approval: answer, ...(deniedRead ? { deniedRead } : {}) }
}

/**
 * The tool's precheck looks at a path (exists? read? changed?) only where a Read of it would go unasked:
 * refusing unasked must tell the model nothing it could not learn unasked (a file outside the workspace asks).
 */
function readableUnasked(gate: PermissionGate, target: PermissionTarget): boolean {
  if (target.kind !== 'path') return true
  const read = { ...target, access: 'read' as const }
  return gate.check({ tool: 'Read', risk: 'read', target: read, readOnly: true }).decision === 'allow'
}

/**
 * A hook's allow acts as an allow rule for this one call: when it is what let the call run, or when the
 * policy's hard limits overrode it, the transcript says so.
 */
function hookAllowNote(tool: string, withHook: GateVerdict, without: GateVerdict): string | undefined {
  if (withHook.decision === 'allow' && without.decision === 'allow') return undefined
  return withHook.decision === 'allow'
    ? `PreToolUse hook allowed ${tool} without asking (otherwise: ${without.reason})`
    : `PreToolUse hook allowed ${tool}, but its allow does not override this: ${withHook.reason}`
}

/** The configured rules, from settings files and flags (config/load.ts collects them). */
export interface ConfiguredRules {
  allow: Rule[]
  ask: Rule[]
  deny: Rule[]
}

export interface GateOptions {
  store: Store
  rules: ConfiguredRules
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
  setRules(rules: ConfiguredRules): void
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
      commandContext,
    }: PendingCall & Pick<GateCheck, 'hookAllow' | 'grants' | 'commandContext'>,
    extra: readonly Rule[] = [],
  ) => {
    const verdict = evaluate({
      mode: store.getState().mode,
      tool,
      risk,
      target,
      readOnly,
      ...(commandContext ? { commandContext } : {}),
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
    // A command is analysed once, here; the real paths, the classifier, the policy and the offered
    // rules all read that analysis.
    resolveTarget: (target) =>
      resolveTarget(
        target.kind === 'command' ? { ...target, analysis: analysisOf(target, workspace, home) } : target,
        {
          workspace,
          home,
          ...(opts.gitProgram
            ? { scanGit: (dir: string) => scanGitConfig(dir, { program: opts.gitProgram?.() ?? null }) }
            : {}),
        },
      ),
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
          noRule: `it ${call.target.kind === 'paths' ? `changes ${count} files in different folders` : `runs ${count} different commands`}; allow it once, or add rules to ${opts.savedTo}`,
        }
      const caution = verdict.suggestedRule === undefined ? ruleCaution(call.target) : { notes: [] }
      if (caution.noRule) return { rule, noRule: caution.noRule }
      if (caution.notes.length > 0)
        return { rule, caution: `${caution.notes.join('; ')}: "always" allows only this exact command` }
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

/** "Allow all edits this session" is offered for an edit whose real paths all lie in the workspace. */
function sessionEditsRule(tool: string, target: PermissionTarget, workspace: string): string | undefined {
  if (!ruleCoversTool({ text: 'Edit', tool: 'Edit' }, tool)) return undefined
  const files = target.kind === 'path' ? [target] : target.kind === 'paths' ? target.paths : []
  const inside = (p: { path: string; real?: string }) => {
    const rel = relative(workspace, p.real ?? p.path)
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)
  }
  return files.length > 0 && files.every(inside) ? SESSION_EDITS_RULE : undefined
}

/** The real path of a directory, or itself when it cannot be resolved. */
function realPathOr(path: string): string {
  try {
    return realpathSync.native(path)
  } catch {
    return path
  }
}
