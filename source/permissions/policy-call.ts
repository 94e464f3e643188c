import { dirname, isAbsolute, relative } from 'node:path'
import type { Risk } from '../store/domain.js'
import {
  bareHost,
  classifyAddress,
  classifyAddresses,
  describeAddressClass,
  isLocalHostName,
} from '../util/address-class.js'
import type { PolicyInput, PolicyResult } from './policy-types.js'
import { type Boundary, isInside, isTrustedRead, readObjection, writeObjection } from './protected-paths.js'
import { absoluteTarget, describeRule, matchRule, ruleCoversTool } from './rules.js'
import { suggestRule } from './suggest-rule.js'
import type { Rule } from './rule.js'
import { sandboxBlocksWrite, sandboxHolds, throughReplaceable, whySandboxLeaks } from './sandbox-fence.js'
import { startUpPaths } from './start-up-files.js'
import type { PathTarget, PermissionTarget } from './target.js'

/**
 * The half of the policy for a call that is not a shell command (a path, a URL, none), and the parts of it
 * the shell half (policy-command.ts) uses too: the mode table, rules by tool, the read boundary. Pure.
 */

/** Tools that only make sense with a person at the keyboard. */
const ASKS_USER = new Set(['AskUserQuestion', 'ExitPlanMode'])

export function boundaryOf(input: PolicyInput): Boundary {
  return {
    workspace: input.workspace,
    additionalDirs: input.additionalDirs ?? [],
    trustedReadDirs: input.trustedReadDirs ?? [],
    ...(input.appDirs ? { appDirs: input.appDirs } : {}),
    startUp: input.startUp ?? startUpPaths({ home: input.home }),
  }
}

/** Absolute lexical and real path of a path target (relative paths are relative to the workspace). */
export function pathsOf(
  target: PathTarget,
  input: Pick<PolicyInput, 'workspace' | 'home'>,
): { lexical: string; real: string } {
  const lexical = absoluteTarget(target.path, input)
  return { lexical, real: target.real ?? lexical }
}

export function evaluateCall(input: PolicyInput): PolicyResult {
  const { mode, tool, risk, target } = input
  const deny = firstMatch(input.rules.deny, input, 'restrict')
  if (deny) return { decision: 'deny', reason: `${describeRule(deny)} denies`, rule: deny.text }
  if (mode === 'ci' && ASKS_USER.has(tool)) {
    return { decision: 'deny', reason: 'no user available in ci mode; decide yourself and say so' }
  }
  const local = localAddress(target)
  if (local) return evaluateLocalAddress(input, local)
  const boundary = boundaryOf(input)
  const path = target.kind === 'path' ? pathsOf(target, input) : undefined
  const writes = target.kind === 'path' && (target.access === 'write' || risk === 'edit')
  if (path && !writes && isTrustedRead(path.real, boundary)) {
    return { decision: 'allow', reason: 'reading session outputs needs no consent' }
  }
  const planDenial = mode === 'plan' ? planDenies(risk, input.readOnly) : undefined
  if (planDenial) return { decision: 'deny', reason: planDenial }
  if (path && writes) {
    const guarded = fencedBySandbox(path, input)
      ? undefined
      : writeObjection(path.lexical, path.real, boundary)
    if (guarded && (guarded.always || mode !== 'dangerous'))
      return {
        decision: 'ask',
        reason: withResolution(guarded.reason, path.lexical, guarded.resolvedTo, input),
        protectedWrite: true,
      }
  } else if (path && mode !== 'dangerous') {
    const outside = readObjection(path.lexical, path.real, boundary)
    if (outside && !explicitReadGrant(input.rules.allow, { ...input, tool: readTool(tool) })) {
      return {
        decision: 'ask',
        reason: withResolution(outside.reason, path.lexical, outside.resolvedTo, input),
        suggestedRule: readRuleFor(path.real, input),
      }
    }
  }
  const ask = firstMatch(input.rules.ask, input, 'restrict')
  if (ask) return { decision: 'ask', reason: `${describeRule(ask)} asks`, rule: ask.text }
  const allow = firstMatch(input.rules.allow, input, 'grant')
  if (allow) return { decision: 'allow', reason: `${describeRule(allow)} allows`, rule: allow.text }
  return modeDecision(input)
}

/** Reads by tools outside the Read family (none today) are judged with Read rules. */
function readTool(tool: string): string {
  return ['Read', 'Glob', 'Grep'].includes(tool) ? tool : 'Read'
}

/**
 * The read boundary gives way to an allow rule that names the path (`Read(//usr/share/dict/**)`,
 * `Read(~/.ssh/config)`), never to a bare `Read` or `Read(*)`, which were not written with it in mind.
 */
export function explicitReadGrant(rules: readonly Rule[], input: PolicyInput): boolean {
  return rules.some(
    (rule) => rule.specifier !== undefined && rule.specifier !== '*' && matchRule(rule, input, 'grant'),
  )
}

/**
 * The rule "allow always" saves for a read outside the boundary: the file's directory, unless that
 * directory is the file system root, the home directory or holds the workspace — then only the path.
 */
export function readRuleFor(real: string, input: Pick<PolicyInput, 'workspace' | 'home'>): string {
  const dir = dirname(real)
  if (dir === '/' || dir === input.home || isInside(input.workspace, dir)) {
    const rel = relative(input.home, real)
    return `Read(${rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? `~/${rel}` : `/${real}`})`
  }
  return suggestRule('Read', { kind: 'path', path: real, access: 'read' }, input.workspace, input.home)
}

/** "writes to .git/ always ask (gitlink/config resolves to .git/config)". */
function withResolution(
  reason: string,
  lexical: string,
  resolvedTo: string | undefined,
  input: PolicyInput,
): string {
  if (resolvedTo === undefined) return reason
  return `${reason} (${shownPath(lexical, input)} resolves to ${shownPath(resolvedTo, input)})`
}

/** A path for messages: relative to the workspace inside it, else absolute. */
export function shownPath(abs: string, input: Pick<PolicyInput, 'workspace'>): string {
  const prefix = `${input.workspace}/`
  if (abs === input.workspace) return '.'
  return abs.startsWith(prefix) ? abs.slice(prefix.length) : abs
}

function firstMatch(rules: readonly Rule[], input: PolicyInput, use: 'grant' | 'restrict'): Rule | undefined {
  return rules.find((rule) => matchRule(rule, input, use))
}

function planDenies(risk: Risk, readOnly: boolean): string | undefined {
  if (risk === 'edit') return 'plan mode does not allow edits'
  if (risk === 'exec' && !readOnly) return 'plan mode only runs read-only commands'
  if (risk === 'config' && !readOnly) return 'plan mode does not change settings'
  return undefined
}

/** What a config-class call changes: a setting, or what later sessions read (SaveMemory). */
function configWhat(tool: string): string {
  return tool === 'SaveMemory' ? 'saving a memory later sessions read' : 'changing settings'
}

/** Exec-class calls are shell commands, or tools that act (MCP tools not marked read-only, TaskStop). */
function execWhat(input: Pick<PolicyInput, 'target' | 'tool'>): string {
  return input.target.kind === 'command' ? 'running commands' : `${input.tool} (it may change things)`
}

/** The mode table (docs/permissions.md#modes) for calls no rule or protection decided. */
export function modeDecision(
  input: Pick<
    PolicyInput,
    | 'mode'
    | 'risk'
    | 'tool'
    | 'readOnly'
    | 'commandContext'
    | 'target'
    | 'sandbox'
    | 'workspace'
    | 'additionalDirs'
    | 'home'
    | 'realHome'
  >,
): PolicyResult {
  const { mode, risk, tool, readOnly } = input
  const allow = (reason: string): PolicyResult => ({ decision: 'allow', reason })
  const ask = (reason: string): PolicyResult => ({ decision: 'ask', reason })
  const deny = (reason: string): PolicyResult => ({ decision: 'deny', reason })
  if (risk === 'read') return allow('reading needs no consent')
  if (risk === 'config' && readOnly) return allow('reading a setting needs no consent')
  if (risk === 'spawn')
    return allow(mode === 'plan' ? 'plan mode allows read-only subagents' : 'subagents need no consent')
  switch (mode) {
    case 'dangerous':
      return allow('dangerous mode allows everything')
    case 'safe':
    case 'auto':
      if (risk === 'edit') {
        if (mode === 'safe') return ask('safe mode asks before edits')
        const holder = rootHoldingHome(input, input.target)
        return holder === undefined
          ? allow('auto mode accepts edits inside the workspace')
          : ask(
              `auto mode asks before edits here: ${holder === input.workspace ? 'the workspace' : holder} holds your home directory, where what your shell and tools run when they next start (what ~/.bashrc sources, programs on PATH below ~) cannot all be known`,
            )
      }
      if (risk === 'exec') {
        if (readOnly) return allow('read-only command')
        if (mode === 'auto' && input.sandbox) {
          if (sandboxHolds(input.sandbox)) return allow('auto mode runs sandboxed commands without asking')
          return ask(`auto mode asks before ${execWhat(input)}: ${whySandboxLeaks(input.sandbox)}`)
        }
        return ask(`${mode} mode asks before ${execWhat(input)}`)
      }
      if (risk === 'network') {
        return mode === 'safe' && tool === 'WebSearch'
          ? allow('safe mode allows web searches')
          : ask(`${mode} mode asks before network access`)
      }
      return ask(`${mode} mode asks before ${configWhat(tool)}`)
    case 'plan':
      if (risk === 'network') return allow('plan mode allows network reads')
      if (risk === 'exec') return allow('read-only command')
      return deny('plan mode does not allow this')
    case 'ci':
      if (risk === 'exec' && readOnly && input.commandContext)
        return allow("read-only command (a command's context)")
      if (risk === 'edit') return deny('ci mode denies edits without an allow rule')
      if (risk === 'exec') return deny(`ci mode denies ${execWhat(input)} without an allow rule`)
      if (risk === 'network') return deny('ci mode denies network access without an allow rule')
      return deny(
        tool === 'SaveMemory'
          ? `ci mode denies ${configWhat(tool)} without an allow rule`
          : 'ci mode does not change settings',
      )
  }
}

/**
 * The workspace or added directory that is or holds the home directory and holds the edited file, if
 * one does: no list of start-up files covers what runs from there later (`~/.nvm/nvm.sh`, which
 * ~/.bashrc sources), so auto mode asks before such edits, as the sandbox stops holding there for
 * commands (source/sandbox/start-up-fence.ts).
 */
function rootHoldingHome(
  input: Pick<PolicyInput, 'workspace' | 'additionalDirs' | 'home' | 'realHome'>,
  target: PermissionTarget,
): string | undefined {
  const homes = [input.home, ...(input.realHome ? [input.realHome] : [])]
  const edited = target.kind === 'path' ? pathsOf(target, input) : undefined
  return [input.workspace, ...(input.additionalDirs ?? [])].find(
    (root) =>
      homes.some((home) => isInside(home, root)) &&
      (edited === undefined || isInside(edited.lexical, root) || isInside(edited.real, root)),
  )
}

/**
 * Whether the OS sandbox the command runs in refuses (or keeps private) a write to this path: judged on
 * its real path, unless the path as named goes through a `.git` symlink the command could replace.
 */
export function fencedBySandbox(
  path: { lexical: string; real: string },
  input: Pick<PolicyInput, 'sandbox'>,
): boolean {
  if (input.sandbox === undefined || throughReplaceable(path.lexical, input.sandbox)) return false
  return sandboxBlocksWrite(path.real, input.sandbox)
}

/** Rules naming the tool itself (deny rules are checked for the shell as a whole this way). */
export function rulesFor(rules: readonly Rule[], tool: string): Rule[] {
  return rules.filter((rule) => ruleCoversTool(rule, tool))
}

/**
 * Loopback, private, link-local and other non-public addresses ask in every mode (dangerous too: cloud
 * metadata and local admin services are what a prompt-injected fetch aims at), and are denied in ci,
 * unless an allow rule names this exact host. Judged on the addresses the host resolved to when the
 * tool gives them (so DNS cannot point a public name at 127.0.0.1), else on the literal host.
 */
function evaluateLocalAddress(input: PolicyInput, local: { host: string; what: string }): PolicyResult {
  const ask = firstMatch(input.rules.ask, input, 'restrict')
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
