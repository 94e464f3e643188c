import { type Dirent, lstatSync, readdirSync } from 'node:fs'
import { join, sep } from 'node:path'
import type { Footprint } from './footprint.js'
import { isInside } from './fs-facts.js'
import { changedInWindow, type UnaskedWindow } from './windows.js'

/**
 * Whether anything in a footprint changed while a command ran unasked (its ctime lies in a window that
 * covers it) after `since` (when it was last checked or allowed). Walks the footprint's trees, each
 * entry lstat'ed (a link, a renamed-in folder and a hard link all get a new ctime), up to a cap: past
 * it the answer is "cannot tell", which counts as changed.
 */

export interface Change {
  path: string
  /** The change time, ms. */
  ctimeMs: number
}

export type ChangeAnswer =
  | { changed: false; checked: number }
  | { changed: true; first: Change; count: number; checked: number }
  | { changed: true; tooMany: true; checked: number }

/** Entries looked at per check at most. */
export const MAX_ENTRIES = 20_000
/** Changed entries listed (counted beyond). */
const MAX_LISTED = 50

export function findChanges(
  footprint: Footprint,
  windows: readonly UnaskedWindow[],
  since: number,
  opts: { maxEntries?: number; marginMs?: number } = {},
): ChangeAnswer {
  const maxEntries = opts.maxEntries ?? MAX_ENTRIES
  // Only windows that end after the last check matter (an open one always does).
  const relevant = windows.filter((w) => w.end === undefined || w.end >= since)
  if (relevant.length === 0) return { changed: false, checked: 0 }
  const changes: Change[] = []
  let checked = 0
  const look = (path: string): boolean => {
    if (++checked > maxEntries) return false
    let ctimeMs: number
    try {
      ctimeMs = lstatSync(path).ctimeMs
    } catch {
      return true
    }
    if (
      changedInWindow(ctimeMs, path, relevant, isInside, since, opts.marginMs) &&
      changes.length < MAX_LISTED
    )
      changes.push({ path, ctimeMs })
    return true
  }
  for (const path of footprint.paths) if (!look(path)) return { changed: true, tooMany: true, checked }
  for (const tree of footprint.trees) {
    const stack = [tree]
    while (stack.length > 0) {
      const dir = stack.pop() as string
      let entries: Dirent[]
      try {
        entries = readdirSync(dir, { withFileTypes: true })
      } catch {
        continue
      }
      for (const entry of entries) {
        const path = join(dir, entry.name)
        if (!look(path)) return { changed: true, tooMany: true, checked }
        if (entry.isDirectory()) stack.push(path)
      }
    }
  }
  // The deepest change names it best (`node_modules/.bin/prettier`, not the `node_modules` it is in).
  const depth = (c: Change) => c.path.split(sep).length
  const first = changes.sort((a, b) => depth(b) - depth(a) || b.ctimeMs - a.ctimeMs)[0]
  return first ? { changed: true, first, count: changes.length, checked } : { changed: false, checked }
}
