import { DYNAMIC, options, type Peel, type Peeled, scriptOf, simple } from './shell-peel.js'
import { hasOption, valuesOf } from './shell-options.js'
import type { ShellWord } from './shell-split.js'

/**
 * Programs that run a command they are given, beyond the usual wrappers: lock, scheduling, tracing and
 * namespace tools. Deny rules must see the program through them (`flock /tmp/l rm x` runs `rm`).
 * None keeps a reader a reader, and allow rules do not see through them. Pure.
 */

/** After the options, one operand that is not the command (a lock file, a CPU mask, a priority, a root). */
function afterOperand(spec: Parameters<typeof options>[1], selfWhen: readonly string[] = []): Peel {
  return (args) => {
    const parsed = options(args, spec)
    if (parsed.dynamic) return DYNAMIC
    if (hasOption(parsed, ...selfWhen)) return { kind: 'self' }
    const operand = args[parsed.index]
    if (operand?.expands) return { kind: 'unknown', reason: 'its arguments are only known when it runs' }
    const rest = args.slice(parsed.index + 1)
    return rest.length === 0 ? { kind: 'self' } : { kind: 'run', rest }
  }
}

/** `flock [opts] FILE CMD…` or `flock [opts] FILE -c 'CMD'`; `flock [opts] FD` only locks. */
const peelFlock: Peel = (args) => {
  const parsed = options(args, { short: 'wE', long: ['--timeout', '--wait', '--conflict-exit-code'] })
  if (parsed.dynamic) return DYNAMIC
  const rest = args.slice(parsed.index + 1)
  const c = rest.findIndex((w) => w.value === '-c' || w.value === '--command')
  if (c === 0) {
    const script = rest[1]
    return script ? scriptOf(script.value, [script], '-c') : { kind: 'self' }
  }
  return rest.length === 0 ? { kind: 'self' } : { kind: 'run', rest }
}

/** `script -c CMD [file]` runs CMD; without -c it starts an interactive shell. */
const peelScript: Peel = (args) => {
  const parsed = options(args, {
    short: 'cEIOBTm',
    long: ['--command', '--echo', '--log-in', '--log-out', '--log-io', '--log-timing', '--logging-format'],
  })
  if (parsed.dynamic) return DYNAMIC
  const command = valuesOf(parsed, '-c', '--command')[0]
  return command ? scriptOf(command.value, [command], '-c') : { kind: 'self' }
}

/** strace/ltrace: `-p PID` attaches to a process (the tracer is the program); `-o FILE` writes it. */
function tracer(short: string, long: readonly string[]): Peel {
  return (args) => {
    const parsed = options(args, { short, long: [...long] })
    if (parsed.dynamic) return DYNAMIC
    if (hasOption(parsed, '-p', '--attach')) return { kind: 'self' }
    const rest = args.slice(parsed.index)
    if (rest.length === 0) return { kind: 'self' }
    const writes = valuesOf(parsed, '-o', '--output')
    return { kind: 'run', rest, ...(writes.length > 0 ? { writes } : {}) } satisfies Peeled
  }
}

/** `unshare [opts] [cmd]`: `-w DIR` runs it elsewhere; no command starts a shell. */
const peelUnshare: Peel = (args) => {
  const parsed = options(args, {
    short: 'SGRw',
    long: ['--setuid', '--setgid', '--root', '--wd', '--propagation', '--setgroups', '--kill-child'],
  })
  if (parsed.dynamic) return DYNAMIC
  const rest = args.slice(parsed.index)
  if (rest.length === 0) return { kind: 'self' }
  const chdir: ShellWord | undefined = valuesOf(parsed, '-w', '--wd')[0]
  return { kind: 'run', rest, changesEnvironment: true, ...(chdir ? { chdir } : {}) }
}

export const RUNNERS: Readonly<Record<string, Peel>> = {
  flock: peelFlock,
  taskset: afterOperand({}, ['-p', '--pid']),
  chrt: afterOperand({ short: 'TPD', long: ['--sched-runtime', '--sched-period', '--sched-deadline'] }, [
    '-p',
    '--pid',
  ]),
  prlimit: simple({ short: 'p', long: ['--pid', '--output'] }, ['-p', '--pid']),
  unbuffer: simple({}),
  fakeroot: simple({ short: 'lsib', long: ['--lib', '--faked'] }),
  chroot: afterOperand({ long: ['--userspec', '--groups'] }),
  strace: tracer('abeEIoOpPsSuUX', ['--output', '--attach', '--expr', '--user', '--env']),
  ltrace: tracer('aAeEnopsuxDFLT', ['--output', '--library', '--user']),
  unshare: peelUnshare,
  script: peelScript,
  caffeinate: simple({ short: 'tw' }),
  // Multi-call binaries: the first operand names the applet (`busybox rm x` is `rm x`).
  busybox: simple({}, ['--list', '--list-full', '--help', '--install']),
  toybox: simple({}, ['--help', '--long']),
  pkexec: simple({ long: ['--user'] }, ['--version', '--help']),
}
