import type { ShellWord } from './shell-split.js'

/**
 * What a git command's own `-c key=value` / `--config-env` settings make git run: an alias's `!command`,
 * a pager, an editor, an ssh command, a diff or merge driver… git hands those values to a shell, so
 * they are commands of their own for deny rules and the rest of the policy (`git -c alias.x='!rm y' x`
 * runs `rm`). A setting that points git at programs elsewhere (a hooks folder, an included config, an
 * exec path) or comes from the environment runs something only known when it runs. Pure.
 */

export interface GitConfigRuns {
  /** Shell commands the settings name. */
  scripts: string[]
  /** Why something git would run cannot be known here, if so. */
  unknown?: string
}

/** Keys (lower-case; `*` one dotted part) whose value is a command git runs through the shell. */
const COMMAND_KEYS = [
  'core.pager',
  'pager.*',
  'core.editor',
  'sequence.editor',
  'core.sshcommand',
  'core.fsmonitor',
  'core.askpass',
  'core.gitproxy',
  'diff.external',
  'diff.*.command',
  'diff.*.textconv',
  'filter.*.clean',
  'filter.*.smudge',
  'filter.*.process',
  'merge.*.driver',
  'gpg.program',
  'gpg.*.program',
  'difftool.*.cmd',
  'mergetool.*.cmd',
  'remote.*.uploadpack',
  'remote.*.receivepack',
  'browser.*.cmd',
  'man.*.cmd',
  'sendemail.tocmd',
  'sendemail.cccmd',
].map((key) => new RegExp(`^${key.replace(/\./g, '\\.').replace(/\*/g, '[^.]+')}$`))

/** Keys that make git run programs named elsewhere (a folder of hooks, another config file…). */
const INDIRECT_KEYS = [
  /^core\.hookspath$/,
  /^include\.path$/,
  /^includeif\..+\.path$/,
  /^init\.templatedir$/,
  /^protocol\.(ext\.)?allow$/,
  /^credential\.(.+\.)?helper$/,
  /^uploadpack\.packobjectshook$/,
]

/** git's options that take a value, before the subcommand. */
const VALUE_OPTIONS = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--exec-path',
  '--config-env',
])

/** The settings given to `git` before its subcommand (`args` excludes `git` itself). */
export function gitConfigRuns(args: readonly ShellWord[]): GitConfigRuns {
  const scripts: string[] = []
  let unknown: string | undefined
  const setting = (word: ShellWord | undefined, fromEnv: boolean) => {
    if (!word) return
    const eq = word.value.indexOf('=')
    const key = (eq < 0 ? word.value : word.value.slice(0, eq)).toLowerCase()
    const value = eq < 0 ? '' : word.value.slice(eq + 1)
    const alias = key.startsWith('alias.')
    const command = COMMAND_KEYS.some((k) => k.test(key))
    if (!alias && !command && !INDIRECT_KEYS.some((k) => k.test(key))) return
    if (alias && !fromEnv && !value.startsWith('!')) return // a git subcommand, not a shell command
    if (fromEnv || word.expands || !(alias || command)) {
      unknown ??= `its setting ${key} makes git run a program only known when it runs`
      return
    }
    scripts.push(alias ? value.slice(1) : value)
  }
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!
    const v = w.value
    if (v === '-c' || v === '--config-env') {
      setting(args[++i], v === '--config-env')
      continue
    }
    if (v.startsWith('--config-env=')) {
      setting({ ...w, value: v.slice('--config-env='.length) }, true)
      continue
    }
    if (v.startsWith('-c') && v.length > 2) {
      setting({ ...w, value: v.slice(2) }, false)
      continue
    }
    if (v === '--exec-path' || v.startsWith('--exec-path=')) {
      unknown ??= 'its --exec-path makes git run programs from another folder'
      if (v === '--exec-path') i++
      continue
    }
    if (VALUE_OPTIONS.has(v)) {
      i++
      continue
    }
    if (!v.startsWith('-')) break
  }
  return unknown === undefined ? { scripts } : { scripts, unknown }
}
