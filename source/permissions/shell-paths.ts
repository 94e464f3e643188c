import type { ShellWord } from './shell-split.js'
import type { ShellCommand } from './shell-unwrap.js'

/**
 * Which arguments of a program are files it writes or reads, so protected paths and the read boundary
 * hold for shell commands too (SPEC §7). Pure and deliberately generous: a word taken for a path that
 * is not one resolves inside the current directory and changes nothing, while a path taken for an
 * option value would slip through, so only options known to take a value skip their value.
 */

export interface PathArg {
  role: 'read' | 'write'
  word: ShellWord
}

interface Scan {
  operands: ShellWord[]
  /** Values of the options listed as taking one, by option name (`-t`, `--target-directory`). */
  values: Map<string, ShellWord[]>
  /** Flags and options seen, by name (short clusters split per letter). */
  flags: Set<string>
  /** An option word whose text is only known at run time (`$FLAGS`): it could be anything. */
  dynamic: boolean
}

interface Spec {
  /** Short option letters taking a value. */
  short?: string
  /** Long options taking a value (also accepted as `--name=value`). */
  long?: readonly string[]
}

/** Options and operands in GNU style: options may follow operands; `--` ends options. */
function scan(args: readonly ShellWord[], spec: Spec = {}): Scan {
  const result: Scan = { operands: [], values: new Map(), flags: new Set(), dynamic: false }
  const add = (name: string, value: ShellWord) => {
    result.flags.add(name)
    result.values.set(name, [...(result.values.get(name) ?? []), value])
  }
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!
    const v = w.value
    if (v === '--') {
      result.operands.push(...args.slice(i + 1))
      break
    }
    if (!v.startsWith('-') || v === '-') {
      result.operands.push(w)
      continue
    }
    if (w.expands) result.dynamic = true
    if (v.startsWith('--')) {
      const eq = v.indexOf('=')
      const name = eq === -1 ? v : v.slice(0, eq)
      if (eq !== -1) add(name, tail(w, eq + 1))
      else if (spec.long?.includes(name) && args[i + 1]) add(name, args[++i]!)
      else result.flags.add(name)
      continue
    }
    for (let j = 1; j < v.length; j++) {
      const letter = `-${v[j]}`
      if (spec.short?.includes(v[j]!)) {
        const value = j + 1 < v.length ? tail(w, j + 1) : args[i + 1]
        if (j + 1 >= v.length) i++
        if (value) add(letter, value)
        break
      }
      result.flags.add(letter)
    }
  }
  return result
}

function tail(word: ShellWord, from: number): ShellWord {
  const value = word.value.slice(from)
  return { value, raw: value, expands: word.expands, glob: word.glob }
}

const valuesOf = (s: Scan, ...names: string[]) => names.flatMap((n) => s.values.get(n) ?? [])
const writes = (words: readonly ShellWord[]): PathArg[] => words.map((word) => ({ role: 'write', word }))
const reads = (words: readonly ShellWord[]): PathArg[] => words.map((word) => ({ role: 'read', word }))
/** A write whose target is only known at run time. */
const UNKNOWN_WORD: ShellWord = {
  value: '$?',
  raw: '(an option only known when it runs)',
  expands: true,
  glob: false,
}

type Extract = (args: ShellWord[]) => PathArg[]

/** Every operand is written (removed, created, changed), plus the listed options' values. */
function allOperands(spec: Spec, writtenOptions: readonly string[] = []): Extract {
  return (args) => {
    const s = scan(args, spec)
    return [
      ...writes(s.operands),
      ...writes(valuesOf(s, ...writtenOptions)),
      ...(s.dynamic ? writes([UNKNOWN_WORD]) : []),
    ]
  }
}

/** cp / install / rsync / ln: the last operand (or `-t DIR`) is written, the others are read. */
function copyLike(spec: Spec, opts: { sourcesRead: boolean; remote?: boolean }): Extract {
  return (args) => {
    const s = scan(args, {
      ...spec,
      short: `${spec.short ?? ''}t`,
      long: [...(spec.long ?? []), '--target-directory'],
    })
    const local = opts.remote ? s.operands.filter((w) => !/^[^/]*:/.test(w.value)) : s.operands
    const out: PathArg[] = s.dynamic ? writes([UNKNOWN_WORD]) : []
    const target = valuesOf(s, '-t', '--target-directory')
    if (s.flags.has('-d') && spec === INSTALL) return [...out, ...writes(local)]
    if (target.length > 0) return [...out, ...writes(target), ...(opts.sourcesRead ? reads(local) : [])]
    if (local.length === 0) return out
    if (s.operands.length === 1 && !opts.sourcesRead) {
      // `ln -s ../x` creates a link named after the target in the current directory.
      const only = local[0]!
      const name = only.value.replace(/\/+$/, '').split('/').pop() ?? only.value
      return [...out, { role: 'write', word: { ...only, value: name, raw: only.raw } }]
    }
    const last = s.operands.at(-1)!
    const dest = local.includes(last) ? writes([last]) : []
    const sources = local.filter((w) => w !== last)
    return [...out, ...dest, ...(opts.sourcesRead ? reads(sources) : [])]
  }
}

const INSTALL: Spec = { short: 'mogS', long: ['--mode', '--owner', '--group', '--suffix'] }

const sedWrites: Extract = (args) => {
  const s = scan(args, { short: 'efl', long: ['--expression', '--file', '--line-length'] })
  const inPlace = args.some((a) => /^-[^-]*i/.test(a.value) || a.value.startsWith('--in-place'))
  if (!inPlace) return []
  const scripted =
    s.flags.has('-e') || s.flags.has('-f') || s.flags.has('--expression') || s.flags.has('--file')
  const files = scripted ? s.operands : s.operands.slice(1)
  return [...writes(files), ...(s.dynamic ? writes([UNKNOWN_WORD]) : [])]
}

const ddPaths: Extract = (args) =>
  args.flatMap((a): PathArg[] => {
    if (a.value.startsWith('of=')) return writes([tail(a, 3)])
    if (a.value.startsWith('if=')) return reads([tail(a, 3)])
    return []
  })

const sortWrites: Extract = (args) => {
  const s = scan(args, {
    short: 'ktSTo',
    long: ['--key', '--field-separator', '--buffer-size', '--temporary-directory', '--output'],
  })
  return writes(valuesOf(s, '-o', '--output'))
}

const curlPaths: Extract = (args) => {
  const s = scan(args, {
    short: 'oTdFKcDbHAeuxXwrmYyzCEQ',
    long: [
      '--output',
      '--output-dir',
      '--upload-file',
      '--data',
      '--data-binary',
      '--data-urlencode',
      '--form',
      '--config',
      '--cookie-jar',
      '--dump-header',
      '--trace',
      '--trace-ascii',
      '--stderr',
      '--libcurl',
      '--cookie',
    ],
  })
  const uploaded = valuesOf(s, '-d', '--data', '--data-binary', '--data-urlencode', '-F', '--form')
    .map((w) => ({ w, at: w.value.search(/[@<][^@<]*$/) }))
    .filter(({ at }) => at !== -1)
    .map(({ w, at }) => tail(w, at + 1))
  return [
    ...writes(
      valuesOf(
        s,
        '-o',
        '--output',
        '--output-dir',
        '-c',
        '--cookie-jar',
        '-D',
        '--dump-header',
        '--trace',
        '--trace-ascii',
        '--stderr',
        '--libcurl',
      ),
    ),
    ...reads([...valuesOf(s, '-T', '--upload-file', '-K', '--config'), ...uploaded]),
  ]
}

const wgetPaths: Extract = (args) => {
  const s = scan(args, {
    short: 'OoaPiTtwUeQlAR',
    long: [
      '--output-document',
      '--output-file',
      '--append-output',
      '--directory-prefix',
      '--input-file',
      '--post-file',
      '--body-file',
      '--load-cookies',
      '--save-cookies',
    ],
  })
  return [
    ...writes(
      valuesOf(
        s,
        '-O',
        '--output-document',
        '-o',
        '--output-file',
        '-a',
        '--append-output',
        '-P',
        '--directory-prefix',
        '--save-cookies',
      ),
    ),
    ...reads(valuesOf(s, '-i', '--input-file', '--post-file', '--body-file', '--load-cookies')),
  ]
}

/** tar: the archive it creates, or the directory it extracts into (entries themselves are unknown). */
const tarWrites: Extract = (args) => {
  const first = args[0]?.value ?? ''
  const oldStyle = first !== '' && !first.startsWith('-')
  const rest = oldStyle ? args.slice(1) : args
  const s = scan(rest, {
    short: 'fCbHKLNTVXg',
    long: ['--file', '--directory', '--exclude', '--files-from', '--exclude-from', '--format'],
  })
  const letters = oldStyle
    ? first
    : [...s.flags]
        .filter((f) => /^-.$/.test(f))
        .map((f) => f[1])
        .join('')
  let archive = valuesOf(s, '-f', '--file')
  if (oldStyle && first.includes('f') && s.operands[0]) archive = [s.operands[0]]
  const creates =
    /[cruA]/.test(letters) ||
    ['--create', '--append', '--update', '--concatenate', '--delete'].some((f) => s.flags.has(f))
  const extracts = /x/.test(letters) || s.flags.has('--extract') || s.flags.has('--get')
  const dirs = valuesOf(s, '-C', '--directory')
  return [...(creates ? writes(archive) : []), ...(extracts ? writes(dirs) : [])]
}

const unzipWrites: Extract = (args) => {
  const s = scan(args, { short: 'dx' })
  return writes(valuesOf(s, '-d'))
}

const WRITERS: Readonly<Record<string, Extract>> = {
  rm: allOperands({}),
  rmdir: allOperands({}),
  unlink: allOperands({}),
  shred: allOperands({ short: 'ns', long: ['--iterations', '--size', '--random-source'] }),
  touch: allOperands({ short: 'dtr', long: ['--date', '--reference'] }),
  mkdir: allOperands({ short: 'm', long: ['--mode'] }),
  mkfifo: allOperands({ short: 'm', long: ['--mode'] }),
  mknod: allOperands({ short: 'm', long: ['--mode'] }),
  truncate: allOperands({ short: 'sr', long: ['--size', '--reference'] }),
  chmod: allOperands({}),
  chown: allOperands({}),
  chgrp: allOperands({}),
  chattr: allOperands({}),
  tee: allOperands({}),
  mv: allOperands({ short: 'tS', long: ['--target-directory', '--suffix'] }, ['-t', '--target-directory']),
  sudoedit: allOperands({}),
  cp: copyLike({ short: 'S', long: ['--suffix'] }, { sourcesRead: true }),
  install: copyLike(INSTALL, { sourcesRead: true }),
  rsync: copyLike(
    {
      short: 'efTB',
      long: [
        '--rsh',
        '--filter',
        '--temp-dir',
        '--backup-dir',
        '--exclude',
        '--include',
        '--log-file',
        '--partial-dir',
      ],
    },
    { sourcesRead: true, remote: true },
  ),
  scp: copyLike({ short: 'cFiJloPS' }, { sourcesRead: true, remote: true }),
  ln: copyLike({ short: 'S', long: ['--suffix'] }, { sourcesRead: false }),
  dd: ddPaths,
  sed: sedWrites,
  sort: sortWrites,
  curl: curlPaths,
  wget: wgetPaths,
  tar: tarWrites,
  unzip: unzipWrites,
}

/** Files a program writes (and, for copies and uploads, reads), as its arguments name them. */
export function argumentPaths(command: ShellCommand): PathArg[] {
  const [program, ...args] = command.words
  const name = command.name
  const out: PathArg[] = writes(command.wrapperWrites)
  if (!program || name === undefined) return out
  if (name === 'git') return [...out, ...gitWrites(args)]
  const extract = Object.hasOwn(WRITERS, name) ? WRITERS[name] : undefined
  return extract ? [...out, ...extract(args)] : out
}

const word = (value: string): ShellWord => ({ value, raw: value, expands: false, glob: false })

const GIT_VALUE_OPTIONS = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path'])

/**
 * git commands that rewrite the repository's config or hooks (`git config`, `git remote add`,
 * `git submodule add`, `git branch -u`, `git lfs install`…) write `.git/config` / `.git/hooks`;
 * `git config --global` writes `~/.gitconfig`.
 */
function gitWrites(args: ShellWord[]): PathArg[] {
  let i = 0
  let base = ''
  for (; i < args.length; i++) {
    const v = args[i]!.value
    if (GIT_VALUE_OPTIONS.has(v)) {
      if (v === '-C') base = args[i + 1]?.expands ? '$?' : `${args[i + 1]?.value ?? '.'}/`
      i++
      continue
    }
    if (!v.startsWith('-')) break
  }
  const sub = args[i]?.value
  const rest = args.slice(i + 1)
  const flags = rest.map((a) => a.value)
  const repo = (file: string): PathArg[] =>
    base === '$?' ? writes([UNKNOWN_WORD]) : writes([{ ...word(`${base}.git/${file}`), raw: `.git/${file}` }])
  switch (sub) {
    case 'config':
      return gitConfigWrites(rest, repo)
    case 'remote':
      return ['add', 'set-url', 'rename', 'remove', 'rm', 'set-head', 'set-branches'].includes(flags[0] ?? '')
        ? repo('config')
        : []
    case 'submodule':
      return ['add', 'init', 'deinit', 'set-url', 'set-branch', 'sync', 'update', 'absorbgitdirs'].includes(
        flags.find((f) => !f.startsWith('-')) ?? '',
      )
        ? repo('config')
        : []
    case 'branch':
    case 'checkout':
    case 'switch':
    case 'push':
      return flags.some((f) =>
        /^(-u|--set-upstream-to(=.*)?|--set-upstream|--unset-upstream|--edit-description|-t|--track(=.*)?)$/.test(
          f,
        ),
      )
        ? repo('config')
        : []
    case 'init':
    case 'clone':
      return flags.some((f) => /^(--template|--separate-git-dir)(=|$)/.test(f))
        ? repo('hooks')
        : cloneDest(sub, rest)
    case 'lfs':
      return ['install', 'uninstall', 'update'].includes(flags[0] ?? '') ? repo('hooks') : []
    case 'flow':
      return flags[0] === 'init' ? repo('config') : []
    case 'maintenance':
      return ['register', 'start', 'unregister', 'stop'].includes(flags[0] ?? '')
        ? writes([word('~/.gitconfig')])
        : []
    case 'worktree':
      return flags[0] === 'add'
        ? writes(
            rest
              .slice(1)
              .filter((a) => !a.value.startsWith('-'))
              .slice(0, 1),
          )
        : []
    default:
      return []
  }
}

function cloneDest(sub: string, rest: ShellWord[]): PathArg[] {
  if (sub !== 'clone') return []
  const operands = scan(rest, {
    short: 'obucj',
    long: ['--origin', '--branch', '--upload-pack', '--config', '--depth', '--reference', '--jobs'],
  }).operands
  return operands.length >= 2 ? writes([operands.at(-1)!]) : []
}

function gitConfigWrites(rest: ShellWord[], repo: (file: string) => PathArg[]): PathArg[] {
  const flags = rest.map((a) => a.value)
  const reading =
    flags.some((f) => /^(--get|--get-all|--get-regexp|--get-urlmatch|--list|-l|--show-origin)$/.test(f)) ||
    ['get', 'list'].includes(flags.find((f) => !f.startsWith('-')) ?? '')
  if (reading) return []
  const fileIndex = flags.findIndex((f) => f === '-f' || f === '--file')
  if (fileIndex !== -1 && rest[fileIndex + 1]) return writes([rest[fileIndex + 1]!])
  const inline = rest.find((a) => a.value.startsWith('--file='))
  if (inline) return writes([tail(inline, '--file='.length)])
  if (flags.includes('--global')) return writes([word('~/.gitconfig')])
  if (flags.includes('--system')) return writes([word('/etc/gitconfig')])
  return repo('config')
}

export { scan as scanArguments }
