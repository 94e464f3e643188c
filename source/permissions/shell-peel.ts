import { hasOption, type OptionSpec, type ScannedArguments, scanArguments } from './shell-options.js'
import type { ShellWord } from './shell-split.js'

/** What a command wrapper does with its arguments (see shell-wrappers.ts, shell-runners.ts). Pure. */

export type Peeled =
  /** Not wrapping anything in this form (`command -v rm`, bare `env`): the wrapper is the program. */
  | { kind: 'self' }
  | { kind: 'unknown'; reason: string }
  /** Runs a script given as text (`bash -c '…'`, `eval …`). */
  | { kind: 'script'; script: string; flag?: string }
  /** Runs `rest` as a command. */
  | {
      kind: 'run'
      rest: ShellWord[]
      /** Sets variables, clears the environment, renames argv[0], or runs as someone else. */
      changesEnvironment?: boolean
      /**
       * Removes variables (`env -i`, `env -u X`, `exec -c`): the Bash tool's own safety settings
       * (`safe.bareRepository` for git) go with them, so what it runs no longer counts as read-only.
       */
      clearsEnvironment?: boolean
      /** More arguments arrive at run time (xargs). */
      openArgs?: boolean
      chdir?: ShellWord
      /** Files the wrapper itself writes (`time -o FILE`). */
      writes?: ShellWord[]
      assignments?: ShellWord[]
    }

export type Peel = (args: ShellWord[]) => Peeled

export const DYNAMIC: Peeled = { kind: 'unknown', reason: 'its options are only known when it runs' }

export function options(args: ShellWord[], spec: OptionSpec = {}): ScannedArguments {
  return scanArguments(args, spec, { stopAtOperand: true })
}

/** A wrapper whose options come first and whose first operand is the command. */
export function simple(spec: OptionSpec, selfWhen: readonly string[] = []): Peel {
  return (args) => {
    const parsed = options(args, spec)
    if (parsed.dynamic) return DYNAMIC
    if (hasOption(parsed, ...selfWhen)) return { kind: 'self' }
    const rest = args.slice(parsed.index)
    return rest.length === 0 ? { kind: 'self' } : { kind: 'run', rest }
  }
}

export function scriptOf(text: string, words: readonly ShellWord[], flag?: string): Peeled {
  if (words.some((w) => w.expands))
    return { kind: 'unknown', reason: 'its script is only known when it runs' }
  return flag === undefined ? { kind: 'script', script: text } : { kind: 'script', script: text, flag }
}
