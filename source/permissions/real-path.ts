import { lstatSync, readlinkSync, realpathSync } from 'node:fs'
import { lstat, readlink, realpath } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { analysisOf, commandLookups } from './command-analysis.js'
import { globEscape } from './glob-escape.js'
import { scanGitConfig } from './git-config-scan.js'
import type { GitConfigFacts } from './git-read-only.js'
import { physicalJoin, physicalPath } from './physical-path.js'
import { type StartUpPath, startUpBases, startUpPaths } from './start-up-files.js'
import type { PermissionTarget } from './target.js'

/**
 * The one place where paths are resolved for permission checks and for the writes that follow them
 * (docs/permissions.md#paths-are-judged-where-they-really-lead). Everything else in permissions/ is pure and works
 * on the `real` fields this module fills in.
 */

// Like the kernel's limit on symlinks followed in one lookup.
const MAX_LINKS = 40

/**
 * The real path of `abs`, walked as the kernel walks it: `realpath` when it exists; otherwise component
 * by component, following each symlink before a `..` that comes after it (`link/../x` with
 * `link -> /elsewhere/dir` is `/elsewhere/x`, not `x` next to the link), and for a path that does not
 * exist yet, the real path of its nearest existing parent plus the missing tail. A dangling symlink is
 * followed to where it points, because writing through it would create that file. Never throws: a
 * loop or an unreadable parent leaves the rest of the path as written.
 */
export async function realPathOf(abs: string): Promise<string> {
  const path = physicalJoin(process.cwd(), abs)
  try {
    return await realpath(path)
  } catch {
    // Missing (or unreadable): walk what exists.
  }
  return walk(path, { links: 0 })
}

async function walk(path: string, budget: { links: number }): Promise<string> {
  const parts = path.split('/').filter((p) => p !== '')
  let at = '/'
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    if (part === '..') {
      at = dirname(at)
      continue
    }
    const next = join(at, part)
    const info = await lstat(next).catch(() => undefined)
    if (info?.isSymbolicLink() && budget.links < MAX_LINKS) {
      budget.links++
      const link = await readlink(next).catch(() => undefined)
      if (link !== undefined) {
        at = await walk(isAbsolute(link) ? physicalPath(link) : physicalJoin(at, link), budget)
        continue
      }
    }
    if (info === undefined || info.isSymbolicLink()) {
      // Missing, unreadable or a link loop: the rest is only a name, as written.
      return resolve(next, ...parts.slice(i + 1))
    }
    at = next
  }
  return at
}

/**
 * The files and folders that run code at a later start (start-up-files.ts) at each of their bases, and
 * again where each really leads when that is elsewhere: a home under a symlink, or a dotfiles repository
 * `~/.bashrc` links into (an edit there is an edit of `~/.bashrc`). Synchronous and cheap (a stat per
 * entry, a realpath per existing folder on the way): done once when the session's gate is made.
 */
export function resolveStartUpPaths(
  home: string,
  env: Readonly<Record<string, string | undefined>>,
): StartUpPath[] {
  const named = startUpPaths(startUpBases(home, env))
  const reals = new Map<string, string | undefined>()
  const realOf = (path: string): string | undefined => {
    if (!reals.has(path)) {
      // Set first: a link loop comes back here and finds nothing.
      reals.set(path, undefined)
      const info = lstatSync(path, { throwIfNoEntry: false })
      let real: string | undefined
      try {
        real = info ? realpathSync.native(path) : undefined
      } catch {
        // A dangling link: where writing through it would create the file.
        real = info?.isSymbolicLink() ? wouldBe(resolve(dirname(path), readlinkSync(path))) : undefined
      }
      reals.set(path, real)
    }
    return reals.get(path)
  }
  const wouldBe = (path: string): string => {
    const real = realOf(path)
    if (real !== undefined || dirname(path) === path) return real ?? path
    return join(wouldBe(dirname(path)), basename(path))
  }
  const resolved = named.flatMap((p) => {
    const real = wouldBe(p.path)
    return real === p.path ? [] : [{ ...p, path: real, shown: `${real} (where ${p.shown} leads)` }]
  })
  return [...named, ...resolved]
}

/** Where a path target really lands: through its links, or, for `noFollow`, its folder's real path and its name. */
export async function realPathOfTarget(target: { path: string; noFollow?: true }): Promise<string> {
  if (!target.noFollow) return realPathOf(target.path)
  const name = basename(target.path)
  // `/` and a path ending in `..` have no name of their own to act on.
  if (name === '' || name === '..' || name === '.') return realPathOf(target.path)
  return join(await realPathOf(dirname(target.path)), name)
}

export interface ResolveOptions {
  /** Relative paths in commands resolve against the target's cwd, or this. */
  workspace: string
  home: string
  /** Looks at the git config of a directory a read-only git call runs in (default: asks git). */
  scanGit?: (dir: string) => Promise<GitConfigFacts>
}

/**
 * Fills in the `real` fields of a target, once per tool call, before the policy judges it: the real
 * path of a path target, and of every path a shell command names (arguments and redirections, resolved
 * against its cwd, as `commandLookups` lists them, from the analysis the target carries); and, for a
 * command with read-only git calls, what git would read in the directories they run in (`gitConfig`).
 */
export async function resolveTarget(
  target: PermissionTarget,
  opts: ResolveOptions,
): Promise<PermissionTarget> {
  switch (target.kind) {
    case 'path':
      return { ...target, real: await realPathOfTarget(target) }
    case 'paths':
      return {
        ...target,
        paths: await Promise.all(target.paths.map(async (p) => ({ ...p, real: await realPathOfTarget(p) }))),
      }
    case 'command': {
      const cwd = target.cwd ?? opts.workspace
      const analysis = analysisOf(target, opts.workspace, opts.home)
      const { paths, gitDirs } = commandLookups(target.command, cwd, opts.home, analysis)
      if (paths.length === 0 && gitDirs.length === 0) return target
      const scan = opts.scanGit ?? ((dir: string) => scanGitConfig(dir))
      const [reals, facts] = await Promise.all([
        Promise.all(paths.map((p) => realPathOf(p))),
        Promise.all(gitDirs.map(scan)),
      ])
      const real: Record<string, string> = {}
      paths.forEach((p, i) => {
        real[p] = reals[i]!
      })
      // A glob is judged by its folder: where one of its matches leads out of it, that is where it reads.
      const globs = analysis.ok ? analysis.uses.filter((u) => u.pattern !== undefined && u.abs) : []
      for (const use of globs)
        for (const dir of use.abs ?? []) {
          const leads = await globEscape(dir, use.pattern ?? '')
          if (leads !== undefined) real[dir] = leads
        }
      const gitConfig: Record<string, GitConfigFacts> = {}
      gitDirs.forEach((dir, i) => {
        gitConfig[dir] = facts[i]!
      })
      return {
        ...target,
        ...(paths.length > 0 ? { real } : {}),
        ...(gitDirs.length > 0 ? { gitConfig } : {}),
      }
    }
    default:
      return target
  }
}
