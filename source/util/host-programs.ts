import { accessSync, constants, realpathSync, statSync } from 'node:fs'
import { delimiter, isAbsolute, join, relative, sep } from 'node:path'

/**
 * The programs agent-tui runs itself, outside any sandbox (git for checkpoints and its own questions,
 * bash for hooks and unsandboxed commands, ripgrep), found once per session by absolute path on PATH,
 * never in a folder the model or a sandboxed command can write: the workspace, the added directories,
 * the session outputs. A `PATH` entry there (`./node_modules/.bin`, `$PWD/bin`, a relative or empty
 * entry, which means the current directory) would let a planted `git` run with the user's rights the
 * next time agent-tui takes a checkpoint. A program is also refused when its real path (symlinks
 * resolved) lies in such a folder.
 */

export interface HostProgramsOptions {
  /** `PATH` as agent-tui was started with. */
  path: string | undefined
  /** Real paths a sandboxed command or the model may write: nothing there is run. */
  unsafe: readonly string[]
}

export interface HostPrograms {
  /** Absolute path of `name`, or undefined when only unsafe folders (or none) have it. Looked up once. */
  find(name: string): string | undefined
  /** `bash`, else `/bin/bash` (every Linux and macOS has one there). */
  shell(): string
  /** The folders nothing is run from (for messages and other checks). */
  readonly unsafe: readonly string[]
}

export function createHostPrograms(opts: HostProgramsOptions): HostPrograms {
  const found = new Map<string, string | undefined>()
  const find = (name: string) => {
    if (!found.has(name)) found.set(name, findHostProgram(name, opts))
    return found.get(name)
  }
  return {
    find,
    shell: () => find('bash') ?? '/bin/bash',
    unsafe: opts.unsafe,
  }
}

/** The first `name` on PATH that is an executable file outside the unsafe folders. */
export function findHostProgram(name: string, opts: HostProgramsOptions): string | undefined {
  if (name === '' || name.includes('/')) return undefined
  for (const dir of (opts.path ?? '').split(delimiter)) {
    // Empty and relative entries are relative to whatever the current directory is.
    if (!isAbsolute(dir)) continue
    const candidate = join(dir, name)
    const real = realOrUndefined(candidate)
    if (real === undefined || !isExecutableFile(real)) continue
    const realDir = realOrUndefined(dir) ?? dir
    if (isUnsafe(realDir, opts.unsafe) || isUnsafe(real, opts.unsafe)) continue
    return candidate
  }
  return undefined
}

/**
 * PATH without the entries a program must not be found in: relative and empty ones (the current
 * directory) and those inside the unsafe folders. For what agent-tui starts through a shell itself (the
 * user's `$EDITOR`, the browser), whose name it cannot resolve once.
 */
export function safePath(path: string | undefined, unsafe: readonly string[]): string {
  return (path ?? '')
    .split(delimiter)
    .filter((dir) => isAbsolute(dir) && !isUnsafe(realOrUndefined(dir) ?? dir, unsafe))
    .join(delimiter)
}

/** Whether `path` (a real path) lies in one of the unsafe folders. */
export function isUnsafe(path: string, unsafe: readonly string[]): boolean {
  return unsafe.some((root) => {
    const rel = relative(root, path)
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
  })
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}
