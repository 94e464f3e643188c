import { closeSync, futimesSync, lstatSync, readSync, rmdirSync, unlinkSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import { currentBootId, isProcessAlive, processStartTime } from '../tasks/process-group.js'
import { PRIVATE_DIR } from '../util/safe-files.js'
import { createNew, openExisting, openSafeDir, type SafeDir, UnsafePathError } from '../util/safe-open.js'

/**
 * The lifecycle of the per-session outputs dirs (spilled tool outputs, masked results, background job
 * logs): files unused for a day are removed at start-up, never those of a session that is open or being
 * resumed. "In use" is a marker file per process in the session's dir (`.open-<pid>`), written before
 * the session reads anything; a sweep writes its own marker (`.sweep-<pid>`) before it checks for them,
 * and an opener that finds a live sweep marker waits for it to go — so whichever of the two writes
 * second sees the other, and no file is deleted under a session that uses it.
 *
 * An outputs dir is writable inside the Bash sandbox, so whatever is in one may have been planted there:
 * markers are created new (a planted name is removed first, never written through), read without
 * following a link or blocking on a FIFO, and the sweep walks and deletes through directories opened
 * without following links (util/safe-open.ts): a link in a dead session's dir never takes it elsewhere.
 */

export const SPILL_TTL_MS = 24 * 60 * 60 * 1000
/** Start-ups closer together than this share one sweep (a stamp file in the outputs root). */
export const SWEEP_INTERVAL_MS = 60 * 60 * 1000
const STAMP = '.last-sweep'
const MARKER = /^\.(open|sweep)-(\d+)$/

interface Marker {
  pid: number
  start?: string
  bootId?: string
}

function markerFor(pid = process.pid): Marker {
  const start = processStartTime(pid)
  const bootId = currentBootId()
  return { pid, ...(start !== undefined ? { start } : {}), ...(bootId !== undefined ? { bootId } : {}) }
}

/** A marker's process still runs (the same process: pid reuse and reboots are told apart on Linux). */
function markerAlive(marker: Marker): boolean {
  if (!isProcessAlive(marker.pid)) return false
  const boot = currentBootId()
  if (marker.bootId !== undefined && boot !== undefined && marker.bootId !== boot) return false
  const start = processStartTime(marker.pid)
  return marker.start === undefined || start === undefined || marker.start === start
}

/** A marker file of this process, created new: something planted at its name goes first. */
function writeMarker(dir: SafeDir, name: string): void {
  let fd: number
  try {
    fd = createNew(dir, name, { mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    // A stale marker of a process that had this pid, or a planted link: unlinking removes the entry only.
    unlinkSync(dir.at(name))
    fd = createNew(dir, name, { mode: 0o600 })
  }
  try {
    writeSync(fd, JSON.stringify(markerFor()))
  } finally {
    closeSync(fd)
  }
}

/** A marker's content; anything but a small regular file of this user is no marker. */
function readMarker(dir: SafeDir, name: string): Marker | undefined {
  let fd: number | undefined
  try {
    fd = openExisting(dir, name, 'read')
  } catch (error) {
    if (error instanceof UnsafePathError) return undefined
    throw error
  }
  if (fd === undefined) return undefined
  try {
    const buffer = Buffer.alloc(4096)
    const n = readSync(fd, buffer, 0, buffer.length, 0)
    return JSON.parse(buffer.subarray(0, n).toString('utf8')) as Marker
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** Live markers of one role in a dir; dead ones (and what only looks like one) are removed on the way. */
function liveMarkers(dir: SafeDir, role: 'open' | 'sweep', except?: string): string[] {
  let names: string[]
  try {
    names = dir.list().map((entry) => entry.name)
  } catch {
    return []
  }
  const live: string[] = []
  for (const name of names) {
    const m = MARKER.exec(name)
    if (!m || m[1] !== role || name === except) continue
    const marker = readMarker(dir, name) ?? { pid: Number(m[2]) }
    if (isMarkerFile(dir, name) && markerAlive(marker)) live.push(name)
    else removeEntry(dir, name)
  }
  return live
}

function isMarkerFile(dir: SafeDir, name: string): boolean {
  return lstatSync(dir.at(name), { throwIfNoEntry: false })?.isFile() === true
}

function removeEntry(dir: SafeDir, name: string): void {
  try {
    unlinkSync(dir.at(name))
  } catch {
    // Gone already.
  }
}

export interface OutputsLease {
  /** Removes this process's marker (the session closed). Idempotent. */
  release(): Promise<void>
}

/**
 * Marks a session's outputs dir as used by this process; resolves once no sweep is working in it (or
 * after `waitMs`, when a sweep's process hangs). Call it before the session reads its files.
 */
export async function openOutputs(dir: string, opts: { waitMs?: number } = {}): Promise<OutputsLease> {
  const name = `.open-${process.pid}`
  // A sweep may remove the dir between our mkdir and our write (it was empty): make it again.
  let at: SafeDir
  for (let attempt = 0; ; attempt++) {
    at = openSafeDir(dirname(dir), dir, { create: PRIVATE_DIR })
    try {
      writeMarker(at, name)
      break
    } catch (error) {
      at.close()
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 3) throw error
    }
  }
  const held = at
  try {
    const deadline = Date.now() + (opts.waitMs ?? 3000)
    while (liveMarkers(held, 'sweep').length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  } finally {
    held.close()
  }
  let released = false
  return {
    async release() {
      if (released) return
      released = true
      try {
        const again = openSafeDir(dirname(dir), dir)
        try {
          if (isMarkerFile(again, name)) removeEntry(again, name)
        } finally {
          again.close()
        }
      } catch {
        // The dir is gone or no longer ours: nothing of this process is left to remove.
      }
    },
  }
}

export interface SweepResult {
  /** False when a recent start-up already swept. */
  swept: boolean
  removedFiles: number
  /** Session dirs skipped because a live process has them open. */
  skippedOpen: string[]
}

/**
 * Removes files not used (written, or re-used by a spill, which refreshes the mtime) for `ttlMs` from
 * every session's outputs dir except `skip` and those open in a live process; empty dirs go too.
 */
export async function sweepOutputs(
  root: string,
  opts: { skip?: string; now?: number; ttlMs?: number; force?: boolean } = {},
): Promise<SweepResult> {
  const now = opts.now ?? Date.now()
  const ttl = opts.ttlMs ?? SPILL_TTL_MS
  const result: SweepResult = { swept: false, removedFiles: 0, skippedOpen: [] }
  let top: SafeDir
  try {
    top = openSafeDir(root)
  } catch {
    return result
  }
  try {
    const last = lstatSync(top.at(STAMP), { throwIfNoEntry: false })
    if (!opts.force && last?.isFile() && now - last.mtimeMs < SWEEP_INTERVAL_MS && last.mtimeMs <= now)
      return result
    const names = top.list().map((entry) => entry.name)
    stamp(top, now)
    result.swept = true
    for (const name of names) {
      if (name.startsWith('.') || name === opts.skip) continue
      // The walk is synchronous system calls: let a frame or a keystroke through between sessions.
      await yieldToLoop()
      let dir: SafeDir
      try {
        // Not a link, not a file: only a real directory of a session is swept.
        dir = top.sub(name)
      } catch {
        continue
      }
      const mine = `.sweep-${process.pid}`
      try {
        writeMarker(dir, mine)
      } catch {
        dir.close()
        continue // gone meanwhile
      }
      try {
        if (liveMarkers(dir, 'open').length > 0) {
          result.skippedOpen.push(name)
          continue
        }
        result.removedFiles += await removeOld(dir, now - ttl, { seen: 0 })
      } finally {
        if (isMarkerFile(dir, mine)) removeEntry(dir, mine)
        dir.close()
        removeIfEmpty(top, name)
      }
    }
  } finally {
    top.close()
  }
  return result
}

/** Refreshes the stamp's mtime to `now` (a new file when missing; never through a link). */
function stamp(top: SafeDir, now: number): void {
  try {
    let fd = openExisting(top, STAMP, 'write')
    if (fd === undefined) fd = createNew(top, STAMP, { mode: 0o600 })
    try {
      futimesSync(fd, new Date(now), new Date(now))
    } finally {
      closeSync(fd)
    }
  } catch {
    // A stamp that cannot be written only means the next start sweeps again.
  }
}

function removeIfEmpty(dir: SafeDir, name: string): void {
  try {
    rmdirSync(dir.at(name))
  } catch {
    // Not empty, or gone: leave it.
  }
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** Removes files older than `before` under `dir` (markers excepted) and the dirs they leave empty. */
async function removeOld(dir: SafeDir, before: number, walk: { seen: number }): Promise<number> {
  let removed = 0
  let entries: ReturnType<SafeDir['list']>
  try {
    entries = dir.list()
  } catch {
    return 0
  }
  for (const entry of entries) {
    if (++walk.seen % 256 === 0) await yieldToLoop()
    if (entry.isDirectory()) {
      let sub: SafeDir
      try {
        // Opened without following a link: a directory swapped for one since the listing is skipped.
        sub = dir.sub(entry.name)
      } catch {
        continue
      }
      try {
        removed += await removeOld(sub, before, walk)
      } finally {
        sub.close()
      }
      removeIfEmpty(dir, entry.name)
      continue
    }
    if (MARKER.test(entry.name)) continue
    // The entry itself (a link's own mtime, not its target's), removed as an entry.
    const info = lstatSync(dir.at(entry.name), { throwIfNoEntry: false })
    if (info && !info.isDirectory() && info.mtimeMs < before) {
      removeEntry(dir, entry.name)
      removed++
    }
  }
  return removed
}
