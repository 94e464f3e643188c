import { followOption } from './shell-follow.js'
import { scanArguments } from './shell-options.js'
import type { PathArg } from './shell-paths.js'
import type { ShellWord } from './shell-split.js'
import type { ShellCommand } from './shell-unwrap.js'

/**
 * Which arguments of a read-only program are files it reads, for the read boundary (docs/permissions.md#reads-have-a-boundary-too: a
 * read-only command whose paths lie outside the workspace or are secrets asks). Pure. Generous like
 * shell-paths.ts: a pattern or number taken for a path resolves inside the current directory and
 * changes nothing.
 */

type Extract = (args: ShellWord[]) => ShellWord[]

const none: Extract = () => []

/** Every operand, plus the values of the listed options that name files. */
function operands(short = '', long: readonly string[] = [], fileOptions: readonly string[] = []): Extract {
  return (args) => {
    const s = scanArguments(args, { short, long })
    return [...s.operands, ...fileOptions.flatMap((o) => s.values.get(o) ?? []), ...pathLikeValues(s.values)]
  }
}

/** `--opt=/some/path` values of options not listed: taken as paths when they look like one. */
function pathLikeValues(values: Map<string, ShellWord[]>): ShellWord[] {
  return [...values.entries()]
    .filter(([name]) => name.startsWith('--'))
    .flatMap(([, words]) => words)
    .filter((w) => /^(~|\.|\/)/.test(w.value))
}

/** grep-like: the first operand is the pattern unless one came with -e / -f. */
function patternFirst(
  short: string,
  long: readonly string[],
  patternOptions: readonly string[],
  files: readonly string[],
): Extract {
  return (args) => {
    const s = scanArguments(args, { short, long })
    const given = patternOptions.some((o) => s.flags.has(o)) || s.flags.has('--files')
    return [
      ...(given ? s.operands : s.operands.slice(1)),
      ...files.flatMap((o) => s.values.get(o) ?? []),
      ...pathLikeValues(s.values),
    ]
  }
}

const GREP = patternFirst(
  'efmABCdDX',
  [
    '--regexp',
    '--file',
    '--max-count',
    '--after-context',
    '--before-context',
    '--context',
    '--label',
    '--devices',
    '--directories',
  ],
  ['-e', '-f', '--regexp', '--file'],
  ['-f', '--file'],
)

const RG = patternFirst(
  'efgtTmABCjMdrE',
  [
    '--regexp',
    '--file',
    '--glob',
    '--iglob',
    '--type',
    '--type-not',
    '--max-count',
    '--after-context',
    '--before-context',
    '--context',
    '--threads',
    '--max-columns',
    '--max-depth',
    '--replace',
    '--encoding',
    '--ignore-file',
    '--sort',
    '--sortr',
  ],
  ['-e', '-f', '--regexp', '--file'],
  ['-f', '--file', '--ignore-file'],
)

const SED = patternFirst(
  'efl',
  ['--expression', '--file', '--line-length'],
  ['-e', '-f', '--expression', '--file'],
  ['-f', '--file'],
)

/** jq FILTER FILES…; `--arg NAME VALUE` and friends take two words. */
const JQ: Extract = (args) => {
  const out: ShellWord[] = []
  let filterGiven = false
  let filterSeen = false
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value
    if (['--arg', '--argjson'].includes(v)) i += 2
    else if (['--slurpfile', '--rawfile'].includes(v)) {
      if (args[i + 2]) out.push(args[i + 2]!)
      i += 2
    } else if (['-f', '--from-file'].includes(v)) {
      if (args[i + 1]) out.push(args[i + 1]!)
      filterGiven = true
      i++
    } else if (['--indent', '-L', '--tab-width'].includes(v)) i++
    else if (v.startsWith('-') && v !== '-') continue
    else if (!filterGiven && !filterSeen) filterSeen = true
    else out.push(args[i]!)
  }
  return out
}

/** find: the starting points before the first expression word (none = the current directory). */
const FIND: Extract = (args) => {
  const out: ShellWord[] = []
  let expression = false
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value
    if (/^[-(!),]/.test(v) && v !== '-') {
      expression = true
      if (['-newer', '-anewer', '-cnewer', '-samefile', '-files0-from'].includes(v) && args[i + 1])
        out.push(args[++i]!)
    } else if (!expression) out.push(args[i]!)
  }
  return out
}

/**
 * git reading commands: `-C`/`--git-dir`/`--work-tree`, operands (paths of `REV:path` too), and the files
 * options name in their `--option=FILE` form (the separate form's FILE is an operand here).
 */
const GIT: Extract = (args) => {
  const out: ShellWord[] = []
  let i = 0
  for (; i < args.length; i++) {
    const w = args[i]!
    if (['-C', '--git-dir', '--work-tree'].includes(w.value)) {
      if (args[i + 1]) out.push(args[i + 1]!)
      i++
    } else if (/^--(git-dir|work-tree)=/.test(w.value)) {
      out.push({ ...w, value: w.value.slice(w.value.indexOf('=') + 1) })
    } else if (!w.value.startsWith('-')) break
  }
  for (const w of args.slice(i + 1)) {
    // `git config --file=F --list`, `git blame --contents=F` print F; `--ignore-revs-file=F` quotes it.
    // git takes any unambiguous prefix of a long option (`--conten=F` is `--contents=F`) and a short
    // option's value attached (`-SF`): every `--opt=` value is taken for a path, and an attached value
    // that looks like one (a value that is not resolves inside the folder and changes nothing).
    const valued = /^--[^=]+=(.+)$/.exec(w.value) ?? /^-[^-][^~./]*([~./].*)$/.exec(w.value)
    if (valued) out.push({ ...w, value: valued[1]! })
    if (w.value.startsWith('-')) continue
    const colon = w.value.lastIndexOf(':')
    out.push(colon === -1 ? w : { ...w, value: w.value.slice(colon + 1) })
  }
  return out
}

const DATE: Extract = (args) => {
  const s = scanArguments(args, { short: 'dfr', long: ['--date', '--file', '--reference'] })
  return ['-f', '-r', '--file', '--reference'].flatMap((o) => s.values.get(o) ?? [])
}

const READERS: Readonly<Record<string, Extract>> = {
  ls: operands('ITw', ['--ignore', '--hide', '--tabsize', '--width', '--format', '--sort', '--time-style']),
  cat: operands(),
  head: operands('nc', ['--lines', '--bytes']),
  tail: operands('ncs', ['--lines', '--bytes', '--sleep-interval', '--pid', '--max-unchanged-stats']),
  wc: operands('', [], ['--files0-from']),
  nl: operands('bdfhilnsvw'),
  tac: operands('s', ['--separator']),
  rev: operands(),
  paste: operands('d', ['--delimiters']),
  md5sum: operands(),
  sha1sum: operands(),
  sha256sum: operands(),
  sha512sum: operands(),
  cksum: operands(),
  column: operands('csoNRtW'),
  diff: operands(
    'UCIxXFLW',
    ['--unified', '--context', '--label'],
    ['-X', '--exclude-from', '--from-file', '--to-file'],
  ),
  cmp: operands('in', ['--ignore-initial', '--bytes']),
  comm: operands(),
  file: operands(
    'mefF',
    ['--magic-file', '--exclude', '--files-from', '--separator'],
    ['-f', '--files-from', '-m', '--magic-file'],
  ),
  stat: operands('c', ['--format', '--printf']),
  du: operands(
    'dBtX',
    ['--max-depth', '--block-size', '--threshold', '--exclude-from'],
    ['-X', '--exclude-from'],
  ),
  df: operands('Bt', ['--block-size', '--type', '--exclude-type', '--output']),
  tree: operands('LIPo', ['--filelimit', '--timefmt', '--charset']),
  realpath: operands(),
  readlink: operands(),
  sort: operands(
    'ktST',
    ['--key', '--field-separator', '--buffer-size', '--temporary-directory'],
    ['--files0-from'],
  ),
  uniq: operands('fsw', ['--skip-fields', '--skip-chars', '--check-chars']),
  cut: operands('dfcb', ['--delimiter', '--fields', '--characters', '--bytes', '--output-delimiter']),
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  rg: RG,
  ag: patternFirst(
    'GmABCg',
    ['--file-search-regex', '--max-count', '--ignore', '--path-to-ignore'],
    [],
    ['--path-to-ignore'],
  ),
  sed: SED,
  jq: JQ,
  find: FIND,
  git: GIT,
  date: DATE,
  tr: none,
}

/**
 * Files a read-only program reads, as its arguments name them. Programs without paths (echo, pwd,
 * which…) and programs not listed give none: a program that is not a known reader is not read-only,
 * so it asks anyway.
 */
export function readPaths(command: ShellCommand): PathArg[] {
  const [, ...args] = command.words
  const name = command.name
  if (name === undefined) return []
  const extract = Object.hasOwn(READERS, name) ? READERS[name]! : none
  const paths: PathArg[] = extract(args).map((word) => ({ role: 'read', word }))
  // Where links lead below its folders is only known when it runs: a read of a path not known yet.
  const follows = followOption(name, args)
  if (follows === undefined) return paths
  const word = `${follows} (follows every symlink below)`
  return [...paths, { role: 'read', word: { value: word, raw: word, expands: true, glob: false } }]
}
