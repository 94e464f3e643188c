import { gitWrites } from './shell-git.js'
import { type PathArg, reads, UNKNOWN_WORD, writes } from './shell-path-args.js'
import { type OptionSpec, scanArguments as scan, tailOf as tail, valuesOf } from './shell-options.js'
import type { ShellWord } from './shell-split.js'
import type { ShellCommand } from './shell-unwrap.js'

export type { PathArg } from './shell-path-args.js'

/**
 * Which arguments of a program are files it writes or reads, so protected paths and the read boundary
 * hold for shell commands too (docs/permissions.md#protected-paths-beat-allow-rules). Pure and deliberately generous: a word taken for a path that
 * is not one resolves inside the current directory and changes nothing, while a path taken for an
 * option value would slip through, so only options known to take a value skip their value.
 */

type Extract = (args: ShellWord[]) => PathArg[]
type Spec = OptionSpec

/**
 * Every operand is written (removed, created, changed), plus the listed options' values. With one of
 * `recursiveFlags`, everything below the operands too.
 */
function allOperands(
  spec: Spec,
  writtenOptions: readonly string[] = [],
  recursiveFlags: readonly string[] = [],
): Extract {
  return (args) => {
    const s = scan(args, spec)
    const recursive = recursiveFlags.some((f) => s.flags.has(f))
    return [
      ...writes(s.operands).map((arg) => (recursive ? { ...arg, recursive } : arg)),
      ...writes(valuesOf(s, ...writtenOptions)),
      ...(s.dynamic ? writes([UNKNOWN_WORD]) : []),
    ]
  }
}

/** `find … -delete` removes what it finds below its starting points (`.` when none are given). */
const findWrites: Extract = (args) => {
  if (!args.some((a) => a.value === '-delete')) return []
  const roots = args.slice(
    0,
    Math.max(
      0,
      args.findIndex((a) => /^[-(!),]/.test(a.value) && a.value !== '-'),
    ),
  )
  const dot: ShellWord = { value: '.', raw: '.', expands: false, glob: false }
  return writes(roots.length > 0 ? roots : [dot]).map((arg) => ({ ...arg, recursive: true }))
}

/**
 * cp / install / rsync / ln: the last operand (or `-t DIR`) is written, the others are read. A link —
 * `ln`, `cp -l`/`-s` — makes another name for its source: what is later written or read through it
 * lands there, perhaps in the same command (`ln -s .env e && echo x > e`, judged before `e` exists),
 * so a linked source is judged as written and read, from where the link is made for a symlink.
 */
function copyLike(
  spec: Spec,
  opts: { sourcesRead: boolean; remote?: boolean; links?: 'always' | 'with-flag' },
): Extract {
  return (args) => {
    const s = scan(args, {
      ...spec,
      short: `${spec.short ?? ''}t`,
      long: [...(spec.long ?? []), '--target-directory'],
    })
    const local = opts.remote ? s.operands.filter((w) => !/^[^/]*:/.test(w.value)) : s.operands
    const out: PathArg[] = s.dynamic ? writes([UNKNOWN_WORD]) : []
    const target = valuesOf(s, '-t', '--target-directory')
    const symbolic = s.flags.has('-s') || s.flags.has('--symbolic') || s.flags.has('--symbolic-link')
    const links =
      opts.links === 'always' ||
      (opts.links === 'with-flag' && (symbolic || s.flags.has('-l') || s.flags.has('--link')))
    /** A linked source, from each place the link may be made in (`made` undefined: the cwd). */
    const linked = (sources: ShellWord[], made: PathArg['relativeTo']): PathArg[] =>
      links
        ? sources.flatMap((word) => {
            const where = symbolic && made ? { relativeTo: made } : {}
            return [
              { role: 'write', word, ...where },
              { role: 'read', word, ...where },
            ] satisfies PathArg[]
          })
        : []
    if (s.flags.has('-d') && spec === INSTALL) return [...out, ...writes(local)]
    if (target.length > 0) {
      const inDir = target.map((word) => ({ word, parent: false }))
      return [...out, ...writes(target), ...(opts.sourcesRead ? reads(local) : []), ...linked(local, inDir)]
    }
    if (local.length === 0) return out
    if (s.operands.length === 1 && !opts.sourcesRead) {
      // `ln -s ../x` creates a link named after the target in the current directory.
      const only = local[0]!
      const name = only.value.replace(/\/+$/, '').split('/').pop() ?? only.value
      return [
        ...out,
        { role: 'write', word: { ...only, value: name, raw: only.raw } },
        ...linked([only], undefined),
      ]
    }
    const last = s.operands.at(-1)!
    const dest = local.includes(last) ? writes([last]) : []
    const sources = local.filter((w) => w !== last)
    const made = [
      { word: last, parent: true },
      { word: last, parent: false },
    ]
    return [...out, ...dest, ...(opts.sourcesRead ? reads(sources) : []), ...linked(sources, made)]
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

/**
 * perl / ruby: with `-i[suffix]` the files after the script are rewritten. The script is `-e`'s value,
 * or else the first operand.
 */
const VALUE_LETTERS = 'iIMmrlx0dDCFKTW'

const scriptInPlace: Extract = (args) => {
  let i = 0
  let inPlace = false
  let inline = false
  for (; i < args.length; i++) {
    const v = args[i]!.value
    if (v === '--') {
      i++
      break
    }
    if (!v.startsWith('-') || v === '-') break
    for (const [j, ch] of [...v.slice(1)].entries()) {
      if (ch === 'e' || ch === 'E') {
        inline = true
        // `-e 'code'`: the code is the next word; `-e'code'`: the rest of this one.
        if (j === v.length - 2) i++
        break
      }
      if (ch === 'i') inPlace = true
      // The rest of the word is this option's value (`-i.bak`, `-Mstrict`, `-Ilib`, `-0777`).
      if (VALUE_LETTERS.includes(ch)) break
    }
  }
  if (!inPlace) return []
  const operands = args.slice(i)
  return writes(inline ? operands : operands.slice(1))
}

/** gawk `-i inplace` (or `--include=inplace`) rewrites its input files. */
const awkInPlace: Extract = (args) => {
  const s = scan(args, {
    short: 'fvFieElL',
    long: ['--file', '--assign', '--field-separator', '--include', '--source', '--exec', '--load'],
  })
  if (!valuesOf(s, '-i', '--include').some((w) => /^inplace(\.awk)?$/.test(w.value))) return []
  const scripted = ['-f', '-e', '-E', '--file', '--source', '--exec'].some((f) => s.flags.has(f))
  const files = scripted ? s.operands : s.operands.slice(1)
  return [...writes(files), ...(s.dynamic ? writes([UNKNOWN_WORD]) : [])]
}

/**
 * patch writes the file it is given, or else the files its diff names: only known when it runs (a diff
 * can name `.git/hooks/pre-commit`). `-o`/`-r` name files it writes; `--dry-run` writes nothing.
 */
const patchWrites: Extract = (args) => {
  const s = scan(args, {
    short: 'pioDdrBYzVFg',
    long: [
      '--strip',
      '--input',
      '--output',
      '--ifdef',
      '--directory',
      '--reject-file',
      '--prefix',
      '--basename-prefix',
      '--suffix',
      '--version-control',
      '--fuzz',
      '--get',
    ],
  })
  if (s.flags.has('--dry-run')) return []
  const named = valuesOf(s, '-o', '--output', '-r', '--reject-file')
  const target = s.operands[0]
  const dir = valuesOf(s, '-d', '--directory').length > 0
  return [
    ...writes(named),
    ...(target && !dir ? writes([target]) : writes([UNKNOWN_WORD])),
    ...reads(valuesOf(s, '-i', '--input')),
  ]
}

const WRITERS: Readonly<Record<string, Extract>> = {
  rm: allOperands({}, [], ['-r', '-R', '--recursive']),
  rmdir: allOperands({}),
  unlink: allOperands({}),
  shred: allOperands({ short: 'ns', long: ['--iterations', '--size', '--random-source'] }),
  touch: allOperands({ short: 'dtr', long: ['--date', '--reference'] }),
  mkdir: allOperands({ short: 'm', long: ['--mode'] }),
  mkfifo: allOperands({ short: 'm', long: ['--mode'] }),
  mknod: allOperands({ short: 'm', long: ['--mode'] }),
  truncate: allOperands({ short: 'sr', long: ['--size', '--reference'] }),
  chmod: allOperands({}, [], ['-R', '--recursive']),
  chown: allOperands({}, [], ['-R', '--recursive']),
  chgrp: allOperands({}, [], ['-R', '--recursive']),
  find: findWrites,
  chattr: allOperands({}),
  tee: allOperands({}),
  mv: allOperands({ short: 'tS', long: ['--target-directory', '--suffix'] }, ['-t', '--target-directory']),
  sudoedit: allOperands({}),
  cp: copyLike({ short: 'S', long: ['--suffix'] }, { sourcesRead: true, links: 'with-flag' }),
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
  ln: copyLike({ short: 'S', long: ['--suffix'] }, { sourcesRead: false, links: 'always' }),
  link: copyLike({}, { sourcesRead: false, links: 'always' }),
  dd: ddPaths,
  sed: sedWrites,
  sort: sortWrites,
  curl: curlPaths,
  wget: wgetPaths,
  tar: tarWrites,
  unzip: unzipWrites,
  perl: scriptInPlace,
  ruby: scriptInPlace,
  awk: awkInPlace,
  gawk: awkInPlace,
  patch: patchWrites,
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
