import { dirname, isAbsolute, relative, sep } from 'node:path'
import { isReadOnlyProgram } from './classifier.js'
import { absoluteTarget, splitRuleList } from './rules.js'
import type { AnalyzedPart, CommandAnalysis } from './command-analysis.js'
import { type ShellPart, type ShellWord, splitShell } from './shell-split.js'
import { type ShellCommand, unwrapPart } from './shell-unwrap.js'
import type { PermissionTarget } from './target.js'

/**
 * The rule "allow always" offers for a call: the narrowest one that covers what was asked. Pure.
 *
 * - a command: one `Bash(prefix *)` per program that needs a grant — `npm test *` for `npm test`, `make *`
 *   for `cd src && make`, `sed *` for `for f in *.md; do sed -i … "$f"; done` (a loop's `for`, `do` and
 *   `done` run nothing) — several, comma-separated, when a command runs several (`npm install *, npm test *`);
 * - an edit: the file (`Edit(source/a.ts)`); `directoryRule` offers its folder (`Edit(source/**)`); a delete
 *   the same as `DeleteFile(…)`; a patch of several files one rule per file (`Edit(a.ts), Edit(b.ts)`), or
 *   their common folder's when there are more than four;
 * - a search: its folder (`Read(source/**)`); a URL: its host (`WebFetch(domain:host)`); else the tool.
 */
export function suggestRule(
  tool: string,
  target: PermissionTarget,
  workspace?: string,
  home?: string,
): string {
  switch (target.kind) {
    case 'command':
      return suggestCommandRules(target.command, target.analysis)
        .specs.map((spec) => `${tool}(${spec})`)
        .join(', ')
    case 'path':
      return `${ruleTool(tool)}(${suggestPathSpecifier(tool, target.path, workspace, home)})`
    case 'paths': {
      // A rule per file, or their folder's when there are more than a prompt should list.
      const rules = [...new Set(target.paths.map((p) => suggestRule(tool, p, workspace, home)))]
      if (rules.length <= MAX_FILE_RULES || workspace === undefined) return rules.join(', ')
      return directoryRule(tool, target, workspace) ?? rules.join(', ')
    }
    case 'url':
      try {
        return `${tool}(domain:${new URL(target.url).hostname.toLowerCase()})`
      } catch {
        return tool
      }
    case 'none':
      return tool
  }
}

/**
 * The folder rule offered beside an edit's file rule: `Edit(source/**)` for `source/a.ts`, `Edit(**)` for a
 * file at the workspace root (never `DeleteFile(**)`). Undefined for other calls and for paths outside the
 * workspace.
 */
export function directoryRule(tool: string, target: PermissionTarget, workspace: string): string | undefined {
  if (!EDIT_TOOLS.has(tool) || (target.kind !== 'path' && target.kind !== 'paths')) return undefined
  const files = target.kind === 'path' ? [target] : target.paths
  const dirs = files.map((p) =>
    relative(workspace, dirname(absoluteTarget(p.real ?? p.path, { workspace, home: workspace }))),
  )
  if (dirs.length === 0 || dirs.some((dir) => dir.startsWith('..') || isAbsolute(dir))) return undefined
  const dir = dirs.reduce(commonFolder)
  // `DeleteFile(**)` would delete any file in the workspace unasked, for good: a folder below the root
  // (`build/**`) is offered, the whole workspace is not.
  if (dir === '' && tool === 'DeleteFile') return undefined
  return `${ruleTool(tool)}(${dir === '' ? '**' : `${dir}/**`})`
}

/** The deepest folder two workspace-relative folders share ('' for the workspace itself). */
function commonFolder(a: string, b: string): string {
  const x = a === '' ? [] : a.split(sep)
  const y = b === '' ? [] : b.split(sep)
  let n = 0
  while (n < x.length && n < y.length && x[n] === y[n]) n++
  return x.slice(0, n).join(sep)
}

/** The tool a suggested rule names: the Edit family's file tools are offered as `Edit(…)`, deletes as `DeleteFile(…)`. */
function ruleTool(tool: string): string {
  if (tool === 'DeleteFile') return tool
  return EDIT_TOOLS.has(tool) ? 'Edit' : READ_TOOLS.has(tool) ? 'Read' : tool
}

/** The rules of a suggestion (several for a command that runs several programs). */
export function suggestedRules(suggestion: string): string[] {
  return splitRuleList(suggestion)
}

/** Tools whose rules name the file they change (a delete names it too, under its own tool name). */
const EDIT_TOOLS = new Set(['Edit', 'Write', 'NotebookEdit', 'MultiEdit', 'apply_patch', 'DeleteFile'])
/** More files than this in one call are offered as their folder's rule. */
const MAX_FILE_RULES = 4
const READ_TOOLS = new Set(['Read', 'Glob', 'Grep', 'CodeSearch'])

/** Programs whose first argument is a subcommand worth keeping in a suggested rule. */
const SUBCOMMAND_PROGRAMS = new Set([
  'git',
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'bun',
  'deno',
  'cargo',
  'go',
  'docker',
  'kubectl',
  'make',
  'pip',
  'pip3',
  'uv',
  'poetry',
  'gh',
  'brew',
  'apt',
  'apt-get',
  'systemctl',
  'dotnet',
  'mvn',
  'gradle',
  'terraform',
  'helm',
  'rustup',
])
const RUN_SUBCOMMANDS = new Set(['run', 'run-script', 'exec'])

/**
 * Programs a `Bash(prog *)` grant would hand over wholesale: they delete what they are given, or run any
 * code they are given. "Always" offers such a program only as the exact command that asked.
 */
const SWEEPING_PROGRAMS: Readonly<Record<string, string>> = {
  rm: 'deletes any file',
  rmdir: 'deletes folders',
  shred: 'destroys files',
  dd: 'overwrites files and devices',
  truncate: 'empties files',
  mkfs: 'formats disks',
  chmod: 'changes any permission',
  chown: 'changes any owner',
  find: 'can delete or run anything (-delete, -exec)',
  kill: 'signals any process',
  pkill: 'signals any process',
  killall: 'signals any process',
  node: 'runs any code',
  nodejs: 'runs any code',
  deno: 'runs any code',
  bun: 'runs any code',
  tsx: 'runs any code',
  'ts-node': 'runs any code',
  python: 'runs any code',
  python2: 'runs any code',
  python3: 'runs any code',
  pypy3: 'runs any code',
  perl: 'runs any code',
  ruby: 'runs any code',
  php: 'runs any code',
  lua: 'runs any code',
  Rscript: 'runs any code',
  julia: 'runs any code',
  java: 'runs any code',
  awk: 'runs any code (system())',
  gawk: 'runs any code (system())',
  bash: 'runs any code',
  sh: 'runs any code',
  zsh: 'runs any code',
  dash: 'runs any code',
  ksh: 'runs any code',
  fish: 'runs any code',
  pwsh: 'runs any code',
  osascript: 'runs any code',
  npx: 'runs any package',
  bunx: 'runs any package',
  pnpx: 'runs any package',
}
/** Subcommands as sweeping as the programs above. */
const SWEEPING_SUBCOMMANDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  git: {
    clean: 'deletes untracked files',
    reset: 'can discard uncommitted work',
    restore: 'can discard uncommitted work',
    rm: 'deletes files',
  },
  npm: { exec: 'runs any package' },
  pnpm: { dlx: 'runs any package', exec: 'runs any program' },
  yarn: { dlx: 'runs any package' },
}

/** What a sweeping program of a command does, to warn beside the exact rule offered for it. */
export interface RuleCaution {
  /** "rm deletes any file": each sweeping program once, in order. */
  notes: string[]
  /** Why no exact rule can be offered (a `*` in the command would be a rule's wildcard). */
  noRule?: string
}

interface CommandSuggestion {
  specs: string[]
  caution: RuleCaution
}

/**
 * Command specifiers, one per program that needs a grant (the ones that do not only read), in order. The
 * programs come from the command's analysis (only their words matter here, not where paths lead).
 */
function suggestCommandRules(command: string, analysis?: CommandAnalysis): CommandSuggestion {
  const normalized = command.trim().replace(/\s+/g, ' ')
  const caution: RuleCaution = { notes: [] }
  const parts = analysis ? (analysis.ok ? analysis.parts : undefined) : programsOf(command)
  if (!parts || parts.length === 0) return { specs: [normalized], caution }
  const specs: string[] = []
  let firstNamed: string | undefined
  for (const { part, commands } of parts) {
    for (const program of commands) {
      // `for x in …`, `do`, `done`, `fi` and bare assignments run nothing.
      if (program.words.length === 0) continue
      const sweeping = sweepingNote(program)
      let spec = programSpecifier(part, program)
      if (sweeping) {
        // As written, whole: `rm *` would allow every deletion, `node *` any code.
        spec = exactSpecifier(part)
        if (!caution.notes.includes(sweeping)) caution.notes.push(sweeping)
        if (spec.includes('*'))
          caution.noRule ??= `${sweeping}, and a * in the command would match any other: allow it once`
      }
      firstNamed ??= spec
      const writes = part.writes.length > 0 || program.writes.length > 0 || program.wrapperWrites.length > 0
      if ((writes || !isReadOnlyProgram(program)) && !specs.includes(spec)) specs.push(spec)
    }
  }
  // Only reading programs: the call asks for a path it reads; name the first program all the same.
  if (specs.length === 0) return { specs: [firstNamed ?? normalized], caution }
  return { specs, caution }
}

/** Words that open or continue a compound command: `then rm x` is granted as `rm x`. */
const RESERVED_WORDS = new Set(['if', 'then', 'elif', 'else', 'do', 'while', 'until', '!', '{'])

/** The part as written, less the reserved words in front, spaces collapsed. */
function exactSpecifier(part: ShellPart): string {
  let i = 0
  while (i < part.words.length && RESERVED_WORDS.has((part.words[i] as ShellWord).raw)) i++
  const words = part.words.slice(i).map((w) => w.raw)
  return (words.length > 0 ? words.join(' ') : part.raw || part.text).trim().replace(/\s+/g, ' ')
}

/** "rm deletes any file" for a sweeping program (behind any wrapper), else undefined. */
function sweepingNote(program: ShellCommand): string | undefined {
  const name = program.name ?? program.words[0]?.value
  if (name === undefined) return undefined
  const base = name.replace(/\.(exe|cmd)$/, '')
  const own =
    SWEEPING_PROGRAMS[base] ??
    (base.startsWith('mkfs.')
      ? 'formats disks'
      : /^python\d(\.\d+)?$/.test(base)
        ? 'runs any code'
        : undefined)
  if (own) return `${base} ${own}`
  const sub = program.words[1]?.value
  const subNote = sub === undefined ? undefined : SWEEPING_SUBCOMMANDS[base]?.[sub]
  return subNote ? `${base} ${sub} ${subNote}` : undefined
}

/** What to warn beside the rule `suggestRule` offers for a command (nothing for other calls). */
export function ruleCaution(target: PermissionTarget): RuleCaution {
  if (target.kind !== 'command') return { notes: [] }
  return suggestCommandRules(target.command, target.analysis).caution
}

/** A command without an analysis (called outside the gate): split and unwrapped here. */
function programsOf(command: string): Pick<AnalyzedPart, 'part' | 'commands'>[] | undefined {
  const split = splitShell(command)
  return split.ok ? split.parts.map((part) => ({ part, commands: unwrapPart(part) })) : undefined
}

function programSpecifier(part: ShellPart, program: ShellCommand): string {
  const raw = part.raw || part.text
  if (program.wrappers.length > 0) {
    // A rule for the wrapper (`Bash(sudo *)`, `Bash(xargs *)`) would allow anything behind it: name the
    // program when a grant for it covers it here, else only this exact command.
    if (!program.plain || program.assignments.length > 0 || program.unknown !== undefined) return raw
    return prefixOf(program.words, 0) ?? raw
  }
  if (program.assignments.length > 0) {
    // `FOO=1 npm test` is granted as written, assignment included.
    let i = 0
    while (i < part.words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test((part.words[i] as ShellWord).raw)) i++
    return prefixOf(part.words, i) ?? raw
  }
  return prefixOf(program.words, 0) ?? raw
}

/** `npm run build *` for `npm run build --x`: the program (after `skip` assignments) and its subcommand. */
function prefixOf(words: readonly ShellWord[], skip: number): string | undefined {
  const program = words[skip]
  if (!program || program.expands) return undefined
  const kept = words.slice(0, skip + 1).map((w) => w.raw)
  const sub = words[skip + 1]
  if (SUBCOMMAND_PROGRAMS.has(program.value) && sub && isPlainWord(sub.value)) {
    kept.push(sub.value)
    const script = words[skip + 2]
    if (RUN_SUBCOMMANDS.has(sub.value) && script && isPlainWord(script.value)) kept.push(script.value)
  }
  return `${kept.join(' ')} *`
}

function isPlainWord(value: string): boolean {
  return /^[A-Za-z0-9][\w.:@/+-]*$/.test(value)
}

/** An edit names its file; a search (Glob, Grep) its folder; a read outside the workspace its folder. */
function suggestPathSpecifier(tool: string, path: string, workspace?: string, home?: string): string {
  const base = workspace ?? '/'
  const abs = absoluteTarget(path, { workspace: base, home: home ?? base })
  const narrow = EDIT_TOOLS.has(tool)
    ? abs
    : tool === 'Glob' || tool === 'Grep' || tool === 'CodeSearch'
      ? abs
      : dirname(abs)
  if (workspace !== undefined) {
    const rel = relative(workspace, narrow)
    if (rel === '' && narrow !== abs) return relative(workspace, abs)
    if (rel === '') return '**'
    if (!rel.startsWith('..') && !isAbsolute(rel))
      return narrow === abs && EDIT_TOOLS.has(tool) ? rel : `${rel}/**`
  }
  if (home !== undefined) {
    const rel = relative(home, narrow)
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel))
      return EDIT_TOOLS.has(tool) ? `~/${rel}` : `~/${rel}/**`
  }
  // `//` marks an absolute path (a single `/` is the project's, as in Claude Code).
  return EDIT_TOOLS.has(tool) ? `/${narrow}` : `/${trimSlash(narrow)}/**`
}

function trimSlash(dir: string): string {
  return dir.length > 1 ? dir.replace(/\/+$/, '') : dir
}
