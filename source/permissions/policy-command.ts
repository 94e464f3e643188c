import { resolve } from 'node:path'
import { isReadOnlyProgram, secretVariableIn } from './classifier.js'
import { type AnalyzedPart, analysisOf, type PathUse } from './command-analysis.js'
import { matchCommandPattern, ruleCoversProgram } from './command-match.js'
import {
  boundaryOf,
  evaluateCall,
  explicitReadGrant,
  fencedBySandbox,
  modeDecision,
  readRuleFor,
  rulesFor,
  shownPath,
} from './policy-call.js'
import { gitConfigObjection } from './git-read-only.js'
import type { PolicyInput, PolicyResult } from './policy-types.js'
import {
  globObjection,
  isInside,
  isTrustedRead,
  readObjection,
  startUpGlobObjection,
  writeObjection,
} from './protected-paths.js'
import { describeRule, matchRule, type Rule } from './rules.js'
import { sandboxHolds } from './sandbox-fence.js'
import type { CommandTarget } from './target.js'

/**
 * The shell half of the policy: a command is split into simple commands, each into the programs it
 * runs (wrappers peeled), and every program and every file it names must be allowed. Pure.
 */

const allow = (reason: string, rule?: string): PolicyResult =>
  rule === undefined ? { decision: 'allow', reason } : { decision: 'allow', reason, rule }
const ask = (reason: string, extra: Partial<PolicyResult> = {}): PolicyResult => ({
  decision: 'ask',
  reason,
  ...extra,
})
const deny = (reason: string, rule?: string): PolicyResult =>
  rule === undefined ? { decision: 'deny', reason } : { decision: 'deny', reason, rule }

/** The first deny, else the first ask, else undefined. */
function worst(results: readonly PolicyResult[]): PolicyResult | undefined {
  return results.find((r) => r.decision === 'deny') ?? results.find((r) => r.decision === 'ask')
}

/** Deny rules with a specifier: they cannot be checked against a program whose name is unknown. */
function specificDeny(denies: readonly Rule[]): Rule | undefined {
  return denies.find((r) => r.specifier !== undefined && r.specifier !== '*')
}

export function evaluateCommand(input: PolicyInput, target: CommandTarget): PolicyResult {
  const command = target.command
  const denies = rulesFor(input.rules.deny, input.tool)
  const analysis = analysisOf(target, input.workspace, input.home)
  if (!analysis.ok) {
    const rule = denies.find(
      (r) => r.specifier === undefined || r.specifier === '*' || matchCommandPattern(r.specifier, command),
    )
    if (rule) return deny(`${describeRule(rule)} denies`, rule.text)
    const why = `cannot parse the command (${analysis.reason})`
    if (input.mode === 'dangerous') {
      const specific = specificDeny(denies)
      if (specific)
        return deny(`${why}, so ${describeRule(specific)} cannot be checked against it`, specific.text)
      return allow('dangerous mode allows everything')
    }
    if (input.mode === 'ci' || input.mode === 'plan') {
      return deny(`${why}; ${input.mode} mode denies what it cannot check`)
    }
    return ask(`${why}, so it needs consent`)
  }
  if (analysis.parts.length === 0) return evaluateCall({ ...input, target: { kind: 'none' }, readOnly: true })
  const real = target.real ?? {}
  const secret = secretVariableIn(command)
  const results = analysis.parts.map((part, index) =>
    evaluatePart(
      input,
      part,
      analysis.uses.filter((u) => u.part === index),
      { real, git: target.gitConfig },
      secret,
    ),
  )
  const bad = worst(results)
  if (bad?.decision === 'ask') return everyAsk(bad, results)
  if (bad) return bad
  if (results.length === 1) return results[0]!
  const rule = results.find((r) => r.rule !== undefined)?.rule
  return allow(`all ${results.length} commands are allowed`, rule)
}

/**
 * An ask names every part that asks, not only the first: `rm -rf build && node -e "…"` asks for both, and
 * a prompt that named one would misdescribe what is allowed. Parts asking for the same reason share it.
 */
function everyAsk(first: PolicyResult, results: readonly PolicyResult[]): PolicyResult {
  const asks = results.filter((r) => r.decision === 'ask')
  if (asks.length < 2) return first
  // "HEAD (`cmd`TAIL)": the same HEAD and TAIL say the same thing of each command, so they are named once.
  const groups = new Map<string, { head: string; tail: string; named: string[] }>()
  for (const { reason } of asks) {
    const m = /^(.*?) \((`[^`]*`)(.*)\)$/s.exec(reason)
    const [head, named, tail] = m ? [m[1] as string, m[2] as string, m[3] as string] : [reason, '', '']
    const key = `${head}\u0000${tail}`
    const group = groups.get(key) ?? { head, tail, named: [] }
    if (named && !group.named.includes(named)) group.named.push(named)
    groups.set(key, group)
  }
  const reason = [...groups.values()]
    .map(({ head, tail, named }) => (named.length > 0 ? `${head} (${named.join(', ')}${tail})` : head))
    .join('; ')
  return { ...first, reason }
}

/** One simple command: the programs it runs (rules, read-only status) and every file it names. */
function evaluatePart(
  input: PolicyInput,
  analyzed: AnalyzedPart,
  uses: readonly PathUse[],
  /** What the gate looked up: real paths, and the git config where read-only git calls run. */
  facts: { real: Readonly<Record<string, string>>; git: CommandTarget['gitConfig'] },
  /** A variable the command expands that may hold a secret: nothing that prints it is read-only. */
  secret: string | undefined,
): PolicyResult {
  const { part, commands } = analyzed
  const { real } = facts
  // As written, quotes kept: `node -e "console.log(1)"`, not `node -e console.log(1)`.
  const shown = `\`${withoutKeywords((part.raw || part.text).trim())}\``
  const denies = rulesFor(input.rules.deny, input.tool)
  for (const program of commands) {
    const rule = denies.find((r) => ruleCoversProgram(r, part, program, 'restrict'))
    if (rule) return deny(`${describeRule(rule)} denies ${shown}${through(program)}`, rule.text)
  }
  const unknown = commands.find((c) => c.unknown !== undefined)
  const specific = specificDeny(denies)
  if (unknown && specific && input.mode === 'dangerous') {
    return deny(
      `${shown} runs a program whose name is only known when it runs (${unknown.unknown}), so ${describeRule(specific)} cannot be checked against it`,
      specific.text,
    )
  }
  // Auto mode would run a sandboxed command unasked: not one a deny rule cannot be checked against.
  if (unknown && specific && input.sandbox && input.mode === 'auto') {
    return ask(
      `${shown} runs a program whose name is only known when it runs (${unknown.unknown}), so ${describeRule(specific)} cannot be checked against it`,
      { rule: specific.text },
    )
  }
  // A read-only git call whose repository's config names a program executes after all.
  const executes = commands.map((_, i) =>
    gitConfigObjection(analyzed.gitDirs[i], facts.git, boundaryOf(input), (p) => shownPath(p, input)),
  )
  const readOnly = secret === undefined && commands.every((c, i) => isReadOnlyProgram(c) && !executes[i])
  if (input.mode === 'plan' && !readOnly) {
    const why = executes.find((e) => e !== undefined)
    return deny(`plan mode only runs read-only commands (${shown} is not${why ? `: ${why}` : ''})`)
  }
  const paths = uses.map((use) => judgeUse(input, use, real, shown))
  const programs = commands.map((program, i) =>
    programDecision(input, analyzed, program, shown, secret, executes[i]),
  )
  const bad = worst([...programs, ...paths])
  if (bad) return bad
  return programs.find((r) => r.rule !== undefined) ?? programs[0]!
}

/** " (it runs `rm` through timeout)" when a wrapper stood between. */
function through(program: AnalyzedPart['commands'][number]): string {
  if (program.wrappers.length === 0 || program.name === undefined) return ''
  return ` (it runs \`${program.name}\` through ${program.wrappers.join(', ')})`
}

function programDecision(
  input: PolicyInput,
  { part }: AnalyzedPart,
  program: AnalyzedPart['commands'][number],
  shown: string,
  secret: string | undefined,
  /** Why this read-only git call executes after all (its repository's config), if it does. */
  executes: string | undefined,
): PolicyResult {
  const askRule = rulesFor(input.rules.ask, input.tool).find((r) =>
    ruleCoversProgram(r, part, program, 'restrict'),
  )
  if (askRule) return ask(`${describeRule(askRule)} asks before ${shown}`, { rule: askRule.text })
  const allowRule = rulesFor(input.rules.allow, input.tool).find((r) =>
    ruleCoversProgram(r, part, program, 'grant'),
  )
  if (allowRule) return allow(`${describeRule(allowRule)} allows ${shown}`, allowRule.text)
  const reader = isReadOnlyProgram(program)
  const readOnly = reader && secret === undefined && executes === undefined
  const result = modeDecision({ ...input, risk: 'exec', readOnly })
  if (result.decision === 'allow' && readOnly) return { ...result, reason: `${shown} is a read-only command` }
  if (reader && executes !== undefined)
    return { ...result, reason: `${result.reason} (${shown}: ${executes})` }
  if (reader && secret !== undefined) {
    return { ...result, reason: `${result.reason} (${shown}: ${secret} may hold a secret)` }
  }
  if (program.evaluates !== undefined) {
    return {
      ...result,
      reason: `${result.reason} (${shown}: \`${program.evaluates}\` makes bash evaluate a value as code, which runs any command substitution the value holds)`,
    }
  }
  if (program.unknown !== undefined) {
    return {
      ...result,
      reason: `${result.reason} (${shown} runs a program whose name is only known when it runs)`,
    }
  }
  return { ...result, reason: `${result.reason} (${shown})` }
}

/** A file the command names: writes meet the protected paths, reads the read boundary. */
function judgeUse(
  input: PolicyInput,
  use: PathUse,
  real: Readonly<Record<string, string>>,
  shown: string,
): PolicyResult {
  const program = use.via === 'redirect' ? shown : `\`${use.program}\``
  const verb = use.role === 'write' ? 'writes' : 'reads'
  if (use.abs === undefined) {
    if (input.mode === 'dangerous') return allow('dangerous mode allows everything')
    if (use.role === 'write' && input.mode === 'plan')
      return deny(`plan mode does not allow edits (${shown} writes ${use.word})`)
    if (use.role === 'write' && input.sandbox && sandboxHolds(input.sandbox))
      return allow(`the sandbox fences what ${shown} writes`)
    const what = use.via === 'redirect' ? 'a name' : 'a path'
    return ask(`${program} ${verb} ${use.word}, ${what} only known when it runs`)
  }
  const results = use.abs.map((walked) => {
    // `walked` keeps its `..` (see PathUse.abs); the path as named is its folded spelling.
    const lexical = resolve(walked)
    const path = { lexical, real: real[walked] ?? lexical }
    return use.role === 'write' ? judgeWrite(input, use, path, program) : judgeRead(input, use, path, program)
  })
  return worst(results) ?? allow('no protected path')
}

function judgeWrite(
  input: PolicyInput,
  use: PathUse,
  path: { lexical: string; real: string },
  program: string,
): PolicyResult {
  const target = { kind: 'path', path: path.lexical, real: path.real, access: 'write' } as const
  const named = `${program} writes ${use.word}${resolvedNote(path, input)}`
  if (use.via === 'redirect') {
    // A redirection is a file edit: the mode and Edit rules decide, like an Edit of that file.
    const result = evaluateCall({ ...input, tool: 'Edit', risk: 'edit', target, readOnly: false })
    return { ...result, reason: `${named}: ${result.reason}` }
  }
  const editDeny = input.rules.deny.find((r) => matchRule(r, { ...input, tool: 'Edit', target }, 'restrict'))
  if (editDeny) return deny(`${describeRule(editDeny)} denies ${named}`, editDeny.text)
  // The sandbox refuses this write by itself (and keeps .git/ read-only, which holdsRoot is about).
  const fenced = fencedBySandbox(path, input)
  const objection =
    (fenced ? undefined : writeObjection(path.lexical, path.real, boundaryOf(input))) ??
    (input.sandbox && sandboxHolds(input.sandbox) ? undefined : holdsRoot(input, use, path.real)) ??
    (use.pattern === undefined
      ? undefined
      : globObjection(use.pattern, 'write', {
          sandboxed: input.sandbox !== undefined && sandboxHolds(input.sandbox),
        }))
  if (objection && (objection.always || input.mode !== 'dangerous'))
    return ask(`${named}: ${objection.reason}`, { protectedWrite: true })
  const glob = (dir: string) =>
    use.pattern === undefined ? undefined : startUpGlobObjection(dir, use.pattern, boundaryOf(input))
  const startUp = glob(path.lexical) ?? (path.real === path.lexical ? undefined : glob(path.real))
  if (startUp && input.mode !== 'dangerous')
    return ask(`${named}: ${startUp.reason}`, { protectedWrite: true })
  return allow('no protected path')
}

function judgeRead(
  input: PolicyInput,
  use: PathUse,
  path: { lexical: string; real: string },
  program: string,
): PolicyResult {
  const target = { kind: 'path', path: path.lexical, real: path.real, access: 'read' } as const
  const named = `${program} reads ${use.word}${resolvedNote(path, input)}`
  const readInput = { ...input, tool: 'Read', risk: 'read', target, readOnly: true } as const
  const readDeny = input.rules.deny.find((r) => matchRule(r, readInput, 'restrict'))
  if (readDeny) return deny(`${describeRule(readDeny)} denies ${named}`, readDeny.text)
  const boundary = boundaryOf(input)
  if (input.mode === 'dangerous' || isTrustedRead(path.real, boundary)) return allow('no protected path')
  const objection =
    readObjection(path.lexical, path.real, boundary) ??
    (use.pattern === undefined ? undefined : globObjection(use.pattern, 'read'))
  if (!objection || explicitReadGrant(input.rules.allow, readInput)) return allow('no protected path')
  return ask(`${named}: ${objection.reason}`, {
    suggestedRule: readRuleFor(path.real, input),
  })
}

/** " (resolved to .git)" when a symlink took the path somewhere else. */
function resolvedNote(path: { lexical: string; real: string }, input: PolicyInput): string {
  return path.real === path.lexical ? '' : ` (resolved to ${shownPath(path.real, input)})`
}

/** A recursive write (`rm -rf ../proj`, `find . -delete`) of a directory holding the workspace or an added one. */
function holdsRoot(
  input: PolicyInput,
  use: PathUse,
  real: string,
): { reason: string; always: true } | undefined {
  // A glob names entries below its directory (`rm -rf build/*`); the pattern check judges those.
  if (!use.recursive || use.pattern !== undefined) return undefined
  const root = [input.workspace, ...(input.additionalDirs ?? [])].find((dir) => isInside(dir, real))
  if (root === undefined) return undefined
  const what = root === input.workspace ? 'the whole workspace' : root
  return { reason: `it holds ${what}, .git/ included; writes to .git/ always ask`, always: true }
}

/** `do rm $f` is shown as `rm $f`: the reserved words the splitter leaves in front run nothing. */
function withoutKeywords(text: string): string {
  return text.replace(/^(?:(?:if|then|else|elif|do|while|until|!|\{)\s+)+/, '') || text
}
