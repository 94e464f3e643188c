import type { ShellWord } from './shell-split.js'

/** Options that take a value: short letters (`-n 5`, `-n5`) and long names (`--signal KILL`, `--signal=KILL`). */
export interface OptionSpec {
  short?: string
  long?: readonly string[]
}

export interface ScannedArguments {
  /** Where scanning stopped: the first operand with `stopAtOperand`, else the end. */
  index: number
  operands: ShellWord[]
  /** Values of the options that take one, by name (`-t`, `--target-directory`; `--x=v` for any long option). */
  values: Map<string, ShellWord[]>
  /** Every option seen, by name (short clusters split per letter). */
  flags: Set<string>
  /** An option or an option's value is only known at run time (`$FLAGS`): it could be anything, even several words. */
  dynamic: boolean
}

const EMPTY: ShellWord = { value: '', raw: '', expands: false, glob: false }

/** A word made of the tail of another (`-n5` → `5`, `--output=f` → `f`). */
export function tailOf(word: ShellWord, from: number): ShellWord {
  const value = word.value.slice(from)
  return { value, raw: value, expands: word.expands, glob: word.glob }
}

/**
 * getopt-style scanning of a program's arguments. With `stopAtOperand` the options end at the first
 * operand (how `timeout`, `sudo`, `env` read their own options before the command they run); otherwise
 * options may follow operands, as GNU tools allow. `--` ends the options either way.
 */
export function scanArguments(
  args: readonly ShellWord[],
  spec: OptionSpec = {},
  opts: { stopAtOperand?: boolean } = {},
): ScannedArguments {
  const result: ScannedArguments = {
    index: args.length,
    operands: [],
    values: new Map(),
    flags: new Set(),
    dynamic: false,
  }
  const add = (name: string, value?: ShellWord) => {
    result.flags.add(name)
    if (value === undefined) return
    if (value.expands) result.dynamic = true
    result.values.set(name, [...(result.values.get(name) ?? []), value])
  }
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!
    const v = w.value
    if (v === '--') {
      if (opts.stopAtOperand) result.index = i + 1
      else result.operands.push(...args.slice(i + 1))
      break
    }
    if (!v.startsWith('-') || v === '-') {
      if (opts.stopAtOperand) {
        result.index = i
        break
      }
      result.operands.push(w)
      continue
    }
    if (w.expands) result.dynamic = true
    if (v.startsWith('--')) {
      const eq = v.indexOf('=')
      const name = eq === -1 ? v : v.slice(0, eq)
      if (eq !== -1) add(name, tailOf(w, eq + 1))
      else add(name, spec.long?.includes(name) ? (args[++i] ?? EMPTY) : undefined)
      continue
    }
    for (let j = 1; j < v.length; j++) {
      const letter = v[j]!
      if (spec.short?.includes(letter)) {
        add(`-${letter}`, j + 1 < v.length ? tailOf(w, j + 1) : (args[++i] ?? EMPTY))
        break
      }
      add(`-${letter}`)
    }
  }
  return result
}

/** Values of the named options, in order. */
export function valuesOf(scanned: ScannedArguments, ...names: string[]): ShellWord[] {
  return names.flatMap((n) => scanned.values.get(n) ?? [])
}

export function hasOption(scanned: ScannedArguments, ...names: string[]): boolean {
  return names.some((n) => scanned.flags.has(n))
}
