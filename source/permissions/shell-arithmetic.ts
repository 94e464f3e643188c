import type { ShellPart, ShellWord } from './shell-types.js'

/**
 * Where bash evaluates a value as code although no program runs it. An arithmetic expression that names
 * a variable evaluates the variable's value as arithmetic too, and a subscript in it (`a[$(cmd)]`) runs
 * the command substitution — so `x=$(cat VERSION); [[ $x -eq 3 ]]` runs what a repository file holds.
 * bash does this (each checked against bash 5 in test/unit/permissions/arithmetic-oracle.test.ts) in
 * `$(( ))`, `(( ))`, `$[ ]`, array subscripts `${a[…]}` (scalars too), substring offsets `${x:off:len}`,
 * the operands of `[[ -eq -ne -lt -le -gt -ge ]]`, `-v NAME[…]` of `[[`, `test` and `[`, and
 * `printf -v NAME[…]`; `${x@P}` expands a value as a prompt, command substitutions included. Not in:
 * `test`/`[` with `-eq` (integers only), `[[ == != =~ ]]`, `printf %d`, `${#x}`, `${x:-…}`, `${x/…}`,
 * `${x@Q}`. Everything here errs towards finding a hazard: a false one only costs a prompt. Pure.
 */

/** Digits, operators, blanks and parentheses: an arithmetic expression that names nothing. */
const LITERAL = /^[\s0-9+\-*/%<>=!&|^~?:,()]*$/

export function isLiteralArithmetic(text: string): boolean {
  return LITERAL.test(text)
}

/**
 * The end of the arithmetic expression that starts at `from` (just after `$((` or `((`): the index of
 * the first `)` of its closing `))`, or -1 when a `)` at depth 0 is not followed by another (then bash
 * reads a command substitution holding a subshell).
 */
export function arithmeticEnd(src: string, from: number): number {
  let depth = 0
  for (let i = from; i < src.length; i++) {
    const c = src[i]
    if (c === '(') depth++
    else if (c === ')') {
      if (depth > 0) depth--
      else return src[i + 1] === ')' ? i : -1
    }
  }
  return -1
}

/** The end of `$[ … ]` opened at `from` (just after `$[`): the index of its `]`, or -1. */
export function bracketEnd(src: string, from: number): number {
  let depth = 0
  for (let i = from; i < src.length; i++) {
    if (src[i] === '[') depth++
    else if (src[i] === ']' && depth-- === 0) return i
  }
  return -1
}

/** Whether an arithmetic expression opened at `from` (`$((`/`((` skipped) names anything. */
export function arithmeticHazard(src: string, from: number): boolean {
  const end = arithmeticEnd(src, from)
  return end === -1 || !isLiteralArithmetic(src.slice(from, end))
}

const NAME = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])/

/**
 * Whether a parameter expansion (`${…}` as written, nested ones included) evaluates something: a
 * subscript that is not `@`, `*` or a literal, substring offsets that are not literal, `@P`, or an
 * indirection (`${!x}`: the value names what to expand, subscript included).
 */
export function parameterHazard(expansion: string): boolean {
  for (let at = expansion.indexOf('${'); at !== -1; at = expansion.indexOf('${', at + 2)) {
    if (oneExpansionHazard(expansion.slice(at + 2))) return true
  }
  return false
}

/** `body` is the text after one `${` (it may run past its `}`, which is harmless here). */
function oneExpansionHazard(body: string): boolean {
  let rest = body
  if (rest.startsWith('!')) {
    // `${!prefix*}` and `${!prefix@}` list names; any other `${!…}` expands the value as a name.
    if (!/^![A-Za-z_][A-Za-z0-9_]*[*@]\}/.test(rest)) return true
    return false
  }
  if (rest.startsWith('#') && rest[1] !== '}') rest = rest.slice(1)
  const name = NAME.exec(rest)?.[0]
  if (name === undefined) return true
  rest = rest.slice(name.length)
  if (rest.startsWith('[')) {
    const end = bracketEnd(rest, 1)
    if (end === -1) return true
    const subscript = rest.slice(1, end)
    if (subscript !== '@' && subscript !== '*' && !isLiteralArithmetic(subscript)) return true
    rest = rest.slice(end + 1)
  }
  if (rest.startsWith(':') && !/^:[-=?+]/.test(rest)) {
    const close = rest.indexOf('}')
    return close === -1 || !isLiteralArithmetic(rest.slice(1, close))
  }
  return /^@P/.test(rest)
}

/** Whether text the shell expands (an unquoted here-document line) holds `${…}` or `$[…]` that evaluates. */
export function expandedTextHazard(text: string): boolean {
  if (text.includes('$[')) return true
  return parameterHazard(text)
}

const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge'])

/** Operands of `[[ -eq ]]` that are integers whatever the files hold: literals, `$#`, `$?`, `$$`, `${#name}`. */
function integerOperand(word: ShellWord | undefined): boolean {
  if (word === undefined) return false
  if (!word.expands) return /^[+-]?[0-9]+$/.test(word.value)
  return /^(\$[#?$]|\$\{#[A-Za-z_][A-Za-z0-9_]*\})$/.test(word.value)
}

/** `-v`'s operand in `[[ ]]`: a plain name (its value is not looked at), or the closing `]]`. */
function plainName(word: ShellWord | undefined): boolean {
  return word !== undefined && !word.expands && /^([A-Za-z_][A-Za-z0-9_]*|\]\]?)$/.test(word.value)
}

/**
 * A word of `test`/`[` that may become several (an unquoted expansion, a glob: files named `-v` and
 * `a[$(cmd)]` make `[ * ]` run cmd), or that may be `-v` itself, followed by one that may hold a subscript.
 */
function testHazard(args: readonly ShellWord[]): boolean {
  const splits = (w: ShellWord) =>
    w.glob || (w.expands && !/^"[^"]*"$/.test(w.raw) && !/^\$[#?$]$/.test(w.raw))
  const mayBeV = (w: ShellWord) => w.expands || w.value === '-v'
  const maySubscript = (w: ShellWord | undefined) => w !== undefined && (w.expands || w.value.includes('['))
  return args.some((w, i) => splits(w) || (mayBeV(w) && maySubscript(args[i + 1])))
}

/**
 * What a simple command (program and arguments, wrappers peeled) makes bash evaluate, from the builtins
 * that evaluate their operands: the command as shown to the user, or undefined. In `[[ ]]` words are not
 * split and an expansion is never an operator; in `test`/`[` and `printf` they may be both.
 */
export function commandHazard(words: readonly ShellWord[]): string | undefined {
  const program = words[0]?.value
  const args = words.slice(1)
  const shown = words.map((w) => w.raw).join(' ')
  if (program === '[[') {
    const bad = args.some((w, i) => {
      if (w.expands) return false
      if (w.value === '-v') return !plainName(args[i + 1])
      return ARITHMETIC_TESTS.has(w.value) && !(integerOperand(args[i - 1]) && integerOperand(args[i + 1]))
    })
    return bad ? shown : undefined
  }
  if (program === 'test' || program === '[') return testHazard(args) ? shown : undefined
  if (program === 'printf') {
    // `printf -v NAME` assigns NAME, subscript evaluated; an expanded or globbed first word may be `-v`.
    const first = args[0]
    if (first === undefined) return undefined
    if (first.expands || first.glob) return shown
    if (!first.value.startsWith('-v')) return undefined
    const name = first.value === '-v' ? args[1] : { ...first, value: first.value.slice(2) }
    const plain = name !== undefined && !name.expands && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name.value)
    return plain ? undefined : shown
  }
  return undefined
}

/** The first thing a simple command's words, redirections or enclosing `(( ))` make bash evaluate. */
export function partHazard(part: ShellPart): string | undefined {
  return (
    part.evaluates ??
    part.words.find((w) => w.evaluates !== undefined)?.evaluates ??
    part.redirects.find((r) => r.target.evaluates !== undefined)?.target.evaluates
  )
}
