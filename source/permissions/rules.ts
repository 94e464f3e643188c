import { isAbsolute, relative, resolve } from 'node:path'
import picomatch from 'picomatch'
import { type RuleUse, ruleCoversCommand, wildcardRegex } from './command-match.js'
import type { Rule } from './rule.js'
import type { PermissionTarget } from './target.js'

export { matchCommandPart, matchCommandPattern } from './command-match.js'

/**
 * Permission rules: `Tool` or `Tool(specifier)`, e.g. `Bash(npm test *)`, `Edit(source/**)`,
 * `Read(~/.ssh/**)`, `WebFetch(domain:example.com)`, `mcp__server__*`. Pure.
 */

export type { Rule } from './rule.js'

/** A rule that does not parse; the message names the rule and what is wrong. */
export class RuleSyntaxError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RuleSyntaxError'
  }
}

/** A call as the rules see it. Relative paths are relative to `workspace`; `~` is `home`. */
export interface RuleCall {
  tool: string
  target: PermissionTarget
  workspace: string
  home: string
}

/** Tools covered by a rule naming the first tool of the family. */
const FAMILIES: Readonly<Record<string, readonly string[]>> = {
  // Deleting a file and applying a patch change the workspace as edits do (docs/permissions.md#rules).
  Edit: ['Edit', 'Write', 'NotebookEdit', 'MultiEdit', 'apply_patch', 'DeleteFile'],
  // CodeSearch reads the files it indexes: `Read(private/**)` keeps them out of the index and results.
  Read: ['Read', 'Glob', 'Grep', 'CodeSearch'],
}

const TOOL_NAME = /^[A-Za-z*][A-Za-z0-9_.*-]*$/

/** Parse one rule. Throws RuleSyntaxError with a message that quotes the rule. */
export function parseRule(text: string, source?: string): Rule {
  const trimmed = text.trim()
  if (trimmed === '')
    throw new RuleSyntaxError('empty rule; expected a tool name like Bash or Bash(npm test *)')
  const open = trimmed.indexOf('(')
  const tool = open === -1 ? trimmed : trimmed.slice(0, open).trim()
  if (!TOOL_NAME.test(tool)) {
    throw new RuleSyntaxError(
      `invalid tool name "${tool}" in rule "${trimmed}"; expected a name like Bash, Edit or mcp__server__tool`,
    )
  }
  const withSource = source === undefined ? {} : { source }
  if (open === -1) return { text: tool, tool, ...withSource }
  if (!trimmed.endsWith(')')) {
    throw new RuleSyntaxError(`rule "${trimmed}" must end with ")" (form: Tool(specifier))`)
  }
  let specifier = trimmed.slice(open + 1, -1).trim()
  if (specifier === '') {
    throw new RuleSyntaxError(`empty specifier in rule "${trimmed}"; write "${tool}" to cover every call`)
  }
  if (tool === 'Bash') specifier = specifier.replace(/\s+/g, ' ')
  if (tool === 'WebFetch' && specifier !== '*') {
    const host = specifier.startsWith('domain:') ? specifier.slice('domain:'.length).trim() : ''
    // A bracketed IPv6 literal (`domain:[::1]`) is the one host form with colons.
    if (host === '' || (/[/\s:]/.test(host) && !/^\[[0-9a-f:.]+\]$/i.test(host))) {
      throw new RuleSyntaxError(
        `rule "${trimmed}": WebFetch rules take "domain:<host>", e.g. WebFetch(domain:example.com)`,
      )
    }
  }
  return { text: `${tool}(${specifier})`, tool, specifier, ...withSource }
}

/**
 * Parse a list of rules from one source. Never throws: rules that do not parse are reported as
 * errors naming the source and the index, e.g. `.agent-tui/settings.json permissions.allow[2]: …`.
 */
export function parseRules(
  list: readonly string[],
  source: string,
  listName = 'rules',
): { rules: Rule[]; errors: string[] } {
  const rules: Rule[] = []
  const errors: string[] = []
  list.forEach((text, index) => {
    try {
      rules.push(parseRule(text, source))
    } catch (err) {
      errors.push(`${source} ${listName}[${index}]: ${(err as Error).message}`)
    }
  })
  return { rules, errors }
}

/** "rule Bash(rm *) in .agent-tui/settings.json" — for consent reasons and error messages. */
export function describeRule(rule: Rule): string {
  return rule.source === undefined ? `rule ${rule.text}` : `rule ${rule.text} in ${rule.source}`
}

/** Whether the rule's tool part covers `tool` (wildcards, and the Edit/Read families). */
export function ruleCoversTool(rule: Rule, tool: string): boolean {
  if (rule.tool.includes('*')) return wildcardRegex(rule.tool).test(tool)
  // `mcp__memory` names a server: all of its tools (`mcp__memory__create_entities`), as in Claude Code.
  if (MCP_SERVER.test(rule.tool) && tool.startsWith(`${rule.tool}__`)) return true
  return rule.tool === tool || (FAMILIES[rule.tool]?.includes(tool) ?? false)
}

/** `mcp__<server>` with no `__<tool>` after it. */
const MCP_SERVER = /^mcp__(?:(?!__)[A-Za-z0-9_.-])+$/

/**
 * Whether `rule` covers the call. Granting (allow) rules must match the path as it really is (symlinks
 * resolved); restricting (deny, ask) rules match it as named or as it really is. For a compound shell
 * command see `ruleCoversCommand`: a grant covers every program, a restriction any.
 */
export function matchRule(rule: Rule, call: RuleCall, use: RuleUse = 'grant'): boolean {
  if (!ruleCoversTool(rule, call.tool)) return false
  const spec = rule.specifier
  if (spec === undefined || spec === '*') return true
  const { target } = call
  switch (target.kind) {
    case 'command':
      return ruleCoversCommand(rule, target.command, use)
    case 'path': {
      // A grant is for where the write or read really lands; a restriction also holds for the name.
      const real = matchPathPattern(spec, target.real ?? target.path, call, use)
      if (use === 'grant' || target.real === undefined) return real
      return real || matchPathPattern(spec, target.path, call, use)
    }
    case 'paths': {
      // A grant covers a call only when it covers every file; a restriction holds when it names any.
      const one = (p: (typeof target.paths)[number]) => matchRule(rule, { ...call, target: p }, use)
      return use === 'grant' ? target.paths.length > 0 && target.paths.every(one) : target.paths.some(one)
    }
    case 'url':
      return matchDomain(spec, target.url)
    case 'none':
      return false
  }
}

/** Resolve a target path the way the rules see it (absolute, `~` expanded). */
export function absoluteTarget(path: string, call: Pick<RuleCall, 'workspace' | 'home'>): string {
  if (path === '~' || path.startsWith('~/')) return resolve(call.home, path.slice(2))
  return resolve(call.workspace, path)
}

/**
 * Path specifiers are globs in Claude Code's forms (docs/permissions.md#rules): `//x/**` absolute,
 * `~/x/**` under home, `/x/**` relative to the project root (a project's settings files are the
 * workspace's, so this is the workspace for every rule), `./x` and `x` relative to the workspace. A restriction
 * (deny, ask) written `/x/**` also holds for the absolute `/x/**`, as agent-tui read it before: a rule
 * meant to keep something out never lets it in. Matching happens relative to the base directory so that
 * glob characters in the workspace path itself are never interpreted.
 */
function matchPathPattern(spec: string, path: string, call: RuleCall, use: RuleUse = 'grant'): boolean {
  const target = absoluteTarget(path, call)
  const matches = (pattern: string, candidate: string) => picomatch(pattern, { dot: true })(candidate)
  if (spec.startsWith('//')) return matches(spec.slice(1), target)
  if (spec.startsWith('/')) {
    const inProject = matchUnder(call.workspace, spec.slice(1), target, matches)
    return inProject || (use === 'restrict' && matches(spec, target))
  }
  if (spec === '~' || spec.startsWith('~/'))
    return matchUnder(call.home, spec.slice(2) || '.', target, matches)
  return matchUnder(call.workspace, spec, target, matches)
}

function matchUnder(
  base: string,
  pattern: string,
  target: string,
  matches: (pattern: string, candidate: string) => boolean,
): boolean {
  const rel = relative(base, target)
  if (rel.startsWith('..') || isAbsolute(rel)) return false
  const cleaned = pattern.replace(/^(\.\/)+/, '')
  if (rel === '') return cleaned === '.' || cleaned === '**' || cleaned === ''
  return matches(cleaned, rel)
}

function matchDomain(spec: string, url: string): boolean {
  if (!spec.startsWith('domain:')) return false
  let host: string
  try {
    host = new URL(url).hostname.toLowerCase()
  } catch {
    return false
  }
  const want = spec.slice('domain:'.length).trim().toLowerCase()
  if (want.startsWith('*.')) return host.endsWith(want.slice(1))
  return host === want
}

/**
 * The rules of a comma-separated list (`--allowed-tools`, a suggestion for a compound command): commas
 * inside parentheses belong to the rule (`Bash(git log --format=%h,%s)`). Not parsed; empty items dropped.
 */
export function splitRuleList(text: string): string[] {
  const rules: string[] = []
  let depth = 0
  let current = ''
  for (const ch of text) {
    if (ch === '(') depth++
    if (ch === ')') depth = Math.max(0, depth - 1)
    if (ch === ',' && depth === 0) {
      rules.push(current)
      current = ''
    } else {
      current += ch
    }
  }
  rules.push(current)
  return rules.map((r) => r.trim()).filter((r) => r !== '')
}
