import { type ShellPart, type ShellWord, splitShell } from './shell-split.js'

/**
 * The read-only command classifier: decides whether a shell command can run without consent because
 * it only reads. Pure. It errs towards "not read-only": an unknown command, an unknown form of a
 * known command, or anything it cannot parse is not read-only.
 */

/**
 * True only when every simple command in `command` is a known read-only command with safe
 * arguments and nothing is redirected into a file.
 */
export function isReadOnlyCommand(command: string): boolean {
  const split = splitShell(command)
  if (!split.ok || split.parts.length === 0) return false
  return split.parts.every((part) => part.writes.length === 0 && isReadOnlyPart(part))
}

/**
 * Whether the program a part runs only reads. Output redirections are NOT considered here (the
 * policy judges them as file writes); `isReadOnlyCommand` rejects them.
 */
export function isReadOnlyPart(part: ShellPart): boolean {
  const words = [...part.words]
  if (words[0]?.raw === '!') words.shift()
  while (words.length > 0 && isAssignment(words[0]!)) {
    if (DANGEROUS_VARIABLE.test(assignmentName(words[0]!))) return false
    words.shift()
  }
  const [command, ...args] = words
  // Only assignments (or nothing): sets shell variables of a throwaway shell.
  if (!command) return true
  if (command.expands || command.value.includes('/')) return false
  // Own properties only: `constructor` and friends must not resolve to Object.prototype members.
  if (!Object.hasOwn(CHECKS, command.value)) return false
  return CHECKS[command.value]!(args)
}

type Check = (args: ShellWord[]) => boolean

/** Variables that change which program runs or what it loads. */
const DANGEROUS_VARIABLE =
  /^(PATH|BASH_ENV|ENV|IFS|PS4|SHELLOPTS|BASHOPTS|PROMPT_COMMAND|PAGER|MANPAGER|GIT_PAGER|EDITOR|VISUAL|HOME|XDG_CONFIG_HOME|LESSOPEN|LESSCLOSE|LD_\w*|DYLD_\w*|GIT_\w*|NODE_OPTIONS|NPM_CONFIG_\w*|PYTHON\w*|PERL\w*|RUBY\w*)$/

function isAssignment(word: ShellWord): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(word.raw)
}

function assignmentName(word: ShellWord): string {
  return word.raw.slice(0, word.raw.indexOf('=')).replace(/\+$/, '')
}

const anyArgs: Check = () => true

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

const checkEnv: Check = (args) => args.length === 0

const checkPrintenv: Check = (args) => args.every((a) => !a.expands && !a.value.includes('='))

/**
 * `sed` only as a printer: `-n` required, no in-place editing, no script files, and every script
 * command from a small set (p, =, l, q, d, n, s///flags without w/e).
 */
const checkSed: Check = (args) => {
  let quiet = false
  const scripts: string[] = []
  const operands: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a.expands) return false
    const v = a.value
    if (v === '-e' || v === '--expression') {
      const script = args[++i]
      if (!script || script.expands) return false
      scripts.push(script.value)
    } else if (v.startsWith('--expression=')) scripts.push(v.slice('--expression='.length))
    else if (v === '-n' || v === '--quiet' || v === '--silent') quiet = true
    else if (['-E', '-r', '--regexp-extended', '-s', '--separate', '-z', '--null-data', '-u'].includes(v)) {
      // harmless options
    } else if (/^-[nErsuz]*e$/.test(v)) {
      if (v.includes('n')) quiet = true
      const script = args[++i]
      if (!script || script.expands) return false
      scripts.push(script.value)
    } else if (/^-[nErsuz]+$/.test(v)) {
      if (v.includes('n')) quiet = true
    } else if (v.startsWith('-') && v !== '-') return false
    else operands.push(v)
  }
  if (scripts.length === 0) {
    const script = operands.shift()
    if (script === undefined) return false
    scripts.push(script)
  }
  return quiet && scripts.every(isPrintOnlySedScript)
}

const SED_ADDRESS = String.raw`(?:\d+(?:~\d+)?|\$|/(?:[^/\\]|\\.)*/I?)`
const SED_COMMAND = new RegExp(
  String.raw`^\s*(?:${SED_ADDRESS}(?:\s*,\s*(?:${SED_ADDRESS}|[+~]\d+))?)?\s*!?\s*` +
    String.raw`(?:[p=lPdDnNgGhHxz]|[qQ]\d*|s(.)(?:(?!\1)[^\\\n]|\\.)*\1(?:(?!\1)[^\\\n]|\\.)*\1[gpiImM0-9]*)\s*$`,
)

function isPrintOnlySedScript(script: string): boolean {
  // Split on `;` / newlines outside regexes: good enough because a `;` inside a regex only makes a
  // command fail the pattern, which means "not read-only".
  return script
    .split(/[;\n]/)
    .filter((cmd) => cmd.trim() !== '')
    .every((cmd) => SED_COMMAND.test(cmd))
}

/** git subcommands that only read, whatever their options (checked for `--output` separately). */
const GIT_READERS = new Set([
  'status',
  'log',
  'diff',
  'show',
  'rev-parse',
  'ls-files',
  'ls-tree',
  'blame',
  'annotate',
  'describe',
  'shortlog',
  'cat-file',
  'merge-base',
  'rev-list',
  'show-ref',
  'for-each-ref',
  'name-rev',
  'count-objects',
  'whatchanged',
  'check-ignore',
  'diff-tree',
  'diff-files',
  'diff-index',
  'version',
])

const GIT_GLOBAL_FLAGS = new Set([
  '--no-pager',
  '-P',
  '--no-optional-locks',
  '--literal-pathspecs',
  '--no-replace-objects',
])
const GIT_GLOBAL_WITH_VALUE = new Set(['-C', '--git-dir', '--work-tree'])

const checkGit: Check = (args) => {
  let i = 0
  for (; i < args.length; i++) {
    const a = args[i]!
    if (a.expands) return false
    if (GIT_GLOBAL_FLAGS.has(a.value)) continue
    if (GIT_GLOBAL_WITH_VALUE.has(a.value)) {
      i++
      if (!args[i] || args[i]!.expands) return false
      continue
    }
    if (/^--(git-dir|work-tree)=/.test(a.value)) continue
    if (a.value === '--version' && args.length === 1) return true
    if (a.value.startsWith('-')) return false // -c, --exec-path=… and friends can run programs
    break
  }
  const sub = args[i]?.value
  const rest = args.slice(i + 1)
  const dashDash = rest.findIndex((a) => a.value === '--')
  const beforeDashDash = dashDash === -1 ? rest : rest.slice(0, dashDash)
  // `$VAR` could expand into `--output=…`; after `--` everything is a pathspec.
  if (beforeDashDash.some((a) => a.expands)) return false
  if (beforeDashDash.some((a) => /^--output(=|$)/.test(a.value))) return false
  if (sub === undefined) return false
  if (GIT_READERS.has(sub)) return true
  const flags = beforeDashDash.map((a) => a.value)
  const positional = flags.filter((v) => !v.startsWith('-'))
  switch (sub) {
    case 'grep':
      return !flags.some((v) => v === '-O' || v.startsWith('--open-files-in-pager') || /^-O/.test(v))
    case 'branch':
      return isGitListing(flags, BRANCH_LIST_FLAGS, BRANCH_FLAGS_WITH_VALUE)
    case 'tag':
      return isGitListing(flags, TAG_LIST_FLAGS, TAG_FLAGS_WITH_VALUE)
    case 'remote':
      return (
        flags.length === 0 ||
        (flags.length === 1 && ['-v', '--verbose'].includes(flags[0]!)) ||
        flags[0] === 'get-url'
      )
    case 'config':
      return isGitConfigRead(flags)
    case 'stash':
      return flags[0] === 'list' || flags[0] === 'show'
    case 'reflog':
      return !['expire', 'delete'].includes(positional[0] ?? '')
    case 'worktree':
      return flags[0] === 'list'
    default:
      return false
  }
}

const BRANCH_LIST_FLAGS = new Set([
  '-a',
  '--all',
  '-r',
  '--remotes',
  '-l',
  '--list',
  '-v',
  '-vv',
  '--verbose',
  '--show-current',
  '--no-color',
  '--color',
  '--no-column',
  '--column',
  '-i',
  '--ignore-case',
  '--omit-empty',
])
const BRANCH_FLAGS_WITH_VALUE = new Set([
  '--contains',
  '--no-contains',
  '--merged',
  '--no-merged',
  '--points-at',
  '--sort',
  '--format',
])
const TAG_LIST_FLAGS = new Set([
  '-l',
  '--list',
  '--no-color',
  '--color',
  '--column',
  '--no-column',
  '-i',
  '--ignore-case',
])
const TAG_FLAGS_WITH_VALUE = new Set([
  '--contains',
  '--no-contains',
  '--merged',
  '--no-merged',
  '--points-at',
  '--sort',
  '--format',
])

/**
 * `git branch` / `git tag` list when every flag is a listing flag; a bare name creates a ref unless
 * `--list`/`-l` makes it a pattern.
 */
function isGitListing(flags: string[], listFlags: Set<string>, withValue: Set<string>): boolean {
  let listing = false
  let names = 0
  for (let i = 0; i < flags.length; i++) {
    const v = flags[i]!
    const name = v.split('=')[0] ?? ''
    if (v === '-l' || v === '--list') listing = true
    if (listFlags.has(v) || (name !== v && withValue.has(name)) || /^-n\d*$/.test(v)) continue
    if (withValue.has(v)) {
      i++
      continue
    }
    if (v.startsWith('-')) return false
    names++
  }
  return names === 0 || listing
}

const GIT_CONFIG_READ_FLAGS = new Set([
  '--get',
  '--get-all',
  '--get-regexp',
  '--get-urlmatch',
  '--list',
  '-l',
])
const GIT_CONFIG_HARMLESS = new Set([
  '--global',
  '--system',
  '--local',
  '--worktree',
  '--show-origin',
  '--show-scope',
  '--name-only',
  '-z',
  '--null',
  '--bool',
  '--int',
  '--path',
  '--includes',
  '--no-includes',
])

function isGitConfigRead(flags: string[]): boolean {
  let reads = flags[0] === 'get' || flags[0] === 'list'
  let operands = 0
  for (let i = reads ? 1 : 0; i < flags.length; i++) {
    const v = flags[i]!
    if (GIT_CONFIG_READ_FLAGS.has(v)) reads = true
    else if (v === '-f' || v === '--file' || v === '--blob' || v === '--default') i++
    else if (GIT_CONFIG_HARMLESS.has(v) || /^--(type|file|blob|default)=/.test(v)) continue
    else if (v.startsWith('-')) return false
    else operands++
  }
  return reads && operands <= 2
}

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

function subcommands(readers: readonly string[], versionFlags: readonly string[] = ['--version']): Check {
  return (args) => {
    if (args.some((a) => a.expands)) return false
    const sub = args[0]?.value ?? ''
    if (versionFlags.includes(sub)) return args.length === 1
    return readers.includes(sub)
  }
}

/** Tools allowed only to print their version: exactly one of the given arguments. */
function versionOnly(flags: readonly string[]): Check {
  return (args) => args.length === 1 && !args[0]!.expands && flags.includes(args[0]!.value)
}

const CHECKS: Readonly<Record<string, Check>> = {
  ls: anyArgs,
  cat: anyArgs,
  head: anyArgs,
  tail: anyArgs,
  wc: anyArgs,
  pwd: anyArgs,
  cd: anyArgs,
  echo: anyArgs,
  printf: anyArgs,
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
  env: checkEnv,
  printenv: checkPrintenv,
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
  jq: anyArgs,
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
  pnpm: subcommands(['ls', 'list', 'outdated', 'why']),
  yarn: subcommands(['list', 'info', 'why'], ['--version', '-v']),
  node: versionOnly(['--version', '-v']),
  npx: versionOnly(['--version', '-v']),
  python: versionOnly(['--version', '-V']),
  python3: versionOnly(['--version', '-V']),
  pip: versionOnly(['--version', '-V']),
  pip3: versionOnly(['--version', '-V']),
  tsc: versionOnly(['--version', '-v']),
  deno: versionOnly(['--version', '-V']),
  bun: versionOnly(['--version', '-v']),
  cargo: versionOnly(['--version', '-V']),
  rustc: versionOnly(['--version', '-V']),
  go: versionOnly(['version']),
  java: versionOnly(['-version', '--version']),
  make: versionOnly(['--version']),
  gcc: versionOnly(['--version']),
  clang: versionOnly(['--version']),
  docker: versionOnly(['--version']),
  bash: versionOnly(['--version']),
}
