import {
  type ShellPart,
  type ShellRedirect,
  type ShellWord,
  type ShellWrite,
  splitShell,
} from './shell-split.js'
import { commandHazard, partHazard } from './shell-arithmetic.js'
import { gitConfigRuns } from './shell-git-config.js'
import { isAssignment, programName } from './shell-words.js'
import { PLAIN_WRAPPERS, peelWrapper, READ_ONLY_WRAPPERS } from './shell-wrappers.js'

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
  /**
   * What bash evaluates as code while expanding or running it, though no program does
   * (shell-arithmetic.ts): `${a[$x]}`, `$((x))`, `[[ $x -eq 1 ]]`, `${x@P}`. Never read-only.
   */
  evaluates?: string
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
  const acc = start()
  const evaluates = partHazard(part)
  if (evaluates !== undefined) acc.evaluates = evaluates
  return unwrapWords(part.words, acc, 0)
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
  /** Of the enclosing part (or inner script's part): bash evaluates it before any program runs. */
  evaluates?: string
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
  const evaluates = acc.evaluates ?? commandHazard(words)
  if (evaluates !== undefined) command.evaluates = evaluates
  return command
}

function unwrapWords(input: ShellWord[], acc: Acc, depth: number): ShellCommand[] {
  let words = input
  // `function f { rm x; }`: the body runs later as `f`, so it is judged here, where it is defined.
  if (words[0]?.raw === 'function') words = words.slice(2)
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
  if (name === 'find') return unwrapFind(rest, acc, depth)
  if (name === 'git') return unwrapGit(rest, acc, depth)
  const peeled = peelWrapper(name, rest.slice(1))
  if (!peeled) return [finish(acc, rest, name)]
  switch (peeled.kind) {
    case 'self':
      return [finish(acc, rest, name)]
    case 'unknown':
      return [finish(acc, rest, undefined, peeled.reason)]
    case 'run': {
      acc.wrappers.push(name)
      if (!PLAIN_WRAPPERS.has(name) || peeled.changesEnvironment) acc.plain = false
      if (!READ_ONLY_WRAPPERS.has(name) || peeled.clearsEnvironment) acc.readOnlyWrappers = false
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
    const evaluates = acc.evaluates ?? partHazard(inner)
    if (evaluates !== undefined) copy.evaluates = evaluates
    return unwrapWords(inner.words, copy, depth + 1)
  })
}

/** git itself, and the commands its own `-c` settings make it run (see shell-git-config.ts). */
function unwrapGit(words: ShellWord[], acc: Acc, depth: number): ShellCommand[] {
  const runs = gitConfigRuns(words.slice(1))
  const git = finish(acc, words, 'git')
  if (runs.scripts.length === 0 && runs.unknown === undefined) return [git]
  const inner = (): Acc => ({
    ...start(),
    assignments: [...acc.assignments],
    wrappers: [...acc.wrappers, 'git -c'],
    plain: false,
    readOnlyWrappers: false,
  })
  const commands = runs.scripts.flatMap((script) => unwrapScript(script, inner(), depth))
  if (runs.unknown !== undefined) commands.push(finish(inner(), [], undefined, runs.unknown))
  return [git, ...commands]
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
