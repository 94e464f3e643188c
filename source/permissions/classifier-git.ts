import type { ShellWord } from './shell-split.js'

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
const GIT_GLOBAL_WITH_VALUE = new Set(['-C'])

/**
 * `git` for the read-only command classifier: safe global options (`-C dir`, `--no-pager`; never
 * `-c`, which can run programs, nor `--git-dir`/`--work-tree`, which point git at a config of the
 * caller's choosing — an embedded bare repository's `core.fsmonitor` runs on `status`), then a reading
 * subcommand in a reading form (`branch` only lists, `config` only gets, `stash list`, no `--output`).
 * `-C dir` into such a repository is stopped by the Bash tool's `safe.bareRepository=explicit`.
 */
export function checkGit(args: ShellWord[]): boolean {
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
  // A submodule's diff is made under the submodule's own config, whose drivers nothing has looked at.
  if (beforeDashDash.some((a) => a.value === '--submodule=diff')) return false
  if (sub === undefined) return false
  if (GIT_READERS.has(sub)) return true
  const flags = beforeDashDash.map((a) => a.value)
  const positional = flags.filter((v) => !v.startsWith('-'))
  switch (sub) {
    case 'grep':
      // `-O`/`--open-files-in-pager` runs a program on every matching file. git takes any unambiguous
      // prefix of a long option (`--open=sh`; only this one starts `--op`) and bundled short options
      // (`-nOsh` runs `sh` on each file that matched): any of them, anywhere in a bundle, is refused.
      return !flags.some((v) => /^--op/.test(v) || (/^-[^-]/.test(v) && v.includes('O')))
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
// `git tag --list` filters take the same valued flags as `git branch --list`.
const TAG_FLAGS_WITH_VALUE = BRANCH_FLAGS_WITH_VALUE

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
