import { isReadOnlyProgram } from './classifier.js'
import type { Rule } from './rule.js'
import { type ShellPart, splitShell } from './shell-split.js'
import { type ShellCommand, unwrapPart } from './shell-unwrap.js'
import { isAssignment } from './shell-words.js'

/**
 * The one answer to "does this rule cover this shell command?", used by the policy, the consent broker
 * and `matchRule`. Pure.
 *
 * A rule restricts (deny, ask) or grants (allow). A restricting rule covers a program when it matches
 * the simple command as written, or the program that command runs through any wrapper, with its name
 * reduced to the base name: `timeout 5 rm x`, `FOO=1 rm x`, `bash -c 'rm x'`, `xargs rm` and `/bin/rm x`
 * all meet `Bash(rm *)`. A granting rule covers a program when it matches the command as written, or
 * the program itself when only plain wrappers (timeout, nice, nohup, time, stdbuf, command, bash -c,
 * eval…) stand in between and no variable is set for it: `Bash(npm test *)` covers `timeout 60 npm test`
 * but not `PATH=. npm test`, `sudo npm test` or `/opt/npm test`.
 */

export type RuleUse = 'grant' | 'restrict'

/** Whether `rule` (already known to name the shell tool) covers `command`, one program of `part`. */
export function ruleCoversProgram(rule: Rule, part: ShellPart, command: ShellCommand, use: RuleUse): boolean {
  const spec = rule.specifier
  if (spec === undefined || spec === '*') return true
  // A program only known when it runs is granted by the whole tool alone: `Bash(eval *)` matches
  // `eval "$X"` as written, but must not let any script through. Nor may `Bash(echo *)` let through
  // `echo ${a[$x]}`, which runs what `$x` holds (shell-arithmetic.ts).
  if (use === 'grant' && (command.unknown !== undefined || command.evaluates !== undefined)) return false
  if (matchCommandPart(spec, part)) return true
  const [program, ...args] = command.words
  if (!program || command.unknown !== undefined) return false
  if (use === 'restrict') {
    const name = command.name ?? program.value
    return (
      matchCommandPattern(spec, [name, ...args.map((a) => a.value)].join(' ')) ||
      matchCommandPattern(spec, [name, ...args.map((a) => a.raw)].join(' ')) ||
      matchWithoutAssignments(spec, part)
    )
  }
  if (!command.plain || command.assignments.length > 0) return false
  return (
    matchCommandPattern(spec, command.words.map((w) => w.value).join(' ')) ||
    matchCommandPattern(spec, command.words.map((w) => w.raw).join(' '))
  )
}

/** `FOO=1 rm x` as written, minus the assignments (restricting rules only). */
function matchWithoutAssignments(spec: string, part: ShellPart): boolean {
  const first = part.words.findIndex((w) => !isAssignment(w))
  if (first <= 0) return false
  const words = part.words.slice(first)
  return (
    matchCommandPattern(spec, words.map((w) => w.value).join(' ')) ||
    matchCommandPattern(spec, words.map((w) => w.raw).join(' '))
  )
}

/**
 * Whether `rule` covers a whole, possibly compound, command. Restricting: some program of some part.
 * Granting: every program of every part — or, with `readOnlyCounts`, every program that does not only
 * read (what a grant adds to what reads freely).
 */
export function ruleCoversCommand(
  rule: Rule,
  command: string,
  use: RuleUse,
  opts: { readOnlyCounts?: boolean } = {},
): boolean {
  const spec = rule.specifier
  const split = splitShell(command)
  if (!split.ok)
    return spec === undefined || spec === '*' || (use === 'restrict' && matchCommandPattern(spec, command))
  const programs = split.parts.flatMap((part) => unwrapPart(part).map((c) => ({ part, command: c })))
  if (programs.length === 0) return false
  if (use === 'restrict') return programs.some((p) => ruleCoversProgram(rule, p.part, p.command, 'restrict'))
  return programs.every(
    (p) =>
      ruleCoversProgram(rule, p.part, p.command, 'grant') ||
      (opts.readOnlyCounts === true && p.part.writes.length === 0 && isReadOnlyProgram(p.command)),
  )
}

/** Whether a command specifier covers one simple command as written (its unquoted or its raw text). */
export function matchCommandPart(specifier: string, part: ShellPart): boolean {
  return matchCommandPattern(specifier, part.text) || matchCommandPattern(specifier, part.raw)
}

/**
 * Command specifiers: `*` is a wildcard; a trailing ` *` (or the legacy `:*`) also matches the bare
 * prefix, so `npm test *` matches `npm test` and `npm test -- foo` but not `npm testing`.
 */
export function matchCommandPattern(specifier: string, command: string): boolean {
  const text = command.trim().replace(/\s+/g, ' ')
  let spec = specifier.trim().replace(/\s+/g, ' ')
  if (spec.endsWith(':*')) spec = `${spec.slice(0, -2).trimEnd()} *`
  if (spec.endsWith(' *')) {
    const prefix = spec.slice(0, -2)
    return wildcardRegex(prefix, '(?: .*)?').test(text)
  }
  return wildcardRegex(spec).test(text)
}

export function wildcardRegex(pattern: string, suffix = ''): RegExp {
  const body = pattern
    .split('*')
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*')
  return new RegExp(`^${body}${suffix}$`, 's')
}
