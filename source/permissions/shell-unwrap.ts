import {
  type ShellPart,
  type ShellRedirect,
  type ShellWord,
  type ShellWrite,
  splitShell,
} from './shell-split.js'

/**
 * Sees through command wrappers: `timeout 5 rm x`, `env -i rm x`, `bash -c 'rm x'`, `eval "rm x"`,
 * `xargs rm`, `/bin/rm x` all run `rm`, so deny rules, write targets and the read-only classifier must
 * judge `rm`. Pure. A program whose name is only known when it runs (`$RM x`, `$(echo rm) x`, a shell
 * reading its script from stdin) comes back as unknown; callers must never treat it as harmless.
 */

/** One program a simple command runs, wrappers and assignments peeled off. */
export interface ShellCommand {
  /** Program and arguments as written; empty when the command only assigns variables or ends a block. */
  words: ShellWord[]
  /** The program for rules: the base name of a path (`/bin/rm` → `rm`). Undefined when unknown or empty. */
  name: string | undefined
  /** Why the program is unknown (`$RM x`), if it is. */
  unknown?: string
  /** `VAR=value` words before the program (the shell's and `env`'s). */
  assignments: ShellWord[]
  /** Wrappers peeled off, outermost first (`timeout`, `bash -c`). */
  wrappers: string[]
  /** Only wrappers that run the program as written, in the same environment (timeout, nice, bash -c…). */
  plain: boolean
  /** Every wrapper peeled off keeps a read-only program read-only (not sudo, xargs, watch…). */
  readOnlyWrappers: boolean
  /** More arguments arrive when it runs (xargs, find -exec's `{}`). */
  openArgs: boolean
  /** Redirections of an inner script's simple command (an outer command's stay on its ShellPart). */
  redirects: ShellRedirect[]
  writes: ShellWrite[]
  /** Files a wrapper itself writes (`time -o FILE`). */
  wrapperWrites: ShellWord[]
  /** Directory a wrapper switches to before running it (`env -C DIR`, `sudo -D DIR`). */
  chdir?: ShellWord
}

const MAX_DEPTH = 8

/** Shell reserved words that may start a simple command as the splitter sees it (`then rm x`). */
const LEADING_KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', '{'])
/** Words that end a block and run nothing. */
const CLOSERS = new Set(['fi', 'done', 'esac', '}'])
/** Loop headers: `for x in a b`, `select x in …` run nothing themselves. */
const HEADERS = new Set(['for', 'select'])

/** The programs `part` runs, outermost wrapper peeled first. Never empty. */
export function unwrapPart(part: ShellPart): ShellCommand[] {
  return unwrapWords(part.words, start(), 0)
}

interface Acc {
  assignments: ShellWord[]
  wrappers: string[]
  plain: boolean
  readOnlyWrappers: boolean
  openArgs: boolean
  redirects: ShellRedirect[]
  writes: ShellWrite[]
  wrapperWrites: ShellWord[]
  chdir?: ShellWord
}

function start(): Acc {
  return {
    assignments: [],
    wrappers: [],
    plain: true,
    readOnlyWrappers: true,
    openArgs: false,
    redirects: [],
    writes: [],
    wrapperWrites: [],
  }
}

function finish(acc: Acc, words: ShellWord[], name: string | undefined, unknown?: string): ShellCommand {
  const command: ShellCommand = {
    words,
    name,
    assignments: acc.assignments,
    wrappers: acc.wrappers,
    plain: acc.plain,
    readOnlyWrappers: acc.readOnlyWrappers,
    openArgs: acc.openArgs,
    redirects: acc.redirects,
    writes: acc.writes,
    wrapperWrites: acc.wrapperWrites,
  }
  if (unknown !== undefined) command.unknown = unknown
  if (acc.chdir) command.chdir = acc.chdir
  return command
}

export function isAssignment(word: ShellWord): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(word.raw)
}

/** `/usr/bin/env` → `env`; quotes and backslashes are already gone from `value`. */
export function programName(word: ShellWord): string {
  const value = word.value
  const slash = value.lastIndexOf('/')
  return slash === -1 ? value : value.slice(slash + 1)
}

function unwrapWords(input: ShellWord[], acc: Acc, depth: number): ShellCommand[] {
  let words = input
  while (words.length > 0 && LEADING_KEYWORDS.has(words[0]!.raw)) words = words.slice(1)
  if (words.length === 1 && CLOSERS.has(words[0]!.raw)) return [finish(acc, [], undefined)]
  if (words.length > 0 && HEADERS.has(words[0]!.raw)) return [finish(acc, [], undefined)]
  let i = 0
  while (i < words.length && isAssignment(words[i]!)) acc.assignments.push(words[i++]!)
  const rest = words.slice(i)
  const program = rest[0]
  if (!program) return [finish(acc, [], undefined)]
  // `[` and `[[` are names, not globs.
  if (program.expands || (program.glob && !/^\[\[?$/.test(program.value)) || program.value === '') {
    return [finish(acc, rest, undefined, 'its name is only known when it runs')]
  }
  const name = programName(program)
  if (depth >= MAX_DEPTH) return [finish(acc, rest, undefined, 'it is wrapped too deeply to check')]
  const peel = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name]! : undefined
  if (name === 'find') return unwrapFind(rest, acc, depth)
  if (!peel) return [finish(acc, rest, name)]
  const peeled = peel(rest.slice(1))
  switch (peeled.kind) {
    case 'self':
      return [finish(acc, rest, name)]
    case 'unknown':
      return [finish(acc, rest, undefined, peeled.reason)]
    case 'run': {
      acc.wrappers.push(name)
      if (!PLAIN_WRAPPERS.has(name) || peeled.changesEnvironment) acc.plain = false
      if (!READ_ONLY_WRAPPERS.has(name)) acc.readOnlyWrappers = false
      if (peeled.openArgs) acc.openArgs = true
      if (peeled.chdir) acc.chdir = peeled.chdir
      if (peeled.writes) acc.wrapperWrites.push(...peeled.writes)
      if (peeled.assignments) acc.assignments.push(...peeled.assignments)
      return unwrapWords(peeled.rest, acc, depth + 1)
    }
    case 'script': {
      acc.wrappers.push(`${name}${peeled.flag ? ` ${peeled.flag}` : ''}`)
      if (!PLAIN_WRAPPERS.has(name)) acc.plain = false
      if (!READ_ONLY_WRAPPERS.has(name)) acc.readOnlyWrappers = false
      return unwrapScript(peeled.script, acc, depth)
    }
  }
}

/** Parses a script given as text (`bash -c '…'`, `eval …`) and unwraps each of its simple commands. */
function unwrapScript(script: string, acc: Acc, depth: number): ShellCommand[] {
  const split = splitShell(script)
  if (!split.ok) return [finish(acc, [], undefined, `its script cannot be checked (${split.reason})`)]
  if (split.parts.length === 0) return [finish(acc, [], undefined)]
  return split.parts.flatMap((inner) => {
    const copy: Acc = {
      ...acc,
      assignments: [...acc.assignments],
      wrappers: [...acc.wrappers],
      redirects: inner.redirects,
      writes: inner.writes,
      wrapperWrites: [...acc.wrapperWrites],
    }
    return unwrapWords(inner.words, copy, depth + 1)
  })
}

/** `find … -exec CMD {} ;` runs CMD for every file found: CMD is a command of its own. */
function unwrapFind(words: ShellWord[], acc: Acc, depth: number): ShellCommand[] {
  const inner: ShellCommand[] = []
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!
    if (i > 0 && ['-exec', '-execdir', '-ok', '-okdir'].includes(w.value)) {
      let end = i + 1
      while (end < words.length && words[end]!.value !== ';' && words[end]!.value !== '+') end++
      // `{}` stands for each file found: a name only known when it runs.
      const command = words
        .slice(i + 1, end)
        .map((x) => (x.value.includes('{}') ? { ...x, expands: true } : x))
      const copy: Acc = { ...start(), assignments: [...acc.assignments], wrappers: [...acc.wrappers, 'find'] }
      copy.plain = false
      copy.readOnlyWrappers = false
      copy.openArgs = true
      inner.push(...unwrapWords(command, copy, depth + 1))
      i = end
    }
  }
  return [finish(acc, words, 'find'), ...inner]
}

type Peeled =
  | { kind: 'self' }
  | { kind: 'unknown'; reason: string }
  | { kind: 'script'; script: string; flag?: string }
  | {
      kind: 'run'
      rest: ShellWord[]
      changesEnvironment?: boolean
      openArgs?: boolean
      chdir?: ShellWord
      writes?: ShellWord[]
      assignments?: ShellWord[]
    }

type Peel = (args: ShellWord[]) => Peeled

/** Wrappers that run the program with its arguments and environment as written. */
const PLAIN_WRAPPERS = new Set([
  'command',
  'builtin',
  'exec',
  'nohup',
  'time',
  'nice',
  'timeout',
  'stdbuf',
  'setsid',
  'ionice',
  'env',
  'bash',
  'sh',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'ash',
  'eval',
])
/** Wrappers after which a read-only program still only reads. */
const READ_ONLY_WRAPPERS = new Set([...PLAIN_WRAPPERS])

interface OptionSpec {
  /** Short option letters that take a value (`-n 5`, `-n5`). */
  short?: string
  /** Long options that take a value (`--signal KILL`, `--signal=KILL`). */
  long?: readonly string[]
}

interface ParsedOptions {
  /** Index of the first operand. */
  index: number
  /** Options seen with their values (flags get an empty word). Short clusters are split per letter. */
  seen: Map<string, ShellWord[]>
  /** An option was only known at run time (`$OPTS`). */
  dynamic: boolean
}

const EMPTY: ShellWord = { value: '', raw: '', expands: false, glob: false }

/** A word made of the tail of another (`-n5` → `5`, `--output=f` → `f`). */
function tailOf(word: ShellWord, from: number): ShellWord {
  const value = word.value.slice(from)
  return { value, raw: value, expands: word.expands, glob: word.glob }
}

/** getopt-style parsing up to the first operand (or after `--`). */
export function parseOptions(args: ShellWord[], spec: OptionSpec): ParsedOptions {
  const seen = new Map<string, ShellWord[]>()
  const add = (name: string, value: ShellWord) => seen.set(name, [...(seen.get(name) ?? []), value])
  let i = 0
  for (; i < args.length; i++) {
    const w = args[i]!
    const v = w.value
    if (v === '--') return { index: i + 1, seen, dynamic: false }
    if (!v.startsWith('-') || v === '-') break
    if (w.expands) return { index: i, seen, dynamic: true }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=')
      const name = eq === -1 ? v : v.slice(0, eq)
      if (eq !== -1) add(name, tailOf(w, eq + 1))
      else if (spec.long?.includes(name)) add(name, args[++i] ?? EMPTY)
      else add(name, EMPTY)
      continue
    }
    for (let j = 1; j < v.length; j++) {
      const letter = v[j]!
      if (spec.short?.includes(letter)) {
        add(`-${letter}`, j + 1 < v.length ? tailOf(w, j + 1) : (args[++i] ?? EMPTY))
        break
      }
      add(`-${letter}`, EMPTY)
    }
  }
  // An unquoted `$N` given as an option's value may split into several words, one of them the program.
  const dynamic = [...seen.values()].some((values) => values.some((value) => value.expands))
  return { index: i, seen, dynamic }
}

const has = (parsed: ParsedOptions, ...names: string[]) => names.some((n) => parsed.seen.has(n))

function simple(
  spec: OptionSpec,
  extra?: (parsed: ParsedOptions, args: ShellWord[]) => Peeled | undefined,
): Peel {
  return (args) => {
    const parsed = parseOptions(args, spec)
    if (parsed.dynamic) return { kind: 'unknown', reason: 'its options are only known when it runs' }
    const special = extra?.(parsed, args)
    if (special) return special
    const rest = args.slice(parsed.index)
    return rest.length === 0 ? { kind: 'self' } : { kind: 'run', rest }
  }
}

const peelTimeout: Peel = (args) => {
  const parsed = parseOptions(args, { short: 'sk', long: ['--signal', '--kill-after'] })
  if (parsed.dynamic) return { kind: 'unknown', reason: 'its options are only known when it runs' }
  if (args[parsed.index]?.expands)
    return { kind: 'unknown', reason: 'its duration is only known when it runs' }
  const rest = args.slice(parsed.index + 1) // after the duration
  return rest.length === 0 ? { kind: 'self' } : { kind: 'run', rest }
}

const peelNice: Peel = (args) => {
  // `nice -5 cmd` and `nice --10 cmd` are adjustments, not options.
  const skip = args[0] && /^--?\d+$/.test(args[0].value) ? 1 : 0
  const parsed = parseOptions(args.slice(skip), { short: 'n', long: ['--adjustment'] })
  if (parsed.dynamic) return { kind: 'unknown', reason: 'its options are only known when it runs' }
  const rest = args.slice(skip + parsed.index)
  return rest.length === 0 ? { kind: 'self' } : { kind: 'run', rest }
}

const peelTime: Peel = (args) => {
  const parsed = parseOptions(args, { short: 'fo', long: ['--format', '--output'] })
  if (parsed.dynamic) return { kind: 'unknown', reason: 'its options are only known when it runs' }
  const rest = args.slice(parsed.index)
  if (rest.length === 0) return { kind: 'self' }
  const writes = [...(parsed.seen.get('-o') ?? []), ...(parsed.seen.get('--output') ?? [])]
  return { kind: 'run', rest, ...(writes.length > 0 ? { writes } : {}) }
}

const peelEnv: Peel = (args) => {
  const parsed = parseOptions(args, { short: 'uCS', long: ['--unset', '--chdir', '--split-string'] })
  if (parsed.dynamic) return { kind: 'unknown', reason: 'its options are only known when it runs' }
  let i = parsed.index
  const assignments: ShellWord[] = []
  while (i < args.length && isAssignment(args[i]!)) assignments.push(args[i++]!)
  const split = [...(parsed.seen.get('-S') ?? []), ...(parsed.seen.get('--split-string') ?? [])]
  if (split.length > 0) {
    const words = [...split, ...args.slice(i)]
    return scriptOf(words.map((w) => w.value).join(' '), words, '-S')
  }
  const rest = args.slice(i)
  // Bare `env` (or with only assignments) prints the environment.
  if (rest.length === 0) return { kind: 'self' }
  const chdir = parsed.seen.get('-C')?.[0] ?? parsed.seen.get('--chdir')?.[0]
  return {
    kind: 'run',
    rest,
    changesEnvironment: assignments.length > 0 || parsed.seen.size > 0,
    assignments,
    ...(chdir ? { chdir } : {}),
  }
}

const peelCommand: Peel = (args) => {
  const parsed = parseOptions(args, {})
  if (parsed.dynamic) return { kind: 'unknown', reason: 'its options are only known when it runs' }
  // `command -v rm` only looks the name up.
  if (has(parsed, '-v', '-V')) return { kind: 'self' }
  const rest = args.slice(parsed.index)
  return rest.length === 0 ? { kind: 'self' } : { kind: 'run', rest }
}

const peelExec: Peel = (args) => {
  const parsed = parseOptions(args, { short: 'a' })
  if (parsed.dynamic) return { kind: 'unknown', reason: 'its options are only known when it runs' }
  const rest = args.slice(parsed.index)
  if (rest.length === 0) return { kind: 'self' }
  return { kind: 'run', rest, changesEnvironment: has(parsed, '-a', '-c') }
}

const peelXargs: Peel = (args) => {
  const parsed = parseOptions(args, {
    short: 'adEILnPs',
    long: [
      '--arg-file',
      '--delimiter',
      '--eof',
      '--replace',
      '--max-lines',
      '--max-args',
      '--max-procs',
      '--max-chars',
      '--process-slot-var',
    ],
  })
  if (parsed.dynamic) return { kind: 'unknown', reason: 'its options are only known when it runs' }
  const rest = args.slice(parsed.index)
  // Without a command xargs runs `echo`.
  if (rest.length === 0) return { kind: 'self' }
  return { kind: 'run', rest, openArgs: true }
}

const peelSudo: Peel = (args) => {
  const parsed = parseOptions(args, {
    short: 'ugCDhprtUTR',
    long: [
      '--user',
      '--group',
      '--close-from',
      '--chdir',
      '--host',
      '--prompt',
      '--role',
      '--type',
      '--other-user',
      '--command-timeout',
      '--chroot',
    ],
  })
  if (parsed.dynamic) return { kind: 'unknown', reason: 'its options are only known when it runs' }
  let i = parsed.index
  const assignments: ShellWord[] = []
  while (i < args.length && isAssignment(args[i]!)) assignments.push(args[i++]!)
  const rest = args.slice(i)
  if (has(parsed, '-e', '--edit')) {
    // sudoedit: the operands are files it writes.
    const sudoedit: ShellWord = { value: 'sudoedit', raw: 'sudoedit', expands: false, glob: false }
    return { kind: 'run', rest: [sudoedit, ...rest], changesEnvironment: true }
  }
  if (rest.length === 0) return { kind: 'self' }
  const chdir = parsed.seen.get('-D')?.[0] ?? parsed.seen.get('--chdir')?.[0]
  return { kind: 'run', rest, changesEnvironment: true, assignments, ...(chdir ? { chdir } : {}) }
}

const peelDoas: Peel = (args) => {
  const parsed = parseOptions(args, { short: 'uC' })
  if (parsed.dynamic) return { kind: 'unknown', reason: 'its options are only known when it runs' }
  const rest = args.slice(parsed.index)
  if (rest.length === 0 || has(parsed, '-C')) return { kind: 'self' }
  return { kind: 'run', rest, changesEnvironment: true }
}

const peelSu: Peel = (args) => {
  const parsed = parseOptions(args, {
    short: 'csgGw',
    long: ['--command', '--shell', '--group', '--supp-group', '--whitelist-environment'],
  })
  if (parsed.dynamic) return { kind: 'unknown', reason: 'its options are only known when it runs' }
  const command = parsed.seen.get('-c')?.[0] ?? parsed.seen.get('--command')?.[0]
  if (command) return scriptOf(command.value, [command], '-c')
  return { kind: 'self' }
}

/** `bash -c SCRIPT`, `sh -ec SCRIPT`…; a shell reading its script from stdin is unknown. */
const peelShell: Peel = (args) => {
  let i = 0
  let script = false
  let stdin = false
  for (; i < args.length; i++) {
    const w = args[i]!
    const v = w.value
    if (w.expands) return { kind: 'unknown', reason: 'its options are only known when it runs' }
    if (v === '--' || v === '-') {
      i++
      break
    }
    if (v === '--rcfile' || v === '--init-file') {
      i++
      continue
    }
    if (v.startsWith('--')) {
      if (v === '--version' || v === '--help') return { kind: 'self' }
      continue
    }
    if (!/^[-+][A-Za-z]+$/.test(v)) break
    if (v.startsWith('-') && v.includes('c')) script = true
    if (v.startsWith('-') && v.includes('s')) stdin = true
    // -o / -O (and +o / +O) take an option name.
    if (/[oO]$/.test(v)) i++
  }
  const operand = args[i]
  if (script) {
    if (!operand) return { kind: 'self' }
    return scriptOf(operand.value, [operand], '-c')
  }
  if (operand && !stdin) return { kind: 'self' } // runs a script file
  return { kind: 'unknown', reason: 'the shell reads its commands from standard input' }
}

function scriptOf(text: string, words: ShellWord[], flag?: string): Peeled {
  if (words.some((w) => w.expands))
    return { kind: 'unknown', reason: 'its script is only known when it runs' }
  return flag === undefined ? { kind: 'script', script: text } : { kind: 'script', script: text, flag }
}

const peelEval: Peel = (args) => {
  if (args.length === 0) return { kind: 'self' }
  return scriptOf(args.map((a) => a.value).join(' '), args)
}

const peelWatch: Peel = (args) => {
  const parsed = parseOptions(args, { short: 'nq', long: ['--interval', '--equexit'] })
  if (parsed.dynamic) return { kind: 'unknown', reason: 'its options are only known when it runs' }
  const rest = args.slice(parsed.index)
  if (rest.length === 0) return { kind: 'self' }
  if (has(parsed, '-x', '--exec')) return { kind: 'run', rest }
  return scriptOf(rest.map((a) => a.value).join(' '), rest)
}

const SHELLS = ['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash']

const WRAPPERS: Readonly<Record<string, Peel>> = {
  command: peelCommand,
  builtin: simple({}),
  exec: peelExec,
  nohup: simple({}),
  time: peelTime,
  nice: peelNice,
  timeout: peelTimeout,
  stdbuf: simple({ short: 'ioe', long: ['--input', '--output', '--error'] }),
  setsid: simple({}),
  ionice: simple({ short: 'cnp', long: ['--class', '--classdata', '--pid', '--pgid', '--uid'] }, (parsed) =>
    has(parsed, '-p', '-P', '-u', '--pid', '--pgid', '--uid') ? { kind: 'self' } : undefined,
  ),
  env: peelEnv,
  xargs: peelXargs,
  sudo: peelSudo,
  doas: peelDoas,
  su: peelSu,
  eval: peelEval,
  watch: peelWatch,
  ...Object.fromEntries(SHELLS.map((shell) => [shell, peelShell])),
}

/** Whether `name` is one of the wrappers this module sees through. */
export function isWrapper(name: string): boolean {
  return Object.hasOwn(WRAPPERS, name) || name === 'find'
}
