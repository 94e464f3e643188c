import { checkGit } from './classifier-git.js'
import { checkSed } from './classifier-sed.js'
import { type ShellPart, type ShellWord, splitShell } from './shell-split.js'
import { type ShellCommand, unwrapPart } from './shell-unwrap.js'

/**
 * The read-only command classifier: decides whether a shell command can run without consent because
 * it only reads. Pure. It errs towards "not read-only": an unknown command, an unknown form of a
 * known command, or anything it cannot parse is not read-only.
 */

/** A command's simple commands and the programs each runs, as `analyzeCommand` gives them. */
export type AnalyzedParts =
  | { ok: true; parts: ReadonlyArray<{ part: ShellPart; commands: readonly ShellCommand[] }> }
  | { ok: false }

/**
 * True only when every simple command in `command` is a known read-only command with safe
 * arguments and nothing is redirected into a file. Reads `analysis` (the command's one parse, which the
 * gate carries on the target) when it is given, else splits the command itself.
 */
export function isReadOnlyCommand(command: string, analysis?: AnalyzedParts): boolean {
  if (secretVariableIn(command) !== undefined) return false
  if (analysis) {
    if (!analysis.ok || analysis.parts.length === 0) return false
    return analysis.parts.every(
      ({ part, commands }) => part.writes.length === 0 && commands.every(isReadOnlyProgram),
    )
  }
  const split = splitShell(command)
  if (!split.ok || split.parts.length === 0) return false
  return split.parts.every((part) => part.writes.length === 0 && isReadOnlyPart(part))
}

/**
 * Whether every program a part runs only reads, seen through wrappers (`timeout 5 cat x` reads;
 * `env rm x`, `xargs cat` and `sudo ls` do not count). Output redirections of the part itself are NOT
 * considered here (the policy judges them as file writes); `isReadOnlyCommand` rejects them.
 */
export function isReadOnlyPart(part: ShellPart): boolean {
  return unwrapPart(part).every(isReadOnlyProgram)
}

/** Whether one unwrapped program only reads: a known reader, with arguments that keep it one. */
export function isReadOnlyProgram(command: ShellCommand): boolean {
  if (command.unknown !== undefined || !command.readOnlyWrappers || command.openArgs) return false
  // `x=$(cat VERSION); [[ $x -eq 1 ]]` runs what a file holds (shell-arithmetic.ts).
  if (command.evaluates !== undefined) return false
  // Redirections inside an inner script (`bash -c 'ls > f'`) and `time -o FILE` write files.
  if (command.writes.length > 0 || command.wrapperWrites.length > 0) return false
  if (!command.assignments.every((a) => harmlessVariable(assignmentName(a)))) return false
  const [program, ...args] = command.words
  // Only assignments (or nothing): sets shell variables of a throwaway shell.
  if (!program) return true
  if (program.value.includes('/')) return false
  // Own properties only: `constructor` and friends must not resolve to Object.prototype members.
  if (!Object.hasOwn(CHECKS, program.value)) return false
  return CHECKS[program.value]!(args)
}

type Check = (args: ShellWord[]) => boolean

/** Names of variables that often hold a secret (API keys, tokens, passwords). */
const SECRET_VARIABLE = /KEY|TOKEN|SECRET|PASSW|CRED|AUTH|COOKIE|PRIVATE/i

/**
 * The first variable a command expands that may hold a secret (`$OPENAI_API_KEY`, `${GITHUB_TOKEN}`,
 * an indirect `${!name}`), anywhere in its text — heredoc bodies and `<<<` included. Printing the
 * environment is not read-only (`printenv`), so neither is `echo $OPENAI_API_KEY`. Quoting is not
 * looked at: a `'$TOKEN'` that would not expand only costs a prompt.
 */
export function secretVariableIn(command: string): string | undefined {
  for (const match of command.matchAll(/\$\{?(!?)([A-Za-z_][A-Za-z0-9_]*)/g)) {
    if (match[1] === '!') return `\${!${match[2]}}`
    if (SECRET_VARIABLE.test(match[2]!)) return `$${match[2]}`
  }
  return undefined
}

/** jq reads the environment with `env` and `$ENV`. */
const checkJq: Check = (args) => !args.some((a) => a.expands || /\$ENV\b|\benv\b/.test(a.value))

/**
 * Variables a reader stays a reader with: display, locale and time. Any other upper-case name may be one
 * the program reads (RIPGREP_CONFIG_PATH points rg at a config whose `--pre` runs a program, CDPATH
 * sends `cd` elsewhere, PAGER, LD_PRELOAD and GIT_* run programs), and a list of the dangerous ones is
 * never complete. Lower-case names are the shell's own, except those programs read (proxies, npm's).
 */
const HARMLESS_VARIABLE =
  /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|COLUMNS|LINES|TERM|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE)$/
const READ_BY_PROGRAMS = /(^|_)proxy$|^(npm|yarn|pnpm)_config_/i

function harmlessVariable(name: string): boolean {
  return /[a-z]/.test(name) ? !READ_BY_PROGRAMS.test(name) : HARMLESS_VARIABLE.test(name)
}

function assignmentName(word: ShellWord): string {
  return word.raw.slice(0, word.raw.indexOf('=')).replace(/\+$/, '')
}

const anyArgs: Check = () => true

/** `printf -v NAME` assigns a variable, so NAME must be one a reader stays a reader with (like `NAME=…`). */
const checkPrintf: Check = (args) => {
  const first = args[0]?.value ?? ''
  if (!first.startsWith('-v')) return true
  const name = first === '-v' ? args[1]?.value : first.slice(2)
  return name !== undefined && harmlessVariable(name)
}

/** Options before `--` (getopt style). */
function options(args: ShellWord[]): ShellWord[] {
  const end = args.findIndex((a) => a.value === '--')
  return (end === -1 ? args : args.slice(0, end)).filter((a) => a.value.startsWith('-'))
}

/**
 * Rejects any of `long` (also as `--opt=value`) and any short-option cluster containing one of
 * `shortLetters`, plus words whose text is only known at run time.
 */
function forbid(long: readonly string[], shortLetters = ''): Check {
  return (args) => {
    if (args.some((a) => a.expands)) return false
    return options(args).every((a) => {
      const name = a.value.split('=')[0] ?? ''
      if (long.includes(name)) return false
      if (a.value.startsWith('--') || shortLetters === '') return true
      return ![...a.value.slice(1)].some((ch) => shortLetters.includes(ch))
    })
  }
}

/** Static words only, and at most `max` operands (extra operands would be output files). */
function maxOperands(max: number, optionsWithValue: readonly string[] = []): Check {
  return (args) => {
    let operands = 0
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!
      if (a.expands || a.glob) return false
      if (optionsWithValue.includes(a.value)) i++
      else if (!a.value.startsWith('-') || a.value === '-') operands++
    }
    return operands <= max
  }
}

const FIND_ACTIONS = [
  '-exec',
  '-execdir',
  '-ok',
  '-okdir',
  '-delete',
  '-fprint',
  '-fprint0',
  '-fprintf',
  '-fls',
]

const checkFind: Check = (args) => !args.some((a) => a.expands || FIND_ACTIONS.includes(a.value))

const checkDate: Check = (args) => {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a.expands || a.glob) return false
    if (['-d', '--date', '-r', '--reference', '-f', '--file'].includes(a.value)) i++
    else if (a.value.startsWith('+') || a.value.startsWith('-I')) continue
    else if (a.value.startsWith('--')) {
      if (a.value.startsWith('--set')) return false
    } else if (a.value.startsWith('-')) {
      if (a.value.includes('s')) return false
    } else return false // a bare operand sets the clock
  }
  return true
}

const checkHostname: Check = (args) =>
  args.every(
    (a) => !a.expands && a.value.startsWith('-') && !['-F', '--file', '-b', '--boot'].includes(a.value),
  )

/** `command -v NAME` / `command -V NAME` only look a name up (other forms are unwrapped before). */
const checkCommand: Check = (args) =>
  args.length > 0 && args.every((a) => !a.expands) && args.some((a) => a.value === '-v' || a.value === '-V')

const NPM_READERS = new Set([
  'ls',
  'list',
  'la',
  'll',
  'view',
  'info',
  'show',
  'v',
  'outdated',
  'explain',
  'why',
  'root',
  'prefix',
])

const checkNpm: Check = (args) => {
  if (args.some((a) => a.expands)) return false
  const [sub, ...rest] = args.map((a) => a.value)
  if (sub === undefined) return false
  if (['--version', '-v', 'version'].includes(sub)) return rest.length === 0
  if (NPM_READERS.has(sub)) return true
  if (sub === 'config' || sub === 'c') return ['get', 'list', 'ls'].includes(rest[0] ?? '')
  return false
}

/** Tools allowed only to print their version: exactly one of the given arguments. */
function versionOnly(flags: readonly string[]): Check {
  return (args) => args.length === 1 && !args[0]!.expands && flags.includes(args[0]!.value)
}

/**
 * Not here, though they look like readers: yarn, pnpm, cargo and rustc. Their launchers run what the
 * repository names (yarn's `yarnPath`, corepack's `packageManager`, rustup's `rust-toolchain.toml`
 * `path`), even for `--version`.
 */
const CHECKS: Readonly<Record<string, Check>> = {
  ls: anyArgs,
  cat: anyArgs,
  head: anyArgs,
  tail: anyArgs,
  wc: anyArgs,
  pwd: anyArgs,
  cd: anyArgs,
  echo: anyArgs,
  printf: checkPrintf,
  grep: anyArgs,
  egrep: anyArgs,
  fgrep: anyArgs,
  rg: forbid(['--pre']),
  ag: forbid(['--pager']),
  find: checkFind,
  tree: forbid(['--output'], 'oR'),
  file: forbid(['--compile'], 'C'),
  stat: anyArgs,
  du: anyArgs,
  df: anyArgs,
  which: anyArgs,
  type: anyArgs,
  whereis: anyArgs,
  basename: anyArgs,
  dirname: anyArgs,
  realpath: anyArgs,
  readlink: anyArgs,
  date: checkDate,
  command: checkCommand,
  uname: anyArgs,
  whoami: anyArgs,
  id: anyArgs,
  hostname: checkHostname,
  sort: forbid(['--output', '--compress-program'], 'o'),
  uniq: maxOperands(1, ['-f', '-s', '-w', '--skip-fields', '--skip-chars', '--check-chars']),
  cut: anyArgs,
  tr: anyArgs,
  diff: anyArgs,
  cmp: anyArgs,
  comm: anyArgs,
  jq: checkJq,
  column: anyArgs,
  nl: anyArgs,
  tac: anyArgs,
  rev: anyArgs,
  paste: anyArgs,
  seq: anyArgs,
  nproc: anyArgs,
  md5sum: anyArgs,
  sha1sum: anyArgs,
  sha256sum: anyArgs,
  sha512sum: anyArgs,
  cksum: anyArgs,
  true: anyArgs,
  false: anyArgs,
  test: anyArgs,
  '[': anyArgs,
  '[[': anyArgs,
  sed: checkSed,
  git: checkGit,
  npm: checkNpm,
  node: versionOnly(['--version', '-v']),
  npx: versionOnly(['--version', '-v']),
  python: versionOnly(['--version', '-V']),
  python3: versionOnly(['--version', '-V']),
  pip: versionOnly(['--version', '-V']),
  pip3: versionOnly(['--version', '-V']),
  tsc: versionOnly(['--version', '-v']),
  deno: versionOnly(['--version', '-V']),
  bun: versionOnly(['--version', '-v']),
  go: versionOnly(['version']),
  java: versionOnly(['-version', '--version']),
  make: versionOnly(['--version']),
  gcc: versionOnly(['--version']),
  clang: versionOnly(['--version']),
  docker: versionOnly(['--version']),
  bash: versionOnly(['--version']),
}
