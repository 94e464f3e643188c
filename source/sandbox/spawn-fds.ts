import { mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

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
  /** What the sandbox program reads its seccomp filter from: our descriptor `from`, at `at` in the child. */
  input?: { at: number; from: number }
  /** Descriptors to overwrite with /dev/null in the child (see `inheritedDescriptors`). */
  covered: readonly number[]
  /** An open /dev/null of agent-tui's, when `covered` is not empty. */
  devNull?: number
}

/**
 * The spawn's stdio: the caller's `base` (0-2, and the info pipe when asked for), the input at its
 * place, and /dev/null over each inherited descriptor that no entry replaces. Node leaves an
 * `'ignore'` above 2 as it was, so those get /dev/null too.
 */
export function sandboxStdio(base: readonly StdioEntry[], fds: SandboxFds): StdioEntry[] {
  const stdio = [...base]
  const put = (fd: number, entry: StdioEntry) => {
    while (stdio.length < fd) stdio.push('ignore')
    stdio[fd] = entry
  }
  if (fds.input !== undefined) {
    if (fds.input.at < base.length) throw new Error(`descriptor ${fds.input.at} is the caller's`)
    put(fds.input.at, fds.input.from)
  }
  if (fds.devNull !== undefined) {
    for (const fd of fds.covered) if (fd >= stdio.length || stdio[fd] === 'ignore') put(fd, fds.devNull)
  }
  return stdio
}

/**
 * Bytes a child reads from a descriptor to its end, ready before the child starts: an unlinked file,
 * not a pipe, so bubblewrap never waits for agent-tui's event loop to write and close one (milliseconds
 * on a busy machine). Each spawn gets its own open file (`open()`, Linux: through /proc/self/fd), with
 * its own offset; the caller closes it once the child has it.
 */
export function createInputFile(bytes: Uint8Array): { open(): number } {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tui-input-'))
  const path = join(dir, 'input')
  let fd: number
  try {
    writeFileSync(path, bytes, { flag: 'wx', mode: 0o600 })
    fd = openSync(path, 'r')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return { open: () => openSync(`/proc/self/fd/${fd}`, 'r') }
}
