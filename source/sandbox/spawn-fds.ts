import type { ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/** One entry of a spawn's `stdio` array, as agent-tui's callers use them. */
export type StdioEntry = 'pipe' | 'ignore' | number

const O_CLOEXEC = 0o2000000

/**
 * Descriptors above 2 that agent-tui inherited without close-on-exec (Linux: read from
 * /proc/self/fdinfo). Node opens its own with close-on-exec, but whatever started agent-tui may have
 * left one open — a socket to a host daemon among them — and every child, the sandbox included,
 * would get it: no `socket()` or `connect()` needed. Empty where /proc cannot say.
 */
export function inheritedDescriptors(): number[] {
  let entries: string[]
  try {
    entries = readdirSync('/proc/self/fdinfo')
  } catch {
    return []
  }
  const found: number[] = []
  for (const entry of entries) {
    const fd = Number(entry)
    if (!Number.isInteger(fd) || fd <= 2) continue
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${entry}`, 'utf8'))?.[1]
      if (flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) found.push(fd)
    } catch {
      // Closed meanwhile (the directory listing's own descriptor among them).
    }
  }
  return found.sort((a, b) => a - b)
}

export interface SandboxFds {
  /** The descriptor the sandbox program reads `input` from (a pipe), when it reads one. */
  inputFd?: number
  input?: Uint8Array
  /** Descriptors to overwrite with /dev/null in the child (see `inheritedDescriptors`). */
  covered: readonly number[]
  /** An open /dev/null of agent-tui's, when `covered` is not empty. */
  devNull?: number
}

/**
 * The spawn's stdio: the caller's `base` (0-2, and the info pipe when asked for), a pipe at
 * `inputFd`, and /dev/null over each inherited descriptor that no entry replaces. Node leaves an
 * `'ignore'` above 2 as it was, so those get /dev/null too.
 */
export function sandboxStdio(base: readonly StdioEntry[], fds: SandboxFds): StdioEntry[] {
  const stdio = [...base]
  const put = (fd: number, entry: StdioEntry) => {
    while (stdio.length < fd) stdio.push('ignore')
    stdio[fd] = entry
  }
  if (fds.inputFd !== undefined) {
    if (fds.inputFd < base.length) throw new Error(`descriptor ${fds.inputFd} is the caller's`)
    put(fds.inputFd, 'pipe')
  }
  if (fds.devNull !== undefined) {
    for (const fd of fds.covered) if (fd >= stdio.length || stdio[fd] === 'ignore') put(fd, fds.devNull)
  }
  return stdio
}

/** Writes the sandbox program's input into its pipe, once the child is spawned. */
export function feedInput(child: ChildProcess, fds: SandboxFds): void {
  if (fds.inputFd === undefined || fds.input === undefined) return
  const pipe = child.stdio[fds.inputFd]
  if (!pipe || !('end' in pipe)) return
  // A sandbox program that failed before reading says why on stderr and in its exit code.
  pipe.on('error', () => {})
  pipe.end(fds.input)
}
