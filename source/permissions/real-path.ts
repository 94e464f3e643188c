import { lstat, readlink, realpath } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { commandPathsToResolve } from './command-analysis.js'
import type { PermissionTarget } from './target.js'

/**
 * The one place where paths are resolved for permission checks and for the writes that follow them
 * (SPEC §7: judge a path after resolving symlinks). Everything else in permissions/ is pure and works
 * on the `real` fields this module fills in.
 */

// Like the kernel's limit on symlinks followed in one lookup.
const MAX_LINKS = 40

/**
 * The real path of `abs`: `realpath` when it exists; for a path that does not exist yet, the real
 * path of its nearest existing parent plus the missing tail. A dangling symlink is followed to where it
 * points, because writing through it would create that file. Never throws: a loop or an unreadable
 * parent leaves the rest of the path as written.
 */
export async function realPathOf(abs: string): Promise<string> {
  return resolveFrom(resolve(abs), 0)
}

async function resolveFrom(abs: string, links: number): Promise<string> {
  try {
    return await realpath(abs)
  } catch {
    // Missing (or unreadable): resolve what exists above it.
  }
  const parent = dirname(abs)
  if (parent === abs) return abs
  const info = await lstat(abs).catch(() => undefined)
  if (info?.isSymbolicLink() && links < MAX_LINKS) {
    const link = await readlink(abs).catch(() => undefined)
    if (link !== undefined) return resolveFrom(resolve(await resolveFrom(parent, links + 1), link), links + 1)
  }
  return join(await resolveFrom(parent, links), basename(abs))
}

export interface ResolveOptions {
  /** Relative paths in commands resolve against the target's cwd, or this. */
  workspace: string
  home: string
}

/**
 * Fills in the `real` fields of a target, once per tool call, before the policy judges it: the real
 * path of a path target, and of every path a shell command names (arguments and redirections, resolved
 * against its cwd, as `commandPathsToResolve` lists them).
 */
export async function resolveTarget(
  target: PermissionTarget,
  opts: ResolveOptions,
): Promise<PermissionTarget> {
  switch (target.kind) {
    case 'path':
      return { ...target, real: await realPathOf(target.path) }
    case 'command': {
      const paths = commandPathsToResolve(target.command, target.cwd ?? opts.workspace, opts.home)
      if (paths.length === 0) return target
      const reals = await Promise.all(paths.map((p) => realPathOf(p)))
      const real: Record<string, string> = {}
      paths.forEach((p, i) => {
        real[p] = reals[i]!
      })
      return { ...target, real }
    }
    default:
      return target
  }
}
