import { readdirSync, readFileSync } from 'node:fs'
import {
  type OwnedGroup,
  ownedGroup,
  procStatFields,
  processStartTime,
  signalOwnedGroup,
} from '../util/process-ownership.js'

export { type OwnedGroup, ownedGroup, processStartTime }

/**
 * Small, synchronous helpers around process groups. Everything here tolerates races: a process may
 * exit between any two calls, so "no such process" is an answer, never an error. Every signal goes
 * through `signalOwnedGroup` (util/process-ownership.ts): only groups agent-tui started are signalled.
 */

function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined
}

function isZombie(pid: number): boolean {
  return procStatFields(pid)?.[0] === 'Z'
}

/**
 * Whether a process exists and has not exited. A zombie counts as gone: it runs nothing, and in a
 * container whose init never reaps, killed orphans would otherwise look alive forever.
 */
export function isProcessAlive(pid: number): boolean {
  // kill(0, 0) and kill(-n, 0) ask about groups, not about one process.
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    if (errnoCode(error) !== 'EPERM') return false
  }
  return !isZombie(pid)
}

/**
 * Live (non-zombie) members of a process group. On Linux this scans /proc; elsewhere it can only tell
 * whether the group exists, and returns `[pgid]` as a stand-in member when it does.
 */
export function groupMembers(pgid: number): number[] {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return groupSignalable(pgid) ? [pgid] : []
  }
  const members: number[] = []
  for (const entry of entries) {
    const pid = Number(entry)
    if (!Number.isInteger(pid) || pid <= 0) continue
    const fields = procStatFields(pid)
    // After the command name: state, ppid, pgrp, …
    if (fields && Number(fields[2]) === pgid && fields[0] !== 'Z') members.push(pid)
  }
  return members
}

/** Whether `kill(-pgid, 0)` still reaches something (zombies included). */
function groupSignalable(pgid: number): boolean {
  // kill(-1, 0) and kill(-0, 0) ask about every process and about our own group: never a job's group.
  if (!Number.isSafeInteger(pgid) || pgid <= 1) return false
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    return errnoCode(error) === 'EPERM'
  }
}

/** Whether any live process remains in the group. */
export function groupAlive(pgid: number): boolean {
  return groupSignalable(pgid) && groupMembers(pgid).length > 0
}

/**
 * Sends `signal` to every process in the group agent-tui started (0: sends nothing, only checks that
 * the group exists, zombies included). Returns false when the group no longer exists, when it cannot
 * be signalled (EPERM), and when it is not the recorded group any more (see `signalOwnedGroup`): the
 * caller can do nothing more about any of them.
 */
export function signalGroup(group: OwnedGroup, signal: NodeJS.Signals | 0): boolean {
  return signalOwnedGroup(group, signal) === 'sent'
}

/** The process group of a live process (Linux only); undefined when unknown. */
export function processGroupId(pid: number): number | undefined {
  const pgrp = Number(procStatFields(pid)?.[2])
  return Number.isInteger(pgrp) && pgrp > 0 ? pgrp : undefined
}

/** Identifies the current boot on Linux; pids recorded under another boot mean nothing now. */
export function currentBootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined
  } catch {
    return undefined
  }
}

/**
 * Polls `condition` every `intervalMs` until it holds or `timeoutMs` passes; resolves with whether it
 * held. For conditions that have no event to wait on (another process's group dying).
 */
export async function pollUntil(
  condition: () => boolean,
  opts: { timeoutMs: number; intervalMs?: number },
): Promise<boolean> {
  const deadline = Date.now() + opts.timeoutMs
  const interval = opts.intervalMs ?? 25
  while (!condition()) {
    if (Date.now() >= deadline) return false
    await new Promise((resolve) => setTimeout(resolve, interval))
  }
  return true
}
