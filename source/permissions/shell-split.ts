import {
  arithmeticEnd,
  arithmeticHazard,
  bracketEnd,
  expandedTextHazard,
  isLiteralArithmetic,
  parameterHazard,
} from './shell-arithmetic.js'
import type { ShellPart, ShellRedirect, ShellSplit, ShellWord, ShellWrite } from './shell-types.js'

/**
 * Splits a shell command line into the simple commands bash would run, so the permission policy can
 * judge each one. Pure: no I/O.
 *
 * The parser is deliberately conservative. Anything it does not understand (unbalanced quotes or
 * parentheses, `case` clauses, here-documents with substitutions, …) makes the whole command
 * "unparseable", which callers must treat as needing consent — never as allowed.
 */

export type { ShellPart, ShellRedirect, ShellSplit, ShellWord, ShellWrite } from './shell-types.js'

/** Split `command` into simple commands (including those inside substitutions and subshells). */
export function splitShell(command: string): ShellSplit {
  const parts: ShellPart[] = []
  try {
    new Parser(command, parts, false, 0).parseScript()
    return { ok: true, parts }
  } catch (err) {
    if (err instanceof ParseFailure) return { ok: false, reason: err.message }
    throw err
  }
}

class ParseFailure extends Error {}

function fail(reason: string): never {
  throw new ParseFailure(reason)
}

const MAX_DEPTH = 48
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr'])
const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>', '<>'])
const REDIRECT_SOURCE = String.raw`(\d*)(&>>|&>|>>|>\||>&|>|<<<|<<-|<<|<&|<>|<)`
const BLANK = new Set([' ', '\t', '\r'])
const WORD_END = new Set([' ', '\t', '\r', '\n', ';', '&', '|', '(', ')', '<', '>'])
/** Reserved words after which `[[` still opens a conditional expression. */
const CONDITIONAL_LEADERS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', '{', 'time'])
/** Inside `[[ … ]]` these are operators (words), not control operators or redirections. */
const CONDITIONAL_OPERATOR = /&&|\|\||[()<>|]/y

interface WordBuilder {
  value: string
  unquoted: string
  expands: boolean
  glob: boolean
  evaluates?: string
}

interface PendingHeredoc {
  delimiter: string
  quoted: boolean
  stripTabs: boolean
  /** The `<<` word: a body that evaluates something marks it (see ShellWord.evaluates). */
  target: ShellWord
}

/** Recursive-descent parser over one source string; an instance lives for one split. */
class Parser {
  private pos = 0
  private substitutionDepth = 0
  private heredocs: PendingHeredoc[] = []
  // Sticky regexes carry `lastIndex`, so each parser owns its own.
  private readonly redirectPattern = new RegExp(REDIRECT_SOURCE, 'y')
  private readonly conditionalOperator = new RegExp(CONDITIONAL_OPERATOR.source, 'y')
  private readonly src: string
  private readonly out: ShellPart[]
  private readonly nested: boolean
  private depth: number

  constructor(src: string, out: ShellPart[], nested: boolean, depth: number) {
    if (depth > MAX_DEPTH) fail('command is nested too deeply')
    this.src = src
    this.out = out
    this.nested = nested
    this.depth = depth
  }

  parseScript(): void {
    this.parseList(false)
    if (this.pos < this.src.length) fail(`unbalanced "${this.src[this.pos]}"`)
    if (this.heredocs.length > 0) fail(`unterminated here-document (${this.heredocs[0]!.delimiter})`)
  }

  /** Parses commands and operators until the end, or until `)` when `inParens` (not consumed). */
  private parseList(inParens: boolean): void {
    // Operators need a command on their left (bash rejects `&& ls` and `; ls`); `&&`, `||`, `|`
    // also need one on their right.
    let sawCommand = false
    let expectCommand = false
    const operator = (text: string, needsRight: boolean) => {
      if (!sawCommand) fail(`unexpected "${text}"`)
      this.pos += text.length
      sawCommand = false
      expectCommand = needsRight
    }
    for (;;) {
      this.skipBlanks()
      const c = this.src[this.pos]
      if (c === undefined || c === ')') {
        if (c === ')' && !inParens) fail('unbalanced ")"')
        if (c === undefined && inParens) fail('missing ")"')
        if (expectCommand) fail('command ends with an operator')
        return
      }
      const next = this.src[this.pos + 1]
      if (c === '#') {
        this.skipComment()
      } else if (c === '\n') {
        this.pos++
        this.readHeredocBodies()
        if (!expectCommand) sawCommand = false
      } else if ((c === '&' && next === '&') || (c === '|' && next === '|')) {
        operator(`${c}${next}`, true)
      } else if (c === '|') {
        operator(next === '&' ? '|&' : '|', true)
      } else if (c === ';') {
        if (next === ';' || next === '&') fail('case clauses are not supported')
        operator(';', false)
      } else if (c === '&' && next !== '>') {
        operator('&', false)
      } else if (c === '(') {
        // `(( … ))` evaluates its expression; the splitter still reads it as subshells, for what it runs.
        const start = this.out.length
        const arithmetic = next === '(' && arithmeticHazard(this.src, this.pos + 2)
        this.parseSubshell()
        if (arithmetic) for (const part of this.out.slice(start)) part.evaluates ??= '(( … ))'
        sawCommand = true
        expectCommand = false
      } else {
        this.parseSimple()
        sawCommand = true
        expectCommand = false
      }
    }
  }

  private parseSubshell(): void {
    this.pos++
    const start = this.out.length
    this.enter()
    this.parseList(true)
    this.depth--
    if (this.src[this.pos] !== ')') fail('missing ")"')
    this.pos++
    if (this.out.length === start) fail('empty subshell "()"')
    const redirects: ShellRedirect[] = []
    for (;;) {
      this.skipBlanks()
      const redirect = this.tryRedirect()
      if (!redirect) break
      redirects.push(redirect)
    }
    const c = this.src[this.pos]
    if (c !== undefined && !'\n;&|)#'.includes(c)) fail('unexpected text after ")"')
    // Output redirection of a subshell applies to every command inside it.
    const writes = writesOf(redirects)
    for (const part of this.out.slice(start)) {
      part.redirects.push(...redirects)
      part.writes.push(...writes)
    }
  }

  private parseSimple(): void {
    const index = this.out.length
    const words: ShellWord[] = []
    const redirects: ShellRedirect[] = []
    let conditional = false
    for (;;) {
      this.skipBlanks()
      const c = this.src[this.pos]
      if (conditional) {
        conditional = this.readConditionalWord(words)
        continue
      }
      if (c === undefined || c === '\n' || c === ';' || c === '|' || c === ')') break
      if (c === '&' && this.src[this.pos + 1] !== '>') break
      if (c === '#') {
        this.skipComment()
        break
      }
      if (c === '(') fail('unexpected "("')
      const redirect = this.tryRedirect()
      if (redirect) {
        redirects.push(redirect)
        continue
      }
      const word = this.readWord()
      words.push(word)
      // `[[` opens a conditional expression only where a command starts: `&&`, `||`, `<`, `>`, `(` are its own.
      conditional = word.raw === '[[' && opensConditional(words.slice(0, -1))
    }
    if (words.length === 0 && redirects.length === 0) return
    // Keep the outer command ahead of the commands found inside its substitutions.
    this.out.splice(index, 0, {
      words,
      text: words.map((w) => w.value).join(' '),
      raw: words.map((w) => w.raw).join(' '),
      redirects,
      writes: writesOf(redirects),
      nested: this.nested || this.substitutionDepth > 0,
    })
  }

  /** One word of `[[ … ]]` (after `[[`); false once it read the closing `]]`. */
  private readConditionalWord(words: ShellWord[]): boolean {
    const c = this.src[this.pos]
    if (c === undefined) fail('missing "]]"')
    if (c === '\n' || c === ';' || c === '#' || (c === '&' && this.src[this.pos + 1] !== '&')) {
      fail('this form of "[[ … ]]" is not supported')
    }
    const processSubstitution = (c === '<' || c === '>') && this.src[this.pos + 1] === '('
    this.conditionalOperator.lastIndex = this.pos
    const operator = processSubstitution ? null : this.conditionalOperator.exec(this.src)
    if (operator) {
      this.pos += operator[0].length
      words.push({ value: operator[0], raw: operator[0], expands: false, glob: false })
      return true
    }
    const word = this.readWord()
    words.push(word)
    return word.raw !== ']]'
  }

  private tryRedirect(): ShellRedirect | null {
    this.redirectPattern.lastIndex = this.pos
    const m = this.redirectPattern.exec(this.src)
    if (!m) return null
    const fdText = m[1] ?? ''
    const op = m[2] ?? ''
    const after = this.src[this.pos + m[0].length]
    // `<(…)` / `>(…)` are process substitutions, read as words.
    if ((op === '<' || op === '>') && fdText === '' && after === '(') return null
    if (op.startsWith('&') && fdText !== '') return null
    this.pos += m[0].length
    this.skipBlanks()
    const c = this.src[this.pos]
    if (c === undefined || '\n;&|()<>'.includes(c)) fail(`redirection "${op}" has no target`)
    const target = this.readWord()
    if (op === '<<' || op === '<<-') {
      this.heredocs.push({
        delimiter: target.value,
        quoted: /['"\\]/.test(target.raw),
        stripTabs: op === '<<-',
        target,
      })
    }
    return { op, fd: fdText === '' ? null : Number(fdText), target }
  }

  private readHeredocBodies(): void {
    for (const doc of this.heredocs) {
      for (;;) {
        if (this.pos >= this.src.length) fail(`unterminated here-document (${doc.delimiter})`)
        let end = this.src.indexOf('\n', this.pos)
        if (end === -1) end = this.src.length
        const line = this.src.slice(this.pos, end)
        this.pos = Math.min(end + 1, this.src.length)
        if ((doc.stripTabs ? line.replace(/^\t+/, '') : line) === doc.delimiter) break
        // An unquoted here-document expands `$( )` and backticks; we do not parse those bodies.
        if (!doc.quoted && /\$\(|`/.test(line)) fail('here-document containing command substitution')
        if (!doc.quoted && expandedTextHazard(line)) doc.target.evaluates ??= line.trim()
      }
    }
    this.heredocs = []
  }

  private readWord(): ShellWord {
    const start = this.pos
    const b: WordBuilder = { value: '', unquoted: '', expands: false, glob: false }
    for (;;) {
      const c = this.src[this.pos]
      if (c === undefined) break
      if (WORD_END.has(c)) {
        const isProcessSubstitution = (c === '<' || c === '>') && this.src[this.pos + 1] === '('
        if (!(isProcessSubstitution && this.pos === start)) break
        this.readSubstitution(b, 2)
        continue
      }
      if (c === '\\') {
        const next = this.src[this.pos + 1]
        if (next === undefined) fail('command ends with a backslash')
        if (next !== '\n') b.value += next
        this.pos += 2
      } else if (c === "'") {
        const end = this.src.indexOf("'", this.pos + 1)
        if (end === -1) fail('unterminated single quote')
        b.value += this.src.slice(this.pos + 1, end)
        this.pos = end + 1
      } else if (c === '"') {
        this.readDoubleQuoted(b)
      } else if (c === '`') {
        this.readBackticks(b)
      } else if (c === '$') {
        this.readDollar(b, false)
      } else {
        if (c === '*' || c === '?' || c === '[') b.glob = true
        b.value += c
        b.unquoted += c
        this.pos++
      }
    }
    if (/\{[^}]*(,|\.\.)[^}]*\}/.test(b.unquoted)) b.glob = true
    const word: ShellWord = {
      value: b.value,
      raw: this.src.slice(start, this.pos),
      expands: b.expands,
      glob: b.glob,
    }
    if (b.evaluates !== undefined) word.evaluates = b.evaluates
    return word
  }

  private readDoubleQuoted(b: WordBuilder): void {
    this.pos++
    for (;;) {
      const c = this.src[this.pos]
      if (c === undefined) fail('unterminated double quote')
      if (c === '"') {
        this.pos++
        return
      }
      if (c === '\\') {
        const next = this.src[this.pos + 1]
        if (next !== undefined && '$`"\\\n'.includes(next)) {
          if (next !== '\n') b.value += next
          this.pos += 2
        } else {
          b.value += c
          this.pos++
        }
      } else if (c === '`') {
        this.readBackticks(b)
      } else if (c === '$') {
        this.readDollar(b, true)
      } else {
        b.value += c
        this.pos++
      }
    }
  }

  private readDollar(b: WordBuilder, inDouble: boolean): void {
    const next = this.src[this.pos + 1]
    if (next === '(' && this.src[this.pos + 2] === '(') {
      // `$(( … ))` of literals only is a number; any other evaluates names, and `$( (…) )` is read as commands.
      const end = arithmeticEnd(this.src, this.pos + 3)
      if (end !== -1 && isLiteralArithmetic(this.src.slice(this.pos + 3, end))) {
        b.value += this.src.slice(this.pos, end + 2)
        b.expands = true
        this.pos = end + 2
        return
      }
      b.evaluates ??= end === -1 ? '$((' : this.src.slice(this.pos, end + 2)
      this.readSubstitution(b, 2)
    } else if (next === '(') {
      this.readSubstitution(b, 2)
    } else if (next === '[' && this.literalBracket(b)) {
      return
    } else if (next === '{') {
      const start = this.pos
      let depth = 0
      for (let i = this.pos + 1; i < this.src.length; i++) {
        const c = this.src[i]
        if (c === '`' || (c === '$' && this.src[i + 1] === '(')) {
          fail('command substitution inside a parameter expansion is not supported')
        }
        if (c === '\\') i++
        else if (c === '{') depth++
        else if (c === '}' && --depth === 0) {
          this.pos = i + 1
          const expansion = this.src.slice(start, this.pos)
          b.value += expansion
          b.expands = true
          if (parameterHazard(expansion)) b.evaluates ??= expansion
          return
        }
      }
      fail('unterminated parameter expansion')
    } else if (next === "'" && !inDouble) {
      // ANSI-C quoting: escapes make the final text uncertain, so it counts as an expansion.
      let i = this.pos + 2
      while (i < this.src.length && this.src[i] !== "'") i += this.src[i] === '\\' ? 2 : 1
      if (i >= this.src.length) fail("unterminated $'…' quote")
      b.value += this.src.slice(this.pos + 2, i)
      b.expands = true
      this.pos = i + 1
    } else if (next === '"' && !inDouble) {
      this.pos++
      this.readDoubleQuoted(b)
    } else if (next !== undefined && /[A-Za-z_]/.test(next)) {
      const m = /[A-Za-z_][A-Za-z0-9_]*/y
      m.lastIndex = this.pos + 1
      const name = m.exec(this.src)?.[0] ?? ''
      b.value += `$${name}`
      b.expands = true
      this.pos += 1 + name.length
    } else if (next !== undefined && /[0-9?$!#*@-]/.test(next)) {
      b.value += `$${next}`
      b.expands = true
      this.pos += 2
    } else {
      b.value += '$'
      b.unquoted += '$'
      this.pos++
    }
  }

  /**
   * `$[ … ]`, the old `$(( ))`: of literals only it is consumed as a number (true); otherwise it is marked
   * as evaluating and left to the caller, which reads it as text so a `$( )` inside is still parsed.
   */
  private literalBracket(b: WordBuilder): boolean {
    const end = bracketEnd(this.src, this.pos + 2)
    if (end !== -1 && isLiteralArithmetic(this.src.slice(this.pos + 2, end))) {
      b.value += this.src.slice(this.pos, end + 1)
      b.expands = true
      this.pos = end + 1
      return true
    }
    b.evaluates ??= end === -1 ? '$[' : this.src.slice(this.pos, end + 1)
    return false
  }

  /** `$(…)`, `$((…))`, `<(…)`, `>(…)`: the inside is parsed as commands of its own. */
  private readSubstitution(b: WordBuilder, openerLength: number): void {
    const start = this.pos
    this.pos += openerLength
    this.enter()
    this.substitutionDepth++
    this.parseList(true)
    this.substitutionDepth--
    this.depth--
    if (this.src[this.pos] !== ')') fail('missing ")"')
    this.pos++
    b.value += this.src.slice(start, this.pos)
    b.expands = true
  }

  private readBackticks(b: WordBuilder): void {
    const start = this.pos
    this.pos++
    let inner = ''
    for (;;) {
      const c = this.src[this.pos]
      if (c === undefined) fail('unterminated backquote')
      const next = this.src[this.pos + 1]
      if (c === '\\' && next !== undefined && '`$\\'.includes(next)) {
        inner += next
        this.pos += 2
      } else if (c === '`') {
        this.pos++
        break
      } else {
        inner += c
        this.pos++
      }
    }
    new Parser(inner, this.out, true, this.depth + 1).parseScript()
    b.value += this.src.slice(start, this.pos)
    b.expands = true
  }

  private enter(): void {
    this.depth++
    if (this.depth > MAX_DEPTH) fail('command is nested too deeply')
  }

  private skipBlanks(): void {
    for (;;) {
      const c = this.src[this.pos]
      if (c !== undefined && BLANK.has(c)) this.pos++
      else if (c === '\\' && this.src[this.pos + 1] === '\n') this.pos += 2
      else return
    }
  }

  private skipComment(): void {
    const end = this.src.indexOf('\n', this.pos)
    this.pos = end === -1 ? this.src.length : end
  }
}

/**
 * Whether `[[` after these words is bash's keyword: only after reserved words (and `time -p`). Anywhere
 * else (`x [[ a || rm y ]]`) it is an argument, and `||` ends the command.
 */
function opensConditional(before: readonly ShellWord[]): boolean {
  return before.every(
    (w, i) => CONDITIONAL_LEADERS.has(w.raw) || (w.raw === '-p' && before[i - 1]?.raw === 'time'),
  )
}

function writesOf(redirects: readonly ShellRedirect[]): ShellWrite[] {
  const writes: ShellWrite[] = []
  for (const r of redirects) {
    const target = r.target.value
    const isWrite = WRITE_OPS.has(r.op) || (r.op === '>&' && !/^(\d+|-)$/.test(target))
    if (!isWrite || HARMLESS_TARGETS.has(target)) continue
    writes.push({ path: target, dynamic: r.target.expands || r.target.glob })
  }
  return writes
}
