import { readdir, readFile, rm, rmdir, stat, utimes, writeFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { currentBootId, isProcessAlive, processStartTime } from '../tasks/process-group.js'

/**
 * The lifecycle of the per-session outputs dirs (spilled tool outputs, masked results, background job
 * logs): files unused for a day are removed at start-up, never those of a session that is open or being
 * resumed. "In use" is a marker file per process in the session's dir (`.open-<pid>`), written before
 * the session reads anything; a sweep writes its own marker (`.sweep-<pid>`) before it checks for them,
 * and an opener that finds a live sweep marker waits for it to go — so whichever of the two writes
 * second sees the other, and no file is deleted under a session that uses it.
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

/** Live markers of one role in a dir; dead ones are removed on the way. */
async function liveMarkers(dir: string, role: 'open' | 'sweep', except?: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[])
  const live: string[] = []
  for (const name of names) {
    const m = MARKER.exec(name)
    if (!m || m[1] !== role || name === except) continue
    const path = join(dir, name)
    let marker: Marker
    try {
      marker = JSON.parse(await readFile(path, 'utf8')) as Marker
    } catch {
      marker = { pid: Number(m[2]) }
    }
    if (markerAlive(marker)) live.push(name)
    else await rm(path, { force: true })
  }
  return live
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
  const path = join(dir, name)
  // A sweep may remove the dir between our mkdir and our write (it was empty): make it again.
  for (let attempt = 0; ; attempt++) {
    await mkdir(dir, { recursive: true, mode: 0o700 })
    try {
      await writeFile(path, JSON.stringify(markerFor()), { mode: 0o600 })
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 3) throw error
    }
  }
  const deadline = Date.now() + (opts.waitMs ?? 3000)
  while ((await liveMarkers(dir, 'sweep')).length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  let released = false
  return {
    async release() {
      if (released) return
      released = true
      await rm(path, { force: true })
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
  const stamp = join(root, STAMP)
  const last = await stat(stamp).catch(() => null)
  if (!opts.force && last && now - last.mtimeMs < SWEEP_INTERVAL_MS && last.mtimeMs <= now) return result
  const names = await readdir(root).catch(() => null)
  if (names === null) return result
  await writeFile(stamp, '').catch(() => undefined)
  await utimes(stamp, new Date(now), new Date(now)).catch(() => undefined)
  result.swept = true
  for (const name of names) {
    if (name.startsWith('.') || name === opts.skip) continue
    const dir = join(root, name)
    const info = await stat(dir).catch(() => null)
    if (!info?.isDirectory()) continue
    const mine = `.sweep-${process.pid}`
    try {
      await writeFile(join(dir, mine), JSON.stringify(markerFor()), { mode: 0o600 })
    } catch {
      continue // gone meanwhile
    }
    try {
      if ((await liveMarkers(dir, 'open')).length > 0) {
        result.skippedOpen.push(name)
        continue
      }
      result.removedFiles += await removeOld(dir, now - ttl)
    } finally {
      await rm(join(dir, mine), { force: true })
      await rmdir(dir).catch(() => undefined) // only when empty
    }
  }
  return result
}

/** Removes files older than `before` under `dir` (markers excepted) and the dirs they leave empty. */
async function removeOld(dir: string, before: number): Promise<number> {
  let removed = 0
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      removed += await removeOld(path, before)
      await rmdir(path).catch(() => undefined)
      continue
    }
    if (MARKER.test(entry.name)) continue
    const info = await stat(path).catch(() => null)
    if (info && info.mtimeMs < before) {
      await rm(path, { force: true })
      removed++
    }
  }
  return removed
}
