import { type Dirent, lstatSync, readdirSync } from 'node:fs'
import { lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * Finds the protected names (`.git`, `.agent-tui`, `.claude`, `.mcp.json`: see fence.ts NESTED_NAMES) below the
 * top of the project roots at any depth, so the sandbox binds the ones that exist read-only: a session
 * later started in that subfolder reads them, and git runs a nested repository's hooks. Ignore files
 * are not honoured (a sandboxed command can write one); a directory and a depth cap bound the walk, and
 * installed dependencies and caches are not walked into (`node_modules`, a virtualenv, a folder tagged
 * with `CACHEDIR.TAG`): nobody starts a session or runs git in them, and their thousands of folders
 * would be statted before every command. What this leaves open is no more than a folder rename already
 * does (`mv sub x` takes sub's read-only entries along and frees `sub/`): for that, project trust and
 * the checks before hooks and MCP servers start look at what changed while commands ran unasked.
 *
 * The walk remembers each directory it read with the directory's ctime (changed by every entry added,
 * removed or renamed in it, and never set back by a program), so a later walk stats the directories and
 * reads again only those that changed; one whose ctime was too close to the read to tell a later change
 * in the same clock tick is read again. A first walk runs in the background when the sandbox is set up
 * (`refresh`), so even the first command's walk mostly stats.
 */

export interface Found {
  /** Protected entries strictly below the roots, shallow first. */
  paths: string[]
  /** The walk stopped at its directory or depth cap. */
  capped: boolean
}

export interface NestedFinder {
  /** Walks now (synchronously). */
  find(roots: readonly string[]): Found
  /** Walks in the background; one walk at a time (a call during one returns that walk). */
  refresh(roots: readonly string[]): Promise<Found>
}

interface DirRecord {
  ctimeMs: number
  subdirs: string[]
  found: string[]
}

export interface NestedFinderOptions {
  /** The names that are protected (compared exactly, as the file system does). */
  names: readonly string[]
  /** Directories visited per walk, all roots together, at most (default 5,000). */
  maxDirs?: number
  /** Depth below the root at most (default 24). */
  maxDepth?: number
  now?: () => number
}

/** A ctime this close to the read (ms) may be followed by a change that keeps it: not trusted for the cache. */
const RACY_MS = 1000
/** Installed dependencies, by name. */
const DEPENDENCY_DIRS = new Set(['node_modules'])
/** Files that mark a folder as a virtualenv or a cache (https://bford.info/cachedir/). */
const MARKERS = new Set(['pyvenv.cfg', 'CACHEDIR.TAG'])
/** Directories read at once by a background walk. */
const BATCH = 32

type Io =
  | { sync: true; lstat(dir: string): number | undefined; readdir(dir: string): Dirent[] | undefined }
  | {
      sync: false
      lstat(dir: string): Promise<number | undefined>
      readdir(dir: string): Promise<Dirent[] | undefined>
    }

const SYNC: Io = {
  sync: true,
  lstat(dir) {
    try {
      // ctime as a float of ms keeps sub-microsecond steps: two different ctimes never compare equal.
      const stat = lstatSync(dir, { throwIfNoEntry: false })
      return stat?.isDirectory() ? stat.ctimeMs : undefined
    } catch {
      return undefined
    }
  },
  readdir(dir) {
    try {
      return readdirSync(dir, { withFileTypes: true })
    } catch {
      return undefined
    }
  },
}

const ASYNC: Io = {
  sync: false,
  lstat: (dir) =>
    lstat(dir).then(
      (stat) => (stat.isDirectory() ? stat.ctimeMs : undefined),
      () => undefined,
    ),
  readdir: (dir) => readdir(dir, { withFileTypes: true }).catch(() => undefined),
}

export function createNestedFinder(opts: NestedFinderOptions): NestedFinder {
  const names = new Set(opts.names)
  const maxDirs = opts.maxDirs ?? 5_000
  const maxDepth = opts.maxDepth ?? 24
  const now = opts.now ?? Date.now
  // Only the directories the last walk visited: one removed since is forgotten.
  let cache = new Map<string, DirRecord>()
  let running: Promise<Found> | undefined

  const record = (ctimeMs: number, entries: Dirent[], dir: string): DirRecord => {
    const marked = entries.some((entry) => MARKERS.has(entry.name))
    const rec: DirRecord = { ctimeMs, subdirs: [], found: [] }
    for (const entry of entries) {
      const path = join(dir, entry.name)
      // A protected directory is bound read-only as a whole: nothing below it needs finding.
      if (names.has(entry.name)) rec.found.push(path)
      else if (entry.isDirectory() && !marked && !DEPENDENCY_DIRS.has(entry.name)) rec.subdirs.push(path)
    }
    return rec
  }

  /** One walk; `io` decides whether it blocks. Written once for both through a small step function. */
  function walk(roots: readonly string[], io: Io): Found | Promise<Found> {
    const seen = new Map<string, DirRecord>()
    const paths: string[] = []
    let visited = 0
    let capped = false
    const keep = (dir: string, rec: DirRecord, readAt: number | undefined) => {
      if (readAt === undefined || readAt - rec.ctimeMs > RACY_MS) seen.set(dir, rec)
    }
    const visit = (dir: string, ctimeMs: number | undefined) => {
      if (ctimeMs === undefined) return { done: true as const }
      const cached = cache.get(dir)
      if (cached && cached.ctimeMs === ctimeMs) {
        keep(dir, cached, undefined)
        return { done: true as const, rec: cached }
      }
      return { done: false as const, ctimeMs }
    }
    const collect = (depth: number, rec: DirRecord | undefined, next: string[]) => {
      if (!rec) return
      if (depth > 0) paths.push(...rec.found)
      if (depth < maxDepth) next.push(...rec.subdirs)
      else if (rec.subdirs.length > 0) capped = true
    }
    const finish = (): Found => {
      cache = seen
      return { paths, capped }
    }
    const take = (level: string[]): string[] => {
      const room = Math.max(0, maxDirs - visited)
      if (level.length > room) capped = true
      visited += Math.min(level.length, room)
      return level.slice(0, room)
    }
    if (io.sync) {
      let level = [...roots]
      for (let depth = 0; level.length > 0; depth++) {
        const next: string[] = []
        for (const dir of take(level)) {
          const step = visit(dir, io.lstat(dir))
          if (step.done) {
            collect(depth, step.rec, next)
            continue
          }
          const readAt = now()
          const entries = io.readdir(dir)
          if (!entries) continue
          const rec = record(step.ctimeMs, entries, dir)
          keep(dir, rec, readAt)
          collect(depth, rec, next)
        }
        level = next
      }
      return finish()
    }
    return (async () => {
      let level = [...roots]
      for (let depth = 0; level.length > 0; depth++) {
        const next: string[] = []
        const dirs = take(level)
        for (let i = 0; i < dirs.length; i += BATCH) {
          const batch = dirs.slice(i, i + BATCH)
          const recs = await Promise.all(
            batch.map(async (dir) => {
              const step = visit(dir, await io.lstat(dir))
              if (step.done) return step.rec
              const readAt = now()
              const entries = await io.readdir(dir)
              if (!entries) return undefined
              const rec = record(step.ctimeMs, entries, dir)
              keep(dir, rec, readAt)
              return rec
            }),
          )
          for (const rec of recs) collect(depth, rec, next)
        }
        level = next
      }
      return finish()
    })()
  }

  return {
    find: (roots) => walk(roots, SYNC) as Found,
    refresh(roots) {
      running ??= (walk(roots, ASYNC) as Promise<Found>).finally(() => {
        running = undefined
      })
      return running
    },
  }
}
