import { existsSync } from 'node:fs'
import { lstat, mkdir, open, readdir, realpath, rm, rmdir, stat, unlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { readOwnFile, replaceOwnFile } from '../util/safe-files.js'
import { excludeText, parseLarge } from './excludes.js'
import { GitCommandError, type GitResult, type RunOptions, runGit, splitZ } from './git.js'
import type { SkippedFile, TreeChange } from './types.js'

/**
 * A shadow git repository for one workspace: its own git dir under the user's state dir, the workspace as
 * its work tree. A snapshot lists what changed (`diff-files`, `ls-files --others`), records exactly that in
 * an index kept between snapshots (`update-index`), and writes a tree (no commit): files that did not
 * change cost a stat. The project's `.git`, index and stash are never
 * read or written.
 */

export interface ShadowRepoOptions {
  gitDir: string
  workTree: string
  /** The git program's absolute path (see GitTarget.program). */
  git: string
  /** The project's `.git/info/exclude` text, honoured like its `.gitignore` files. */
  projectExclude?: string
  /** Files larger than this are left out of snapshots, and listed as such. */
  maxFileBytes: number
  /** More files than this (not ignored) and no snapshot is taken. */
  maxFiles: number
}

export interface Snapshot {
  tree: string
  /** Files left out for their size (workspace-relative), with their size. */
  skipped: SkippedFile[]
}

/** The workspace is over a stated limit: no snapshot was taken. */
export class WorkspaceLimitError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'WorkspaceLimitError'
  }
}

const INDEX_LOCK_RETRIES = 40
const INDEX_LOCK_WAIT_MS = 50
/** A lock older than this was left by a process that died mid-write. */
const STALE_LOCK_MS = 60_000
/** Nested repositories tried one by one when git refuses them together; the rest are left out. */
const MAX_NESTED_ONE_BY_ONE = 32

export class ShadowRepo {
  readonly gitDir: string
  readonly workTree: string
  private readonly opts: ShadowRepoOptions
  private large: Map<string, number> | null = null
  private ready: Promise<void> | null = null

  constructor(opts: ShadowRepoOptions) {
    this.opts = opts
    this.gitDir = opts.gitDir
    this.workTree = opts.workTree
  }

  private git(args: readonly string[], opts?: RunOptions): Promise<GitResult> {
    return runGit({ gitDir: this.gitDir, workTree: this.workTree, program: this.opts.git }, args, opts)
  }

  /** Creates the repository on first use; idempotent. */
  init(): Promise<void> {
    // Deleted by hand since (to reclaim space): start a fresh one.
    if (this.ready && !existsSync(join(this.gitDir, 'HEAD'))) this.ready = null
    this.ready ??= this.create().catch((err: unknown) => {
      this.ready = null
      throw err
    })
    return this.ready
  }

  private async create(): Promise<void> {
    if (!existsSync(join(this.gitDir, 'HEAD'))) {
      await mkdir(this.gitDir, { recursive: true })
      // An empty template: no sample hooks, nothing but the repository itself.
      await this.git(['init', '-q', '--template='])
    }
    // Byte-exact snapshots: no end-of-line conversion or filters from the project's .gitattributes.
    this.writeInfo('attributes', '* -text -eol -filter -ident -working-tree-encoding\n')
    const current = this.readInfo('exclude')
    this.large = parseLarge(current)
    await this.writeExclude(this.large, current)
  }

  private async writeExclude(large: ReadonlyMap<string, number>, current?: string): Promise<void> {
    const text = excludeText(this.opts.projectExclude ?? '', large)
    const before = current ?? this.readInfo('exclude')
    // Rewriting it unchanged would still invalidate git's untracked cache.
    if (before !== text) this.writeInfo('exclude', text)
  }

  /** A file of `info/`, replaced atomically; nothing below the git dir is followed (util/safe-files.ts). */
  private writeInfo(name: string, text: string): void {
    replaceOwnFile(this.gitDir, join(this.gitDir, 'info', name), text, { mode: 0o644, createDirs: 0o755 })
  }

  private readInfo(name: string): string {
    try {
      return readOwnFile(this.gitDir, join(this.gitDir, 'info', name))?.toString('utf8') ?? ''
    } catch {
      return ''
    }
  }

  /** Number of entries in the shadow index (from its header), 0 before the first snapshot. */
  async indexEntries(): Promise<number> {
    try {
      const handle = await open(join(this.gitDir, 'index'), 'r')
      try {
        const header = Buffer.alloc(12)
        await handle.read(header, 0, 12, 0)
        return header.toString('latin1', 0, 4) === 'DIRC' ? header.readUInt32BE(8) : 0
      } finally {
        await handle.close()
      }
    } catch {
      return 0
    }
  }

  /** Records the workspace as it is now; resolves with the tree id and the files left out for size. */
  async snapshot(signal?: AbortSignal): Promise<Snapshot> {
    await this.init()
    const run = signal ? { signal } : {}
    const entries = await this.indexEntries()
    const [modifiedOut, untrackedOut] = await Promise.all([
      // A nested repository is a gitlink: its HEAD is compared, never its work tree, which git would look
      // into by running git there, under that repository's own config (filters, fsmonitor). The option
      // beats a `submodule.<name>.ignore` the work tree's .gitmodules may set.
      this.git(['diff-files', '--ignore-submodules=dirty', '--name-only', '-z'], run),
      this.git(['ls-files', '--others', '--exclude-standard', '-z'], {
        ...run,
        maxEntries: Math.max(0, this.opts.maxFiles - entries),
      }),
    ])
    const modified = splitZ(modifiedOut.stdout)
    // A nested repository is listed as `dir/`; named without the slash it is recorded as a gitlink.
    const untracked = splitZ(untrackedOut.stdout).map((p) => p.replace(/\/$/, ''))
    if (untrackedOut.truncated || entries + untracked.length > this.opts.maxFiles) {
      throw new WorkspaceLimitError(
        `the workspace has over ${this.opts.maxFiles.toLocaleString('en-US')} files that .gitignore does not exclude`,
      )
    }
    const previous = this.large ?? new Map<string, number>()
    const { large, dirs } = await this.sizeUp([...modified, ...untracked, ...previous.keys()])
    if (!sameKeys(large, previous)) {
      await this.writeExclude(large)
      this.large = large
    }
    // A tracked file whose directory is now a symlink is gone from the work tree; `update-index --remove`
    // refuses such a path ("beyond a symbolic link") and would fail the whole snapshot.
    const behindLink = await this.behindSymlink(modified)
    const dropped = modified.filter((p) => large.has(p) || behindLink.has(p))
    if (dropped.length) {
      await this.locked(['update-index', '--force-remove', '-z', '--stdin'], {
        ...run,
        input: dropped.join('\0'),
      })
    }
    // Exactly the paths listed and sized above: a file that appears meanwhile waits for the next
    // snapshot rather than slipping past the size cap (as a rescan by `git add -A` would let it).
    const update = [...new Set([...modified, ...untracked])].filter(
      (p) => !large.has(p) && !behindLink.has(p),
    )
    // A directory here is a nested repository, recorded as a gitlink: apart from the files, since git
    // refuses one without a commit (and the whole list with it), which would switch checkpoints off.
    const files = update.filter((p) => !dirs.has(p))
    if (files.length) {
      await this.locked(['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], {
        ...run,
        input: files.join('\0'),
      })
    }
    await this.recordNested(
      update.filter((p) => dirs.has(p)),
      run,
    )
    const tree = (await this.locked(['write-tree'], run)).stdout.toString().trim()
    return {
      tree,
      skipped: [...large]
        .map(([path, bytes]) => ({ path, bytes }))
        .sort((a, b) => (a.path < b.path ? -1 : 1)),
    }
  }

  /** Which paths are files over the size cap, and which are directories (nested repositories). */
  private async sizeUp(paths: string[]): Promise<{ large: Map<string, number>; dirs: Set<string> }> {
    const large = new Map<string, number>()
    const dirs = new Set<string>()
    const unique = [...new Set(paths)]
    // Bounded concurrency: the first snapshot of a workspace lists every file.
    for (let i = 0; i < unique.length; i += 256) {
      const batch = unique.slice(i, i + 256)
      const stats = await Promise.all(batch.map((p) => lstat(join(this.workTree, p)).catch(() => null)))
      stats.forEach((st, k) => {
        const path = batch[k] as string
        if (st?.isFile() && st.size > this.opts.maxFileBytes) large.set(path, st.size)
        if (st?.isDirectory()) dirs.add(path)
      })
    }
    return { large, dirs }
  }

  /**
   * Records nested repositories as gitlinks: all at once, or — when git refuses the list (one has no
   * commit yet, or a `.git` file naming nothing) — one by one, leaving out those git cannot record. A
   * rewind keeps nested repositories as they are in any case; a left-out one only goes unreported.
   */
  private async recordNested(paths: readonly string[], run: RunOptions): Promise<void> {
    if (paths.length === 0) return
    const add = (list: readonly string[]) =>
      this.locked(['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], {
        ...run,
        input: list.join('\0'),
      })
    try {
      await add(paths)
      return
    } catch (err) {
      if (!(err instanceof GitCommandError)) throw err
    }
    // A planted thousand would cost a git run each: past a few dozen the rest are left out.
    for (const path of paths.slice(0, MAX_NESTED_ONE_BY_ONE)) {
      await add([path]).catch((err: unknown) => {
        if (!(err instanceof GitCommandError)) throw err
      })
    }
  }

  /** Those of `paths` with a directory on the way that is no longer a directory (a symlink, a file). */
  private async behindSymlink(paths: readonly string[]): Promise<Set<string>> {
    const dirs = new Map<string, Promise<boolean>>()
    const isDir = (dir: string): Promise<boolean> => {
      let known = dirs.get(dir)
      if (!known) {
        known = lstat(join(this.workTree, dir)).then(
          (st) => st.isDirectory(),
          () => true, // missing: git removes the path itself
        )
        dirs.set(dir, known)
      }
      return known
    }
    const gone = new Set<string>()
    for (const path of paths) {
      for (let dir = dirname(path); dir !== '.' && dir !== ''; dir = dirname(dir)) {
        if (!(await isDir(dir))) {
          gone.add(path)
          break
        }
      }
    }
    return gone
  }

  /** Runs an index-writing command, waiting for another process's `index.lock` to go away. */
  private async locked(args: readonly string[], opts: RunOptions): Promise<GitResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.git(args, opts)
      } catch (err) {
        if (!(err instanceof GitCommandError) || !err.stderr.includes('index.lock')) throw err
        const lock = join(this.gitDir, 'index.lock')
        if (attempt >= INDEX_LOCK_RETRIES) {
          const age = await stat(lock).then(
            (s) => Date.now() - s.mtimeMs,
            () => 0,
          )
          if (age < STALE_LOCK_MS || attempt > INDEX_LOCK_RETRIES) throw err
          await rm(lock, { force: true })
          continue
        }
        await new Promise((r) => setTimeout(r, INDEX_LOCK_WAIT_MS))
      }
    }
  }

  /** What differs between two snapshots (or a snapshot and now), file by file. */
  async diff(from: string, to: string, paths?: readonly string[]): Promise<TreeChange[]> {
    if (paths && paths.length === 0) return []
    const args = ['diff-tree', '-r', '-z', '--no-renames', '--raw', '--no-ext-diff', from, to]
    const out = await this.git(paths ? [...args, '--', ...paths] : args)
    return parseRawDiff(out.stdout)
  }

  /**
   * Writes these paths as they are in `tree` (content and mode), through a scratch index so the shadow
   * index is untouched. A path that is now a directory, or whose parent is now a file or a symlink, is
   * not written (git would remove what is in the way): it is returned.
   */
  async writeFrom(tree: string, paths: readonly string[]): Promise<string[]> {
    const refused: string[] = []
    const safe: string[] = []
    for (const path of paths) ((await this.writable(path)) ? safe : refused).push(path)
    if (safe.length === 0) return refused
    const scratch = join(this.gitDir, `rewind-${process.pid}-${Date.now()}.index`)
    const env = { GIT_INDEX_FILE: scratch }
    try {
      await this.git(['read-tree', tree], { env })
      await this.git(['checkout-index', '-f', '-z', '--stdin'], { env, input: safe.join('\0') })
    } finally {
      await rm(scratch, { force: true })
      await rm(`${scratch}.lock`, { force: true })
    }
    return refused
  }

  private async writable(path: string): Promise<boolean> {
    const self = await lstat(join(this.workTree, path)).catch(() => null)
    if (self?.isDirectory()) return false
    let dir = dirname(path)
    while (dir !== '.' && dir !== '') {
      const st = await lstat(join(this.workTree, dir)).catch(() => null)
      if (st && !st.isDirectory()) return false
      dir = dirname(dir)
    }
    return true
  }

  /**
   * Deletes these workspace files, then the directories that deleting them left empty. A path whose
   * directory now resolves elsewhere (a symlink put in its place) is not touched: it is returned.
   */
  async remove(paths: readonly string[]): Promise<string[]> {
    const refused: string[] = []
    const root = await realpath(this.workTree)
    const emptied = new Set<string>()
    for (const path of paths) {
      const abs = join(this.workTree, path)
      const parent = await realpath(dirname(abs)).catch(() => null)
      const st = await lstat(abs).catch(() => null)
      if (!st) continue
      if (parent !== join(root, dirname(path)) || st.isDirectory()) {
        refused.push(path)
        continue
      }
      await unlink(abs)
      emptied.add(dirname(path))
    }
    for (const dir of [...emptied].sort((a, b) => b.length - a.length)) await this.pruneEmpty(dir)
    return refused
  }

  private async pruneEmpty(dir: string): Promise<void> {
    let at = dir
    while (at !== '.' && at !== '') {
      const abs = join(this.workTree, at)
      const left = await readdir(abs).catch(() => null)
      if (left === null || left.length > 0) return
      await rmdir(abs).catch(() => undefined)
      at = dirname(at)
    }
  }
}

function sameKeys(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  if (a.size !== b.size) return false
  for (const key of a.keys()) if (!b.has(key)) return false
  return true
}

const GITLINK = '160000'

/** Parses `diff-tree -r -z --raw`: `:oldmode newmode oldsha newsha status\0path\0`. */
export function parseRawDiff(buffer: Buffer): TreeChange[] {
  const parts = splitZ(buffer)
  const changes: TreeChange[] = []
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])/.exec(parts[i] as string)
    const path = parts[i + 1] as string
    if (!meta) continue
    const [, oldMode, newMode, oldSha, newSha] = meta as unknown as [string, string, string, string, string]
    changes.push({
      path,
      before: /^0+$/.test(oldMode) ? null : { mode: oldMode, blob: oldSha },
      after: /^0+$/.test(newMode) ? null : { mode: newMode, blob: newSha },
      nested: oldMode === GITLINK || newMode === GITLINK,
    })
  }
  return changes
}
