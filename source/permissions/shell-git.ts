import { scanArguments, tailOf } from './shell-options.js'
import { type PathArg, UNKNOWN_WORD, writes } from './shell-path-args.js'
import type { ShellWord } from './shell-split.js'

/**
 * git commands that rewrite the repository's config or hooks, as write targets for the policy:
 * `git config` (setting), `git remote add`, `git submodule add`, `git lfs install`… write `.git/config`
 * or `.git/hooks`, which always ask; `git config --global` writes `~/.gitconfig`. Other git commands
 * write `.git/` objects and refs, which a rule like `Bash(git commit *)` is meant to allow, so they are
 * not listed; nor are `git push -u` / `git branch -u`, whose upstream keys cannot run anything. Pure.
 */

const word = (value: string): ShellWord => ({ value, raw: value, expands: false, glob: false })

const GIT_VALUE_OPTIONS = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path'])

/**
 * git commands that rewrite the repository's config or hooks (`git config`, `git remote add`,
 * `git submodule add`, `git branch -u`, `git lfs install`…) write `.git/config` / `.git/hooks`;
 * `git config --global` writes `~/.gitconfig`.
 */
export function gitWrites(args: ShellWord[]): PathArg[] {
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
  const operands = scanArguments(rest, {
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
  if (inline) return writes([tailOf(inline, '--file='.length)])
  if (flags.includes('--global')) return writes([word('~/.gitconfig')])
  if (flags.includes('--system')) return writes([word('/etc/gitconfig')])
  return repo('config')
}
