import { scanArguments } from './shell-options.js'
import type { ShellWord } from './shell-split.js'

/**
 * Read-only programs told to follow every symlink on their way down (`grep -R`, `find -L`, `du -L`,
 * `ls -RL`, `tree -l`, `rg -L`, `ag -f`, and `diff -r`, which follows them unless told not to): a link anywhere below the folder they are given — one a
 * repository brings, `docs -> ~` — takes the read out of the workspace, and no path the command names
 * says so. The option that does it, when the program was given one. Pure.
 */
export function followOption(name: string, args: readonly ShellWord[]): string | undefined {
  // find's options are whole words (`-follow` is not `-f -o -l…`).
  if (name === 'find') return args.find((w) => w.value === '-L' || w.value === '-follow')?.value
  const check = Object.hasOwn(FOLLOWS, name) ? FOLLOWS[name] : undefined
  if (!check) return undefined
  const s = scanArguments(args, { short: check.short })
  const has = (option: string) =>
    s.flags.has(option) ||
    // GNU tools take a long option by any unambiguous beginning (`--dereference-r`).
    (option.startsWith('--') && [...s.flags].some((f) => f.length > 4 && option.startsWith(f)))
  const given = check.any.find(has)
  if (given === undefined || check.unless?.some(has)) return undefined
  return check.with === undefined || check.with.some(has) ? given : undefined
}

interface FollowCheck {
  /** The program's short options that take a value (so that `-e R` is not `-R`). */
  short: string
  /** Any of these follows links. */
  any: string[]
  /** …but only with one of these (`ls -L` follows its operands only, unless it recurses). */
  with?: string[]
  /** …and not with one of these (`diff -r` follows links unless told not to). */
  unless?: string[]
}

const GREP: FollowCheck = { short: 'efmABCdDX', any: ['-R', '--dereference-recursive'] }

const FOLLOWS: Readonly<Record<string, FollowCheck | undefined>> = {
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  du: { short: 'dBtX', any: ['-L', '--dereference'] },
  ls: { short: 'ITw', any: ['-L', '--dereference'], with: ['-R', '--recursive'] },
  tree: { short: 'LIPo', any: ['-l'] },
  rg: { short: 'efgtTmABCjMdrE', any: ['-L', '--follow'] },
  ag: { short: 'GmABCg', any: ['-f', '--follow'] },
  // diff follows links by default: recursing, it compares what they lead to.
  diff: { short: 'CDFILSUWxX', any: ['-r', '--recursive'], unless: ['--no-dereference'] },
}
