/**
 * When a query must bring the index up to date first (docs/tools.md#codesearch). Files change during a
 * session — the agent's Edit, Write, apply_patch, MultiEdit and NotebookEdit, the user's editor, a
 * command — and the index knows only what its last update saw. A full update walks the workspace (~0.8 s
 * for 10,000 unchanged files), so a query runs one only when the last began at least `recheckMs` ago;
 * the files the session's own file tools report as written are updated at once, without a walk. Pure:
 * the caller says what time it is, and runs what `next` returns.
 */

export type Refresh =
  | { kind: 'none' }
  /** Walk the workspace (as at the start of the session). */
  | { kind: 'full' }
  /** Only these workspace-relative paths, each already known to the index's listing. */
  | { kind: 'paths'; paths: ReadonlySet<string> }

export interface Freshness {
  /** A file tool wrote `path` (relative to the workspace, with `/`). */
  written(path: string): void
  /**
   * What the next update must cover, now, given which paths the last listing knows; taken, so asking
   * again returns `none` until something else changes. A written path the listing does not know (a new
   * file, or one in an ignored folder) needs the walk, which alone applies .gitignore to it.
   */
  next(now: number, known: (path: string) => boolean): Refresh
  /** The full update that starts now (the first one, at the start of the session). */
  fullStarted(now: number): void
}

export function createFreshness(recheckMs: number): Freshness {
  let lastFull: number | undefined
  let pending = new Set<string>()
  return {
    written(path) {
      pending.add(path)
    },
    next(now, known) {
      const due = lastFull === undefined || now - lastFull >= recheckMs
      if (due || [...pending].some((p) => !known(p))) {
        lastFull = now
        pending = new Set()
        return { kind: 'full' }
      }
      if (pending.size === 0) return { kind: 'none' }
      const paths = pending
      pending = new Set()
      return { kind: 'paths', paths }
    },
    fullStarted(now) {
      lastFull = now
      pending = new Set()
    },
  }
}
