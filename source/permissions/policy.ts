import { basename, isAbsolute, relative, sep } from 'node:path'
import type { Mode, Risk } from '../store/domain.js'
import {
  bareHost,
  classifyAddress,
  classifyAddresses,
  describeAddressClass,
  isLocalHostName,
} from '../util/address-class.js'
import { isReadOnlyPart } from './classifier.js'
import {
  absoluteTarget,
  describeRule,
  matchCommandPart,
  matchCommandPattern,
  matchRule,
  type Rule,
  ruleCoversTool,
} from './rules.js'
import { type ShellPart, splitShell } from './shell-split.js'
import type { PermissionTarget } from './target.js'

/**
 * The permission policy of SPEC §7 as one pure function. Precedence, highest first:
 *   deny rules (even in dangerous mode) → ci cannot ask the user → trusted reads (session outputs) →
 *   plan mode's hard denials → protected paths (.git/ always asks; outside the workspace, .agent-tui/
 *   and secrets ask in every mode but dangerous) → ask rules → allow rules → the mode table.
 * In ci mode nobody can answer, so every "ask" becomes "deny". Compound shell commands are split and
 * every simple command (and every file it redirects into) must be allowed for the whole to be.
 */

export type Decision = 'allow' | 'ask' | 'deny'

export interface RuleSet {
  allow: readonly Rule[]
  ask: readonly Rule[]
  deny: readonly Rule[]
}

export interface PolicyInput {
  mode: Mode
  tool: string
  risk: Risk
  target: PermissionTarget
  /** The tool's own judgement that this call only reads (for commands the policy also classifies). */
  readOnly: boolean
  rules: RuleSet
  workspace: string
  home: string
  /** Directories whose files may always be read (the session's outputs/spill dir). */
  trustedReadDirs?: readonly string[]
}

export interface PolicyResult {
  decision: Decision
  /** Human text for the consent prompt or the model's permission error. */
  reason: string
  /** Text of the rule that decided, when one did. */
  rule?: string
}

/** Tools that only make sense with a person at the keyboard. */
const ASKS_USER = new Set(['AskUserQuestion', 'ExitPlanMode'])

/** Evaluate one tool call. Never throws. */
export function evaluate(input: PolicyInput): PolicyResult {
  const result =
    input.target.kind === 'command' ? evaluateCommand(input, input.target.command) : evaluateCall(input)
  if (input.mode === 'ci' && result.decision === 'ask') {
    return {
      ...result,
      decision: 'deny',
      reason: `${result.reason}; nobody can answer in ci mode, so it is denied`,
    }
  }
  return result
}

function evaluateCall(input: PolicyInput): PolicyResult {
  const { mode, tool, risk, target } = input
  const deny = firstMatch(input.rules.deny, input)
  if (deny) return { decision: 'deny', reason: `${describeRule(deny)} denies`, rule: deny.text }
  if (mode === 'ci' && ASKS_USER.has(tool)) {
    return { decision: 'deny', reason: 'no user available in ci mode; decide yourself and say so' }
  }
  const local = localAddress(target)
  if (local) return evaluateLocalAddress(input, local)
  const writes = target.kind === 'path' && (target.access === 'write' || risk === 'edit')
  if (target.kind === 'path' && !writes && isTrustedRead(target.path, input)) {
    return { decision: 'allow', reason: 'reading session outputs needs no consent' }
  }
  const planDenial = mode === 'plan' ? planDenies(risk, input.readOnly) : undefined
  if (planDenial) return { decision: 'deny', reason: planDenial }
  if (writes) {
    const guarded = protectedWrite(target.path, input)
    if (guarded && (guarded.always || mode !== 'dangerous'))
      return { decision: 'ask', reason: guarded.reason }
  }
  const ask = firstMatch(input.rules.ask, input)
  if (ask) return { decision: 'ask', reason: `${describeRule(ask)} asks`, rule: ask.text }
  const allow = firstMatch(input.rules.allow, input)
  if (allow) return { decision: 'allow', reason: `${describeRule(allow)} allows`, rule: allow.text }
  return modeDecision(input)
}

function firstMatch(rules: readonly Rule[], input: PolicyInput): Rule | undefined {
  return rules.find((rule) => matchRule(rule, input))
}

function planDenies(risk: Risk, readOnly: boolean): string | undefined {
  if (risk === 'edit') return 'plan mode does not allow edits'
  if (risk === 'exec' && !readOnly) return 'plan mode only runs read-only commands'
  if (risk === 'config') return 'plan mode does not change settings'
  return undefined
}

/** The mode table of SPEC §7 for calls no rule or protection decided. */
function modeDecision(input: PolicyInput): PolicyResult {
  const { mode, risk, tool, readOnly } = input
  const allow = (reason: string): PolicyResult => ({ decision: 'allow', reason })
  const ask = (reason: string): PolicyResult => ({ decision: 'ask', reason })
  const deny = (reason: string): PolicyResult => ({ decision: 'deny', reason })
  if (risk === 'read') return allow('reading needs no consent')
  if (risk === 'spawn')
    return allow(mode === 'plan' ? 'plan mode allows read-only subagents' : 'subagents need no consent')
  switch (mode) {
    case 'dangerous':
      return allow('dangerous mode allows everything')
    case 'safe':
    case 'auto':
      if (risk === 'edit')
        return mode === 'auto'
          ? allow('auto mode accepts edits inside the workspace')
          : ask('safe mode asks before edits')
      if (risk === 'exec')
        return readOnly ? allow('read-only command') : ask(`${mode} mode asks before running commands`)
      if (risk === 'network') {
        return mode === 'safe' && tool === 'WebSearch'
          ? allow('safe mode allows web searches')
          : ask(`${mode} mode asks before network access`)
      }
      return ask(`${mode} mode asks before changing settings`)
    case 'plan':
      if (risk === 'network') return allow('plan mode allows network reads')
      if (risk === 'exec') return allow('read-only command')
      return deny('plan mode does not allow this')
    case 'ci':
      if (risk === 'edit') return deny('ci mode denies edits without an allow rule')
      if (risk === 'exec') return deny('ci mode denies commands without an allow rule')
      if (risk === 'network') return deny('ci mode denies network access without an allow rule')
      return deny('ci mode does not change settings')
  }
}

function evaluateCommand(input: PolicyInput, command: string): PolicyResult {
  const split = splitShell(command)
  if (!split.ok) {
    const deny = input.rules.deny.find(
      (rule) =>
        ruleCoversTool(rule, input.tool) &&
        (rule.specifier === undefined || matchCommandPattern(rule.specifier, command)),
    )
    if (deny) return { decision: 'deny', reason: `${describeRule(deny)} denies`, rule: deny.text }
    const why = `cannot parse the command (${split.reason})`
    if (input.mode === 'dangerous') return { decision: 'allow', reason: 'dangerous mode allows everything' }
    if (input.mode === 'ci' || input.mode === 'plan') {
      return { decision: 'deny', reason: `${why}; ${input.mode} mode denies what it cannot check` }
    }
    return { decision: 'ask', reason: `${why}, so it needs consent` }
  }
  if (split.parts.length === 0) return evaluateCall({ ...input, target: { kind: 'none' }, readOnly: true })
  const results = split.parts.map((part) => evaluatePart(input, part))
  const worst = results.find((r) => r.decision === 'deny') ?? results.find((r) => r.decision === 'ask')
  if (worst) return worst
  if (results.length === 1) return results[0]!
  const rule = results.find((r) => r.rule !== undefined)?.rule
  const reason = `all ${results.length} commands are allowed`
  return rule === undefined ? { decision: 'allow', reason } : { decision: 'allow', reason, rule }
}

/** One simple command: its own rules and read-only status, plus every file it redirects into. */
function evaluatePart(input: PolicyInput, part: ShellPart): PolicyResult {
  const shown = `\`${part.text || part.raw}\``
  const deny = input.rules.deny.find(
    (rule) => ruleCoversTool(rule, input.tool) && partMatches(rule, part, true),
  )
  if (deny) return { decision: 'deny', reason: `${describeRule(deny)} denies ${shown}`, rule: deny.text }
  const readOnly = isReadOnlyPart(part)
  if (input.mode === 'plan' && !readOnly) {
    return { decision: 'deny', reason: `plan mode only runs read-only commands (${shown} is not)` }
  }
  const writes = part.writes.map((write): PolicyResult => {
    if (write.dynamic) {
      if (input.mode === 'dangerous') return { decision: 'allow', reason: 'dangerous mode allows everything' }
      if (input.mode === 'plan')
        return { decision: 'deny', reason: `plan mode does not allow edits (${shown} writes ${write.path})` }
      return { decision: 'ask', reason: `${shown} writes to ${write.path}, a name only known when it runs` }
    }
    const result = evaluateCall({
      ...input,
      tool: 'Edit',
      risk: 'edit',
      target: { kind: 'path', path: write.path, access: 'write' },
      readOnly: false,
    })
    return { ...result, reason: `${shown} writes ${write.path}: ${result.reason}` }
  })
  const command = commandDecision(input, part, readOnly, shown)
  const all = [command, ...writes]
  return all.find((r) => r.decision === 'deny') ?? all.find((r) => r.decision === 'ask') ?? command
}

function commandDecision(
  input: PolicyInput,
  part: ShellPart,
  readOnly: boolean,
  shown: string,
): PolicyResult {
  const ask = input.rules.ask.find(
    (rule) => ruleCoversTool(rule, input.tool) && partMatches(rule, part, true),
  )
  if (ask) return { decision: 'ask', reason: `${describeRule(ask)} asks before ${shown}`, rule: ask.text }
  const allow = input.rules.allow.find(
    (rule) => ruleCoversTool(rule, input.tool) && partMatches(rule, part, false),
  )
  if (allow) return { decision: 'allow', reason: `${describeRule(allow)} allows ${shown}`, rule: allow.text }
  const result = modeDecision({ ...input, risk: 'exec', readOnly })
  if (result.decision === 'allow' && readOnly) return { ...result, reason: `${shown} is a read-only command` }
  return { ...result, reason: `${result.reason} (${shown})` }
}

/**
 * Deny and ask rules also match with leading `VAR=value` assignments removed, so `FOO=1 rm x` cannot
 * dodge `Bash(rm *)`. Allow rules match the command as written.
 */
function partMatches(rule: Rule, part: ShellPart, stripAssignments: boolean): boolean {
  const spec = rule.specifier
  if (spec === undefined || spec === '*') return true
  if (matchCommandPart(spec, part)) return true
  if (!stripAssignments) return false
  const first = part.words.findIndex((w) => !/^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(w.raw))
  if (first <= 0) return false
  const words = part.words.slice(first)
  return (
    matchCommandPattern(spec, words.map((w) => w.value).join(' ')) ||
    matchCommandPattern(spec, words.map((w) => w.raw).join(' '))
  )
}

const SECRET_FILE =
  /^(\.env(\..*)?|.*\.(pem|key|p12|pfx|keystore|jks)|id_(rsa|dsa|ecdsa|ed25519)(\..*)?|\.npmrc|\.netrc|_netrc|\.pypirc|\.git-credentials|\.htpasswd|\.pgpass)$/
const SECRET_DIRS = new Set(['.ssh', '.aws', '.gnupg'])

/** Why a write to `path` must be confirmed; `always` = even in dangerous mode (.git/). */
function protectedWrite(path: string, input: PolicyInput): { reason: string; always: boolean } | undefined {
  const abs = absoluteTarget(path, input)
  const segments = abs.split(sep)
  if (segments.includes('.git')) return { reason: 'writes to .git/ always ask', always: true }
  if (!isInside(abs, input.workspace))
    return { reason: 'writes outside the workspace always ask', always: false }
  const rel = relative(input.workspace, abs).split(sep)
  if (rel.includes('.agent-tui')) return { reason: 'writes to .agent-tui/ always ask', always: false }
  const name = basename(abs)
  if (SECRET_FILE.test(name) || rel.some((s) => SECRET_DIRS.has(s))) {
    return { reason: `writes to secrets files (${name}) always ask`, always: false }
  }
  return undefined
}

function isTrustedRead(path: string, input: PolicyInput): boolean {
  const abs = absoluteTarget(path, input)
  return (input.trustedReadDirs ?? []).some((dir) => isInside(abs, dir))
}

function isInside(abs: string, dir: string): boolean {
  const rel = relative(dir, abs)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/**
 * Loopback, private, link-local and other non-public addresses ask in every mode (dangerous too: cloud
 * metadata and local admin services are what a prompt-injected fetch aims at), and are denied in ci,
 * unless an allow rule names this exact host. Judged on the addresses the host resolved to when the
 * tool gives them (so DNS cannot point a public name at 127.0.0.1), else on the literal host.
 */
function evaluateLocalAddress(input: PolicyInput, local: { host: string; what: string }): PolicyResult {
  const ask = firstMatch(input.rules.ask, input)
  if (ask) return { decision: 'ask', reason: `${describeRule(ask)} asks`, rule: ask.text }
  const exact = input.rules.allow.find(
    (rule) => ruleCoversTool(rule, input.tool) && rule.specifier?.toLowerCase() === `domain:${local.host}`,
  )
  if (exact) {
    return { decision: 'allow', reason: `${describeRule(exact)} allows ${local.what}`, rule: exact.text }
  }
  return {
    decision: 'ask',
    // The prompt shows the rule "always allow" saves; a ci run only has this text to go on.
    reason: `${local.host} ${local.what}: local and private addresses always ask unless a rule names this host${input.mode === 'ci' ? ` (${input.tool}(domain:${local.host}))` : ''}`,
  }
}

/** The host and a description when a URL target leads to a non-public address. */
function localAddress(target: PermissionTarget): { host: string; what: string } | undefined {
  if (target.kind !== 'url') return undefined
  let host: string
  try {
    host = new URL(target.url).hostname.toLowerCase()
  } catch {
    return { host: target.url, what: 'is not a valid URL' }
  }
  const bare = bareHost(host)
  const addresses = target.addresses?.length ? target.addresses : undefined
  const cls = addresses
    ? classifyAddresses(addresses)
    : isLocalHostName(bare)
      ? 'loopback'
      : /^[\d.]+$|:/.test(bare)
        ? classifyAddress(bare)
        : 'public'
  if (cls === 'public') return undefined
  // An IP-literal host resolves to itself; saying so again is noise.
  const literal = addresses?.length === 1 && addresses[0] === bare
  const what =
    addresses && !literal
      ? `resolves to ${addresses.join(', ')}, ${describeAddressClass(cls)}`
      : `is ${describeAddressClass(cls)}`
  return { host, what }
}
