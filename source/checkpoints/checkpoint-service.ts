import { join } from 'node:path'
import { uniqueProjectKey } from '../config/app-paths.js'
import type { Action } from '../store/actions.js'
import type { NoticeLevel } from '../store/state.js'
import { findProject } from './excludes.js'
import { formatBytes } from './report.js'
import { GitUnavailableError } from './git.js'
import { ShadowRepo, type Snapshot, WorkspaceLimitError } from './shadow-repo.js'
import type { TreeChange } from './types.js'

/**
 * Checkpoints for one session. The runtime calls `beforeChange` before a tool call that changes the
 * workspace (awaited: the first one of a turn takes the turn's checkpoint; a Bash command gets a snapshot
 * of its own so what it changed can be told apart) and `afterChange` once it is done (not awaited: the
 * snapshot that records what changed runs while the next request goes out). All git work runs one job at a
 * time, in call order. Failures become notices and never stop a tool.
 */

/** Files bigger than this are left out of snapshots (and listed), like opencode's 2 MB. */
export const MAX_FILE_BYTES = 2 * 1024 * 1024
/** Workspaces with more files than this (not ignored) get no snapshots. */
export const MAX_FILES = 100_000

export interface CheckpointServiceOptions {
  /** The session's directory; the snapshot covers its repository root (or the directory itself). */
  workspace: string
  /** `$XDG_STATE_HOME/agent-tui`: shadow repositories live in `checkpoints/<project-key>/` under it. */
  stateDir: string
  dispatch(action: Action): void
  notice(level: NoticeLevel, text: string): void
  /**
   * The git program's absolute path, found outside the workspace (source/util/host-programs.ts);
   * undefined when git is not installed there, which turns checkpoints off with a notice.
   */
  git(): string | undefined
  maxFileBytes?: number
  maxFiles?: number
}

export type ChangeKind = 'edit' | 'exec'

export class CheckpointService {
  private readonly opts: CheckpointServiceOptions
  private repo: Promise<ShadowRepo> | null = null
  private off: string | null = null
  private turn: { id: string; last: string | null } | null = null
  private tail: Promise<unknown> = Promise.resolve()
  private afterQueued = false
  private warmed = false
  private closing = false
  private readonly warmAbort = new AbortController()
  private failures = 0
  private lastSkippedNotice = ''

  constructor(opts: CheckpointServiceOptions) {
    this.opts = opts
  }

  /** Why checkpoints are off for this session, or null while they work. */
  offReason(): string | null {
    return this.off
  }

  /** The shadow repository's git dir (created on first use). */
  async gitDir(): Promise<string> {
    return (await this.shadow()).gitDir
  }

  private shadow(): Promise<ShadowRepo> {
    this.repo ??= findProject(this.opts.workspace).then(({ root, exclude }) => {
      const git = this.opts.git()
      if (git === undefined) throw new GitUnavailableError('not on PATH outside the workspace')
      return new ShadowRepo({
        gitDir: join(this.opts.stateDir, 'checkpoints', uniqueProjectKey(root)),
        workTree: root,
        git,
        projectExclude: exclude,
        maxFileBytes: this.opts.maxFileBytes ?? MAX_FILE_BYTES,
        maxFiles: this.opts.maxFiles ?? MAX_FILES,
      })
    })
    return this.repo
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const run = this.tail.then(job, job)
    this.tail = run.catch(() => undefined)
    return run
  }

  /**
   * Brings the shadow index up to date in the background, so the first checkpoint of a turn is
   * incremental (the very first snapshot of a workspace stores every file once). Once per session.
   */
  warm(): void {
    if (this.warmed || this.off || this.closing) return
    this.warmed = true
    void this.enqueue(async () => {
      if (this.closing) return
      try {
        await (await this.shadow()).snapshot(this.warmAbort.signal)
      } catch (err) {
        if (!this.warmAbort.signal.aborted) this.fail(err)
      }
    })
  }

  async beforeChange(turnId: string | null, kind: ChangeKind): Promise<void> {
    if (!turnId || this.off || this.closing) return
    if (this.turn?.id !== turnId) await this.enqueue(() => this.startTurn(turnId))
    else if (kind === 'exec') await this.enqueue(() => this.record(turnId))
  }

  afterChange(turnId: string | null): void {
    if (!turnId || this.off || this.afterQueued) return
    this.afterQueued = true
    void this.enqueue(async () => {
      this.afterQueued = false
      await this.record(turnId)
    })
  }

  /** Resolves once every queued snapshot has run (a rewind must see the changes they record). */
  async idle(): Promise<void> {
    let seen: Promise<unknown>
    do {
      seen = this.tail
      await seen
    } while (seen !== this.tail)
  }

  /** Stops a background warm-up and waits for the snapshots that record changes. */
  async close(): Promise<void> {
    this.closing = true
    this.warmAbort.abort()
    await this.idle()
  }

  private async startTurn(turnId: string): Promise<void> {
    if (this.off) return
    try {
      const snap = await (await this.shadow()).snapshot()
      this.turn = { id: turnId, last: snap.tree }
      this.opts.dispatch({ type: 'checkpoint/created', turnId, tree: snap.tree, skipped: snap.skipped })
      this.reportSkipped(snap)
    } catch (err) {
      this.turn = { id: turnId, last: null }
      const note = this.fail(err)
      this.opts.dispatch({ type: 'checkpoint/created', turnId, tree: null, skipped: [], note })
    }
  }

  private async record(turnId: string): Promise<void> {
    const turn = this.turn
    if (this.off || turn?.id !== turnId || !turn.last) return
    try {
      const repo = await this.shadow()
      const snap = await repo.snapshot()
      const changes = await repo.diff(turn.last, snap.tree)
      turn.last = snap.tree
      const overCap = new Set(snap.skipped.map((s) => s.path))
      const files: Record<string, string | null> = {}
      for (const change of changes) {
        if (change.nested || overCap.has(change.path)) continue
        files[change.path] = change.after?.blob ?? null
      }
      if (Object.keys(files).length) this.opts.dispatch({ type: 'checkpoint/changed', turnId, files })
      this.reportSkipped(snap)
    } catch (err) {
      this.fail(err)
    }
  }

  private reportSkipped(snap: Snapshot): void {
    const key = snap.skipped.map((s) => s.path).join('\0')
    if (key === this.lastSkippedNotice) return
    this.lastSkippedNotice = key
    if (!snap.skipped.length) return
    const cap = formatBytes(this.opts.maxFileBytes ?? MAX_FILE_BYTES)
    const shown = snap.skipped
      .slice(0, 3)
      .map((s) => `${s.path} (${formatBytes(s.bytes)})`)
      .join(', ')
    const more = snap.skipped.length > 3 ? ` and ${snap.skipped.length - 3} more` : ''
    this.opts.notice(
      'warn',
      `Checkpoint left out ${snap.skipped.length === 1 ? 'a file' : `${snap.skipped.length} files`} over ${cap}: ${shown}${more} — /rewind cannot restore ${snap.skipped.length === 1 ? 'it' : 'them'}`,
    )
  }

  /** Reports a failure; returns the note recorded with the turn. */
  private fail(err: unknown): string {
    if (err instanceof GitUnavailableError || err instanceof WorkspaceLimitError) {
      const why =
        err instanceof GitUnavailableError
          ? 'git was not found on PATH outside the workspace (install git to let /rewind restore files)'
          : err.message
      if (!this.off) {
        this.off = why
        this.opts.notice(
          'warn',
          `Checkpoints are off for this session: ${why}. /rewind can still restore the conversation.`,
        )
      }
      return why
    }
    const message = err instanceof Error ? err.message : String(err)
    this.failures++
    if (this.failures >= 3 && !this.off) {
      this.off = `snapshots kept failing (${message})`
      this.opts.notice('warn', `Checkpoints are off for this session: ${this.off}`)
    } else {
      this.opts.notice(
        'warn',
        `Checkpoint failed: ${message}. Changes from here on may not be restorable with /rewind.`,
      )
    }
    return message
  }

  // ── for rewinds (queued behind pending snapshots, so they see every recorded change) ──

  snapshotNow(): Promise<Snapshot> {
    if (this.off) return Promise.reject(new Error(`checkpoints are off: ${this.off}`))
    return this.enqueue(async () => (await this.shadow()).snapshot())
  }

  diff(from: string, to: string, paths?: readonly string[]): Promise<TreeChange[]> {
    return this.enqueue(async () => (await this.shadow()).diff(from, to, paths))
  }

  /** Writes `restore` back from `tree` and deletes `remove`; resolves with the paths it refused. */
  apply(tree: string, restore: readonly string[], remove: readonly string[]): Promise<string[]> {
    return this.enqueue(async () => {
      const repo = await this.shadow()
      const refused = await repo.remove(remove)
      refused.push(...(await repo.writeFrom(tree, restore)))
      // The workspace moved under the turn's last snapshot: the next change starts from a fresh one.
      this.turn = null
      return refused
    })
  }
}
