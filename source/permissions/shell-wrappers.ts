import { DYNAMIC, options, type Peel, type Peeled, scriptOf, simple } from './shell-peel.js'
import { RUNNERS } from './shell-runners.js'
import { hasOption, valuesOf } from './shell-options.js'
import type { ShellWord } from './shell-split.js'
import { isAssignment } from './shell-words.js'

export type { Peeled } from './shell-peel.js'

/**
 * How each command wrapper reads its own arguments, so shell-unwrap.ts can find the program it runs.
 * Pure. Anything a wrapper takes that is only known at run time (`timeout $T rm x` — `$T` may split into
 * `5 evil`) makes the program unknown.
 */

/** Wrappers that run the program with its arguments and environment as written. */
export const PLAIN_WRAPPERS: ReadonlySet<string> = new Set([
  'command',
  'builtin',
  'exec',
  'nohup',
  'time',
  'nice',
  'timeout',
  'stdbuf',
  'setsid',
  'ionice',
  'env',
  'bash',
  'sh',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'ash',
  'eval',
])

/** Wrappers after which a read-only program still only reads (not sudo, doas, su, xargs, watch). */
export const READ_ONLY_WRAPPERS: ReadonlySet<string> = PLAIN_WRAPPERS

const peelTimeout: Peel = (args) => {
  const parsed = options(args, { short: 'sk', long: ['--signal', '--kill-after'] })
  if (parsed.dynamic) return DYNAMIC
  if (args[parsed.index]?.expands)
    return { kind: 'unknown', reason: 'its duration is only known when it runs' }
  const rest = args.slice(parsed.index + 1) // after the duration
  return rest.length === 0 ? { kind: 'self' } : { kind: 'run', rest }
}

const peelNice: Peel = (args) => {
  // `nice -5 cmd` and `nice --10 cmd` are adjustments, not options.
  const skip = args[0] && /^--?\d+$/.test(args[0].value) ? 1 : 0
  const parsed = options(args.slice(skip), { short: 'n', long: ['--adjustment'] })
  if (parsed.dynamic) return DYNAMIC
  const rest = args.slice(skip + parsed.index)
  return rest.length === 0 ? { kind: 'self' } : { kind: 'run', rest }
}

const peelTime: Peel = (args) => {
  const parsed = options(args, { short: 'fo', long: ['--format', '--output'] })
  if (parsed.dynamic) return DYNAMIC
  const rest = args.slice(parsed.index)
  if (rest.length === 0) return { kind: 'self' }
  const writes = valuesOf(parsed, '-o', '--output')
  return { kind: 'run', rest, ...(writes.length > 0 ? { writes } : {}) }
}

const peelEnv: Peel = (args) => {
  const parsed = options(args, { short: 'uCS', long: ['--unset', '--chdir', '--split-string'] })
  if (parsed.dynamic) return DYNAMIC
  let i = parsed.index
  // A lone `-` is the old spelling of `-i`.
  const dash = args[i]?.value === '-'
  if (dash) i++
  const assignments: ShellWord[] = []
  while (i < args.length && isAssignment(args[i]!)) assignments.push(args[i++]!)
  const split = valuesOf(parsed, '-S', '--split-string')
  if (split.length > 0) {
    const words = [...split, ...args.slice(i)]
    return scriptOf(words.map((w) => w.value).join(' '), words, '-S')
  }
  const rest = args.slice(i)
  // Bare `env` (or with only assignments) prints the environment.
  if (rest.length === 0) return { kind: 'self' }
  const chdir = valuesOf(parsed, '-C', '--chdir')[0]
  const clears = dash || hasOption(parsed, '-i', '--ignore-environment', '-u', '--unset')
  return {
    kind: 'run',
    rest,
    changesEnvironment: assignments.length > 0 || parsed.flags.size > 0 || dash,
    ...(clears ? { clearsEnvironment: true } : {}),
    assignments,
    ...(chdir ? { chdir } : {}),
  }
}

const peelExec: Peel = (args) => {
  const parsed = options(args, { short: 'a' })
  if (parsed.dynamic) return DYNAMIC
  const rest = args.slice(parsed.index)
  if (rest.length === 0) return { kind: 'self' }
  const clears = hasOption(parsed, '-c')
  return {
    kind: 'run',
    rest,
    changesEnvironment: hasOption(parsed, '-a', '-c'),
    ...(clears ? { clearsEnvironment: true } : {}),
  }
}

const peelXargs: Peel = (args) => {
  const parsed = options(args, {
    short: 'adEILnPs',
    long: [
      '--arg-file',
      '--delimiter',
      '--eof',
      '--replace',
      '--max-lines',
      '--max-args',
      '--max-procs',
      '--max-chars',
      '--process-slot-var',
    ],
  })
  if (parsed.dynamic) return DYNAMIC
  const rest = args.slice(parsed.index)
  // Without a command xargs runs `echo`.
  if (rest.length === 0) return { kind: 'self' }
  return { kind: 'run', rest, openArgs: true }
}

const peelSudo: Peel = (args) => {
  const parsed = options(args, {
    short: 'ugCDhprtUTR',
    long: [
      '--user',
      '--group',
      '--close-from',
      '--chdir',
      '--host',
      '--prompt',
      '--role',
      '--type',
      '--other-user',
      '--command-timeout',
      '--chroot',
    ],
  })
  if (parsed.dynamic) return DYNAMIC
  let i = parsed.index
  const assignments: ShellWord[] = []
  while (i < args.length && isAssignment(args[i]!)) assignments.push(args[i++]!)
  const rest = args.slice(i)
  if (hasOption(parsed, '-e', '--edit')) {
    // sudoedit: the operands are files it writes.
    const sudoedit: ShellWord = { value: 'sudoedit', raw: 'sudoedit', expands: false, glob: false }
    return { kind: 'run', rest: [sudoedit, ...rest], changesEnvironment: true }
  }
  if (rest.length === 0) return { kind: 'self' }
  const chdir = valuesOf(parsed, '-D', '--chdir')[0]
  return { kind: 'run', rest, changesEnvironment: true, assignments, ...(chdir ? { chdir } : {}) }
}

const peelDoas: Peel = (args) => {
  const parsed = options(args, { short: 'uC' })
  if (parsed.dynamic) return DYNAMIC
  const rest = args.slice(parsed.index)
  if (rest.length === 0 || hasOption(parsed, '-C')) return { kind: 'self' }
  return { kind: 'run', rest, changesEnvironment: true }
}

const peelSu: Peel = (args) => {
  const parsed = options(args, {
    short: 'csgGw',
    long: ['--command', '--shell', '--group', '--supp-group', '--whitelist-environment'],
  })
  if (parsed.dynamic) return DYNAMIC
  const command = valuesOf(parsed, '-c', '--command')[0]
  return command ? scriptOf(command.value, [command], '-c') : { kind: 'self' }
}

/** `bash -c SCRIPT`, `sh -ec SCRIPT`…; a shell reading its script from stdin is unknown. */
const peelShell: Peel = (args) => {
  let i = 0
  let script = false
  let stdin = false
  for (; i < args.length; i++) {
    const w = args[i]!
    const v = w.value
    if (w.expands) return DYNAMIC
    if (v === '--' || v === '-') {
      i++
      break
    }
    if (v === '--rcfile' || v === '--init-file') {
      i++
      continue
    }
    if (v.startsWith('--')) {
      if (v === '--version' || v === '--help') return { kind: 'self' }
      continue
    }
    if (!/^[-+][A-Za-z]+$/.test(v)) break
    if (v.startsWith('-') && v.includes('c')) script = true
    if (v.startsWith('-') && v.includes('s')) stdin = true
    // -o / -O (and +o / +O) take an option name.
    if (/[oO]$/.test(v)) i++
  }
  const operand = args[i]
  if (script) return operand ? scriptOf(operand.value, [operand], '-c') : { kind: 'self' }
  if (operand && !stdin) return { kind: 'self' } // runs a script file
  return { kind: 'unknown', reason: 'the shell reads its commands from standard input' }
}

const peelEval: Peel = (args) => {
  if (args.length === 0) return { kind: 'self' }
  return scriptOf(args.map((a) => a.value).join(' '), args)
}

const peelWatch: Peel = (args) => {
  const parsed = options(args, { short: 'nq', long: ['--interval', '--equexit'] })
  if (parsed.dynamic) return DYNAMIC
  const rest = args.slice(parsed.index)
  if (rest.length === 0) return { kind: 'self' }
  if (hasOption(parsed, '-x', '--exec')) return { kind: 'run', rest }
  return scriptOf(rest.map((a) => a.value).join(' '), rest)
}

/**
 * `alias r='rm -f'`: what the alias will run is judged where it is defined (a shell in POSIX mode, or
 * with `expand_aliases`, runs it later as `r`). Listing aliases is the builtin itself.
 */
const peelAlias: Peel = (args) => {
  const values = args.filter((a) => /^[^=]+=/.test(a.value))
  if (values.length === 0) return { kind: 'self' }
  return scriptOf(values.map((a) => a.value.slice(a.value.indexOf('=') + 1)).join('\n'), values)
}

const SHELLS = ['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash']

const WRAPPERS: Readonly<Record<string, Peel>> = {
  command: simple({}, ['-v', '-V']), // `command -v rm` only looks the name up
  builtin: simple({}),
  exec: peelExec,
  nohup: simple({}),
  time: peelTime,
  nice: peelNice,
  timeout: peelTimeout,
  stdbuf: simple({ short: 'ioe', long: ['--input', '--output', '--error'] }),
  setsid: simple({}),
  ionice: simple({ short: 'cnp', long: ['--class', '--classdata', '--pid', '--pgid', '--uid'] }, [
    '-p',
    '-P',
    '-u',
    '--pid',
    '--pgid',
    '--uid',
  ]),
  env: peelEnv,
  xargs: peelXargs,
  sudo: peelSudo,
  doas: peelDoas,
  su: peelSu,
  eval: peelEval,
  watch: peelWatch,
  alias: peelAlias,
  ...RUNNERS,
  ...Object.fromEntries(SHELLS.map((shell) => [shell, peelShell])),
}

/** How the wrapper `name` reads `args`, or undefined when `name` is not a wrapper. */
export function peelWrapper(name: string, args: ShellWord[]): Peeled | undefined {
  return Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name]!(args) : undefined
}
