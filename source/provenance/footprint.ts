import { basename, delimiter, dirname, isAbsolute, join, resolve } from 'node:path'
import { analyzeCommand } from '../permissions/command-analysis.js'
import type { ShellWord } from '../permissions/shell-types.js'
import {
  exists,
  gitDirOf,
  isDirectory,
  isExecutableFile,
  isInside,
  listNames,
  optionValues,
  packageDirOf,
  packageName,
  readHead,
  readSmall,
  realOrUndefined,
} from './fs-facts.js'
import {
  BIN_SUBCOMMANDS,
  BUILTINS,
  CODE_BUILTINS,
  CODE_CONFIG,
  DIRECT_RUNNERS,
  INTERPRETERS,
  interpreterName,
  NO_PROJECT_CODE,
  PRELOAD_OPTIONS,
  PROJECT_RUNNERS,
  QUIET_SUBCOMMANDS,
  RUNNER_CONFIG,
  RUNNER_DIRS,
  RUNNERS,
  SHELLS,
  VALUE_OPTIONS,
} from './program-kinds.js'

/**
 * What a hook command or an MCP server would run from the folders unasked commands can write: the
 * program and the files it loads as code, found the way the shell, node, python and the package
 * runners find them. Pure apart from reading the file system; changed.ts then asks whether any of it
 * changed while a command ran unasked.
 *
 * - a program or script inside such a folder: the file, the folders on the way to it, and its package
 *   (`node_modules/<pkg>`, a virtualenv, else its own folder unless that is the top of the root);
 * - `npx x`, `npm exec`, `pnpm exec|dlx`, `yarn x`, `bunx`: `node_modules/.bin/x` (and `.bin/node`,
 *   which runs a bin's `#!/usr/bin/env node`) in the current folder and every one above, the package
 *   behind it, and the runners' own config (`.npmrc`, `package.json`, `.yarnrc.yml`, `.yarn/`…);
 * - `node`, `python`, `bash`… with a script: that script as above; with inline code, a module (`-m`) or
 *   a script on stdin: everything (`unbounded`);
 * - `npm test`, `npm run x`, `make`, `pytest`, `cargo` and the like run the project's own code:
 *   everything;
 * - git: the repository's config and hooks;
 * - any other program that may load project files: the config files tools load code from
 *   (`*.config.*`, `.*rc*`, `package.json`, `conftest.py`, `Makefile`…) in the current folder, in the
 *   folder of the file the event is about, and in every folder above them.
 */

export interface FootprintInput {
  /** A hook's `bash -c` script, or a server's program and arguments. */
  command: { script: string } | { argv: readonly string[] }
  cwd: string
  env: Readonly<Record<string, string | undefined>>
  home: string
  /** Real paths of the folders unasked commands could write: only what lies in them matters. */
  roots: readonly string[]
  /** Files the event is about (a PostToolUse hook's `file_path`): tools look for config beside them. */
  related?: readonly string[]
}

export interface Footprint {
  /** Files and folders whose change changes what runs (each checked by its own ctime). */
  paths: string[]
  /** Folders whose every entry is checked. */
  trees: string[]
  /** Why everything under `trees` counts: what runs cannot be told from the command. */
  unbounded?: string
}

/** Nested scripts (`bash -c '…'` in a server's arguments) are followed this deep. */
const MAX_DEPTH = 4

export function footprintOf(input: FootprintInput): Footprint {
  const found = new Finder(input)
  if ('script' in input.command) found.script(input.command.script, input.cwd, 0)
  else found.argv([...input.command.argv], input.cwd, 0)
  return found.result()
}

class Finder {
  private readonly paths = new Set<string>()
  private readonly trees = new Set<string>()
  private why: string | undefined
  constructor(private readonly input: FootprintInput) {}

  result(): Footprint {
    if (this.why === undefined) return { paths: [...this.paths], trees: [...this.trees] }
    const root = this.rootOf(this.input.cwd)
    return {
      paths: [...this.paths],
      trees: root ? [root] : this.input.roots.slice(0, 1),
      unbounded: this.why,
    }
  }

  /** A shell script: each program it runs (wrappers peeled) on its own. */
  script(text: string, cwd: string, depth: number): void {
    const analysis = analyzeCommand(text, cwd, this.input.home)
    if (!analysis.ok) {
      this.everything(`the command cannot be read (${analysis.reason})`)
      return
    }
    // Every folder a `cd` may have reached so far (a subshell's `cd` is not undone: looking in more
    // folders only finds more).
    let dirs = [cwd]
    for (const { commands } of analysis.parts) {
      for (const command of commands) {
        const first = command.words[0]
        if (!first) continue
        const words = command.words.map((w) => this.expand(w))
        if (words[0] === undefined) {
          this.everything(`\`${first.raw}\` is only known when it runs`)
          continue
        }
        if ((words[0] === 'cd' || words[0] === 'pushd') && words[1]) {
          const to = words[1]
          dirs = [...new Set([...dirs, ...dirs.map((d) => resolve(d, to))])].slice(0, 8)
          continue
        }
        const at = command.chdir ? this.expand(command.chdir) : undefined
        for (const dir of at ? dirs.map((d) => resolve(d, at)) : dirs)
          this.argv(
            words.map((w) => w ?? ''),
            dir,
            depth,
          )
      }
    }
  }

  /** One program with its arguments. */
  argv(words: readonly string[], cwd: string, depth: number): void {
    const [word, ...args] = words
    if (word === undefined || word === '') return
    if (CODE_BUILTINS.has(word)) {
      this.everything(`\`${word}\` runs code it is given`)
      return
    }
    if (BUILTINS.has(word)) return
    const program = this.locate(word, cwd)
    if (program) {
      this.program(program)
      this.shebang(program, cwd)
    }
    if (depth >= MAX_DEPTH) {
      this.everything('it is nested too deeply to follow')
      return
    }
    const name = basename(word)
    const inline = INTERPRETERS.get(interpreterName(name))
    if (inline) this.interpreter(name, inline, args, cwd, depth)
    else if (RUNNERS.has(name)) this.runner(name, args, cwd)
    else if (PROJECT_RUNNERS.has(name)) this.everything(`\`${name}\` runs the project's own code`)
    else if (name === 'git') this.git(cwd)
    else if (!NO_PROJECT_CODE.has(name)) this.codeConfig(cwd)
  }

  private interpreter(
    name: string,
    inline: ReadonlySet<string>,
    args: readonly string[],
    cwd: string,
    depth: number,
  ): void {
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] ?? ''
      if (inline.has(arg)) {
        const code = args[i + 1]
        // `bash -c 'script'`: the script is followed like a hook's own.
        if (arg === '-c' && SHELLS.has(name) && code !== undefined) this.script(code, cwd, depth + 1)
        else this.everything(`\`${name} ${arg}\` runs code that can load any file of the project`)
        return
      }
      if (PRELOAD_OPTIONS.has(arg)) {
        i++
        if (args[i] !== undefined) this.module(args[i] ?? '', cwd)
        continue
      }
      if (VALUE_OPTIONS.has(arg)) i++
      if (arg.startsWith('-') || VALUE_OPTIONS.has(arg)) continue
      // `bun run x.ts`, `bun x.ts`.
      if (name === 'bun' && (arg === 'run' || arg === 'test')) continue
      const script = this.file(arg, cwd)
      if (script) this.program(script)
      this.codeConfig(cwd)
      return
    }
    this.everything(`\`${name}\` reads its script from stdin`)
  }

  /** npx, npm, pnpm, yarn, bun: a bin from node_modules/.bin, or a package.json script. */
  private runner(name: string, args: readonly string[], cwd: string): void {
    this.runnerConfig(cwd)
    const positional = args.filter((a) => !a.startsWith('-'))
    const direct = DIRECT_RUNNERS.has(name)
    const sub = direct ? undefined : positional[0]
    if (sub !== undefined && QUIET_SUBCOMMANDS.has(sub)) return
    let bin: string | undefined
    if (direct) bin = positional[0]
    else if (sub !== undefined && BIN_SUBCOMMANDS.has(sub)) bin = positional[1]
    // `yarn prettier` runs the script of that name if there is one, else the bin.
    else if (name !== 'npm' && sub !== undefined && sub !== 'run' && !this.hasScript(sub, cwd)) bin = sub
    if (bin === undefined) {
      this.everything(`\`${[name, sub].filter(Boolean).join(' ')}\` runs a package.json script`)
      return
    }
    // The bin is a program like any: it may load the project's config files (prettier.config.cjs).
    if (!NO_PROJECT_CODE.has(basename(packageName(bin)))) this.codeConfig(cwd)
    const packages = [packageName(bin), ...optionValues(args, ['-p', '--package']).map(packageName)]
    for (const dir of this.chain(cwd, true)) {
      const binDir = join(dir, 'node_modules', '.bin')
      for (const candidate of [join(binDir, basename(packageName(bin))), join(binDir, 'node')]) {
        if (exists(candidate)) this.program(candidate)
      }
      for (const pkg of packages) {
        const path = join(dir, 'node_modules', pkg)
        if (exists(path)) this.tree(path)
      }
    }
  }

  private git(cwd: string): void {
    const dir = this.chain(cwd, true).find((d) => exists(join(d, '.git')))
    if (dir === undefined) return
    const dotGit = join(dir, '.git')
    this.add(dotGit)
    const gitDir = isDirectory(dotGit) ? dotGit : gitDirOf(dotGit, dir)
    if (!gitDir) return
    for (const name of ['config', 'commondir', join('info', 'attributes')]) this.add(join(gitDir, name))
    this.tree(join(gitDir, 'hooks'))
  }

  /** A module named by `node -r`: a path, or a package in node_modules above the folder. */
  private module(spec: string, cwd: string): void {
    if (spec.startsWith('.') || isAbsolute(spec)) {
      const file = this.file(spec, cwd)
      if (file) this.program(file)
      return
    }
    const dir = this.chain(cwd, true).find((d) => exists(join(d, 'node_modules', packageName(spec))))
    if (dir !== undefined) this.tree(join(dir, 'node_modules', packageName(spec)))
  }

  /** A program or script file: itself, the folders on the way, and its package. */
  private program(path: string): void {
    this.add(path)
    const real = realOrUndefined(path)
    if (real === undefined) return
    this.add(real)
    const pkg = packageDirOf(real)
    const dir = dirname(real)
    if (pkg) this.tree(pkg)
    else if (!this.input.roots.includes(dir)) this.tree(dir)
  }

  /** `#!/usr/bin/env node` finds node on PATH, where a folder of the project may come first. */
  private shebang(program: string, cwd: string): void {
    const line = readHead(program).match(/^#!\s*(\S+)(?:\s+(?:-S\s+)?(\S+))?/)
    if (!line?.[1]) return
    const interpreter = basename(line[1]) === 'env' && line[2] ? this.locate(line[2], cwd) : line[1]
    if (interpreter) this.program(interpreter)
  }

  private runnerConfig(cwd: string): void {
    for (const dir of this.chain(cwd)) {
      for (const name of RUNNER_CONFIG) if (exists(join(dir, name))) this.add(join(dir, name))
      for (const name of RUNNER_DIRS) if (exists(join(dir, name))) this.tree(join(dir, name))
    }
  }

  /** The code-bearing config files in the folder, the related files' folders, and every folder above. */
  private codeConfig(cwd: string): void {
    const related = (this.input.related ?? []).flatMap((file) => this.chain(dirname(file)))
    for (const dir of new Set([...this.chain(cwd), ...related])) {
      for (const name of listNames(dir)) if (CODE_CONFIG.test(name)) this.add(join(dir, name))
    }
  }

  private hasScript(name: string, cwd: string): boolean {
    return this.chain(cwd).some((dir) => {
      try {
        const json = JSON.parse(readSmall(join(dir, 'package.json'))) as { scripts?: object }
        return json.scripts !== undefined && Object.hasOwn(json.scripts, name)
      } catch {
        return false
      }
    })
  }

  private everything(why: string): void {
    this.why ??= why
  }

  /** Adds a path, and the folders between it and the top of its root, when it lies in a root. */
  private add(path: string): void {
    const root = this.rootOf(path)
    if (root === undefined) return
    this.paths.add(path)
    for (let dir = dirname(path); dir !== root && isInside(dir, root); dir = dirname(dir)) this.paths.add(dir)
  }

  private tree(path: string): void {
    if (this.rootOf(path) === undefined) return
    this.add(path)
    this.trees.add(path)
  }

  private rootOf(path: string): string | undefined {
    return this.input.roots.find((root) => isInside(path, root))
  }

  /** `cwd` and the folders above it while they lie in a root (all the way up with `toTop`). */
  private chain(cwd: string, toTop = false): string[] {
    const dirs: string[] = []
    for (let dir = resolve(cwd); toTop || this.rootOf(dir) !== undefined; dir = dirname(dir)) {
      dirs.push(dir)
      if (dirname(dir) === dir) break
    }
    return dirs
  }

  /** The program a word names, as the shell finds it (PATH's empty and relative entries included). */
  private locate(word: string, cwd: string): string | undefined {
    if (word.includes('/')) return this.file(word, cwd)
    for (const entry of (this.input.env.PATH ?? '').split(delimiter)) {
      const candidate = resolve(cwd, entry || '.', word)
      if (isExecutableFile(candidate)) return candidate
    }
    return undefined
  }

  private file(word: string, cwd: string): string | undefined {
    const path =
      word === '~' || word.startsWith('~/') ? join(this.input.home, word.slice(1)) : resolve(cwd, word)
    return exists(path) ? path : undefined
  }

  /** A word with `$VAR` and `${VAR}` of the command's environment filled in; undefined when still unknown. */
  private expand(word: ShellWord): string | undefined {
    if (!word.expands) return word.value
    const value = word.value.replace(
      /\$\{(\w+)\}|\$(\w+)/g,
      (match, a?: string, b?: string) => this.input.env[a ?? b ?? ''] ?? match,
    )
    return /[$`]/.test(value) ? undefined : value
  }
}
