import { dirname, isAbsolute, join, resolve } from 'node:path'
import { isReadOnlyProgram } from './classifier.js'
import { physicalJoin } from './physical-path.js'
import { argumentPaths, type PathArg } from './shell-paths.js'
import { readPaths } from './shell-reads.js'
import { type ShellPart, type ShellRedirect, type ShellWord, splitShell } from './shell-split.js'
import { type ShellCommand, unwrapPart } from './shell-unwrap.js'

/**
 * One pass over a shell command for the permission policy: its simple commands, the programs each runs
 * (wrappers peeled), and every file it names for writing or reading, resolved against the directory it
 * will be in (`cd` tracked). Pure; `real-path.ts` resolves the symlinks of `uses` before the policy runs.
 */

export interface AnalyzedPart {
  part: ShellPart
  commands: ShellCommand[]
  /**
   * For each of `commands`, the directories a read-only `git` among them runs in (its `-C` applied),
   * one per directory the command may be in; undefined when only known when it runs. Empty for others.
   */
  gitDirs: Array<string[] | undefined>
}

export interface PathUse {
  role: 'read' | 'write'
  /** `redirect` writes are judged like an Edit of the file; `argument` paths by protections and the read boundary. */
  via: 'redirect' | 'argument'
  /** The program using it, for messages. */
  program: string
  /** The word as written. */
  word: string
  /**
   * Absolute paths as the kernel will walk them (`..` kept: after a symlink it leaves from the link's
   * target), one per directory the command may be in; undefined = only known when it runs. The policy
   * folds them (`path.resolve`) for the path as named.
   */
  abs?: string[]
  /** For a glob: the pattern below each `abs` directory. */
  pattern?: string
  /** Writes everything below the path too (`rm -r`, `chmod -R`, `find -delete`). */
  recursive?: boolean
  /** Index into `parts`. */
  part: number
}

export type CommandAnalysis =
  | { ok: true; parts: AnalyzedPart[]; uses: PathUse[] }
  | { ok: false; reason: string }

/** Devices every command may use. */
const HARMLESS = /^\/dev\/(null|stdin|stdout|stderr|zero|u?random|tty|fd\/\d+)$/
/** More candidate directories than this (many `cd`s) makes relative paths unknown. */
const MAX_CWDS = 8

/**
 * Where the command may be: every directory a `cd` could have reached so far. Kept as a growing set
 * because subshells (`(cd x); rm y`) undo a `cd` the splitter cannot scope; judging a path in every
 * candidate errs towards asking.
 */
interface Cwds {
  dirs: string[]
  unknown: boolean
}

export function analyzeCommand(command: string, cwd: string, home: string): CommandAnalysis {
  const split = splitShell(command)
  if (!split.ok) return split
  const parts: AnalyzedPart[] = split.parts.map((part) => ({ part, commands: unwrapPart(part), gitDirs: [] }))
  const uses: PathUse[] = []
  let cwds: Cwds = { dirs: [cwd], unknown: false }
  parts.forEach(({ part, commands, gitDirs }, index) => {
    const readOnly = commands.every(isReadOnlyProgram)
    const first = commands.find((c) => c.name !== undefined)?.name ?? part.words[0]?.value ?? 'the command'
    const add = (
      role: PathUse['role'],
      via: PathUse['via'],
      program: string,
      word: ShellWord,
      at: Cwds,
      recursive = false,
    ) => {
      // `<(cmd)` / `>(cmd)` name a pipe; the command inside is a part of its own.
      if (/^[<>]\(/.test(word.raw)) return
      const use: PathUse = {
        role,
        via,
        program,
        word: word.raw || word.value,
        part: index,
        ...locate(word, at, home),
        ...(recursive ? { recursive } : {}),
      }
      if (use.abs?.every((p) => HARMLESS.test(p)) && use.pattern === undefined) return
      uses.push(use)
    }
    addRedirects(part.redirects, readOnly, (role, word) => add(role, 'redirect', first, word, cwds))
    for (const cmd of commands) {
      const here = cmd.chdir ? moveTo(cwds, cmd.chdir, home) : cwds
      const program = cmd.name ?? 'the command'
      const reads = isReadOnlyProgram(cmd)
      addRedirects(cmd.redirects, reads, (role, word) => add(role, 'redirect', program, word, here))
      for (const arg of argumentPaths(cmd)) {
        const from = arg.relativeTo ? linkDirs(arg.relativeTo, here, home) : here
        add(arg.role, 'argument', program, arg.word, from, arg.recursive)
      }
      if (reads) for (const arg of readPaths(cmd)) add(arg.role, 'argument', program, arg.word, here)
      gitDirs.push(reads && cmd.name === 'git' ? gitRunDirs(cmd, here, home) : [])
      if (cmd.name === 'cd' || cmd.name === 'pushd') cwds = changeDir(cwds, cmd, home)
    }
  })
  return { ok: true, parts, uses }
}

/**
 * The analysis a command target carries (the gate made it once per call), else a fresh one: relative
 * paths resolve against the target's cwd, or the workspace.
 */
export function analysisOf(
  target: { command: string; cwd?: string; analysis?: CommandAnalysis },
  workspace: string,
  home: string,
): CommandAnalysis {
  return target.analysis ?? analyzeCommand(target.command, target.cwd ?? workspace, home)
}

/** Where `git [-C dir]… sub` runs: each `-C` is relative to the one before. */
function gitRunDirs(cmd: ShellCommand, at: Cwds, home: string): string[] | undefined {
  let dirs: Cwds = at
  const args = cmd.words.slice(1)
  for (let i = 0; i < args.length; i++) {
    const value = args[i]!.value
    if (value === '-C') {
      const target = args[++i]
      if (!target) return undefined
      dirs = moveTo(dirs, target, home)
    } else if (!value.startsWith('-')) break
  }
  return dirs.unknown ? undefined : dirs.dirs
}

/**
 * What `real-path.ts` looks up before the policy judges `command`: every lexical path it names (to
 * resolve), and the directories its read-only git calls run in (for git-config-scan.ts; those only known
 * when it runs cannot be looked at).
 */
export function commandLookups(
  command: string,
  cwd: string,
  home: string,
  analysis: CommandAnalysis = analyzeCommand(command, cwd, home),
): { paths: string[]; gitDirs: string[] } {
  if (!analysis.ok) return { paths: [], gitDirs: [] }
  return {
    paths: [...new Set(analysis.uses.flatMap((u) => u.abs ?? []))],
    gitDirs: [...new Set(analysis.parts.flatMap((p) => p.gitDirs.flatMap((dirs) => dirs ?? [])))],
  }
}

const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>', '<>'])

/** Output redirections are writes; `<` of a read-only command is a read. */
function addRedirects(
  redirects: readonly ShellRedirect[],
  readOnly: boolean,
  add: (role: PathUse['role'], word: ShellWord) => void,
): void {
  for (const r of redirects) {
    const target = r.target
    const isWrite = WRITE_OPS.has(r.op) || (r.op === '>&' && !/^(\d+|-)$/.test(target.value))
    // A glob in a redirection is bash's "ambiguous redirect" or one unknown file.
    if (isWrite) add('write', target.glob ? { ...target, expands: true } : target)
    else if (r.op === '<' && readOnly) add('read', target)
  }
}

/** Absolute path(s) of a word as the kernel walks them; a glob gives its static directory and the pattern below it. */
function locate(word: ShellWord, cwds: Cwds, home: string): { abs?: string[]; pattern?: string } {
  if (word.expands) return {}
  let value = word.value
  if (value === '~' || value.startsWith('~/')) value = join(home, value.slice(1))
  else if (value.startsWith('~')) return {} // ~user, ~+, ~-
  const dirs = isAbsolute(value) ? ['/'] : cwds.unknown ? undefined : cwds.dirs
  if (!dirs) return {}
  if (!word.glob) return { abs: dirs.map((d) => physicalJoin(d, value)) }
  const segments = value.split('/')
  const at = segments.findIndex((s) => /[*?[{]/.test(s))
  if (at === -1) return { abs: dirs.map((d) => physicalJoin(d, value)) }
  const below = segments.slice(at)
  if (below.includes('..')) return {}
  const prefix = segments.slice(0, at).join('/') || (value.startsWith('/') ? '/' : '.')
  return { abs: dirs.map((d) => physicalJoin(d, prefix)), pattern: below.join('/') }
}

/** The directories a symlink may be made in (its target is relative to them), from its destination's words. */
function linkDirs(relativeTo: NonNullable<PathArg['relativeTo']>, cwds: Cwds, home: string): Cwds {
  const dirs: string[] = []
  for (const { word, parent } of relativeTo) {
    const located = locate(word, cwds, home)
    if (!located.abs || located.pattern !== undefined) return { dirs: cwds.dirs, unknown: true }
    dirs.push(...located.abs.map((p) => (parent ? dirname(p) : p)))
  }
  return { dirs: [...new Set(dirs)], unknown: false }
}

function changeDir(cwds: Cwds, cmd: ShellCommand, home: string): Cwds {
  const options = cmd.words.slice(1).filter((w) => /^-[LPe@]+$/.test(w.value))
  const target = cmd.words.slice(1).find((w) => !/^-[LPe@]+$/.test(w.value))
  if (!target) return grow(cwds, [home])
  if (target.value === '-') return { dirs: cwds.dirs, unknown: true }
  const located = locate(target, cwds, home)
  if (!located.abs || located.pattern !== undefined) return { dirs: cwds.dirs, unknown: true }
  // bash's `cd` is logical (`link/..` is where the link sits) unless the last of -L/-P says -P.
  const physical = options
    .map((w) => w.value.replace(/[^LP]/g, ''))
    .join('')
    .endsWith('P')
  return grow(cwds, physical ? located.abs : located.abs.map((p) => resolve(p)))
}

function grow(cwds: Cwds, more: string[]): Cwds {
  const dirs = [...new Set([...cwds.dirs, ...more])]
  return dirs.length > MAX_CWDS ? { dirs: cwds.dirs, unknown: true } : { dirs, unknown: cwds.unknown }
}

/** The directory a wrapper switches to (`env -C DIR`): the command runs there, not in `cwds`. */
function moveTo(cwds: Cwds, dir: ShellWord, home: string): Cwds {
  const located = locate(dir, cwds, home)
  return located.abs && located.pattern === undefined
    ? { dirs: located.abs, unknown: false }
    : { dirs: cwds.dirs, unknown: true }
}
