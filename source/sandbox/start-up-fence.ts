import { accessSync, constants, lstatSync, readlinkSync, realpathSync } from 'node:fs'
import { basename, dirname, join, resolve, sep } from 'node:path'
import {
  PROJECT_START_UP,
  type StartUpPath,
  startUpBases,
  startUpPaths,
} from '../permissions/start-up-files.js'

/**
 * What the sandbox does about the files that run code at a later start (permissions/start-up-files.ts)
 * where they lie in a writable root: a workspace or added directory that is the home directory, one that
 * holds what `~/.bashrc` links to, and every project's `.vscode/` and `.idea/`. Planned from the file
 * system just before each command, like the rest of the fence.
 *
 * An existing one is bound read-only (its real path: a link's target); a missing folder is reserved like
 * a missing `.git`. A missing file cannot be on Linux: bubblewrap would have to create it on the host
 * first, and an empty `~/.bash_profile` there stops login shells reading `~/.profile`; Seatbelt denies
 * creating it. And where a writable root holds the home directory, no list is complete (what `~/.bashrc`
 * sources, the programs on PATH folders below it): there the sandbox does not hold, and says why.
 */
export interface StartUpFence {
  /** Existing entries in a writable root, real paths: read-only. */
  readOnly: string[]
  /** Missing folders in a writable root: reserved (an empty read-only directory while a command runs). */
  reserved: string[]
  /** Missing files in a writable root: Seatbelt keeps them from being created, bubblewrap cannot. */
  reservedFiles: string[]
  /** Entries that are symlinks in a writable root: any command could replace the link. */
  replaceable: string[]
  /** Why the sandbox cannot keep what runs later from changing, when it cannot (for the policy). */
  leaks: string[]
}

export interface StartUpRoots {
  home: string
  env: Readonly<Record<string, string | undefined>>
  /** Real paths of the workspace and the added directories (their `.vscode/` and `.idea/`). */
  projectRoots: readonly string[]
  /** Real paths of everything writable. */
  writable: readonly string[]
}

export function planStartUp(roots: StartUpRoots): StartUpFence {
  const plan: StartUpFence = { readOnly: [], reserved: [], reservedFiles: [], replaceable: [], leaks: [] }
  // Entries share their folders (~, ~/.config): each is resolved once per plan.
  const reals = new Map<string, string | undefined>()
  const realOf = (path: string) => {
    if (!reals.has(path)) reals.set(path, realOrUndefined(path))
    return reals.get(path)
  }
  const inWritable = (path: string) => roots.writable.some((root) => isInside(path, root))
  const add = (list: string[], path: string) => {
    if (!list.includes(path)) list.push(path)
  }
  const realHome = realOf(roots.home) ?? resolve(roots.home)
  if (roots.writable.some((root) => isInside(realHome, root))) {
    plan.leaks.push(
      'the home directory is writable in the sandbox, and what your shell and tools run when they next start (~/.bashrc, what it sources, programs on PATH below ~) cannot all be kept read-only',
    )
  }
  const entries: StartUpPath[] = [
    ...startUpPaths(startUpBases(roots.home, roots.env)),
    ...roots.projectRoots.flatMap((root) =>
      [...PROJECT_START_UP].map(([name, why]) => ({
        path: join(root, name),
        kind: 'dir' as const,
        why,
        shown: name,
      })),
    ),
  ]
  for (const entry of entries) {
    const info = lstatSync(entry.path, { throwIfNoEntry: false })
    if (info?.isSymbolicLink() && inWritable(entry.path)) add(plan.replaceable, entry.path)
    const real =
      info === undefined
        ? wouldBe(entry.path, realOf)
        : (realOf(entry.path) ?? linkTarget(entry.path, realOf))
    if (real === undefined) continue
    const holdsRoot = roots.writable.find((root) => isInside(root, real))
    if (holdsRoot !== undefined && entry.kind === 'dir') {
      // Binding it read-only would take the root with it: the workspace is itself such a folder.
      plan.leaks.push(`${holdsRoot} is inside ${entry.shown}, and ${entry.why}`)
      continue
    }
    if (!inWritable(real)) continue
    const exists = lstatSync(real, { throwIfNoEntry: false }) !== undefined
    if (exists) add(plan.readOnly, real)
    else if (entry.kind === 'file') add(plan.reservedFiles, real)
    else if (creatable(real)) add(plan.reserved, real)
  }
  return plan
}

type RealOf = (path: string) => string | undefined

/** Where a missing path would be created: its nearest existing parent's real path, plus the rest. */
function wouldBe(path: string, realOf: RealOf): string | undefined {
  let dir = dirname(path)
  const rest = [basename(path)]
  for (;;) {
    const real = realOf(dir)
    if (real !== undefined) return join(real, ...rest)
    if (dirname(dir) === dir) return undefined
    rest.unshift(basename(dir))
    dir = dirname(dir)
  }
}

/** A dangling link: where writing through it would create the file. */
function linkTarget(path: string, realOf: RealOf): string | undefined {
  try {
    return wouldBe(resolve(dirname(path), readlinkSync(path)), realOf)
  } catch {
    return undefined
  }
}

/** bubblewrap creates a reserved folder's mount point, parents included: the nearest existing one must be writable. */
function creatable(path: string): boolean {
  let dir = dirname(path)
  while (lstatSync(dir, { throwIfNoEntry: false }) === undefined && dirname(dir) !== dir) dir = dirname(dir)
  try {
    accessSync(dir, constants.W_OK)
    return true
  } catch {
    return false
  }
}

/** Asks first: most entries do not exist, and the error realpath throws costs far more than a stat. */
function realOrUndefined(path: string): string | undefined {
  if (lstatSync(path, { throwIfNoEntry: false }) === undefined) return undefined
  try {
    return realpathSync.native(path)
  } catch {
    return undefined
  }
}

/** For absolute, normalized paths (real paths are): a prefix test, this runs for every entry on every command. */
function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`)
}
