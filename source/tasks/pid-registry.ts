import { dirname } from 'node:path'
import { z } from 'zod'
import { PRIVATE_DIR, readOwnFile, replaceOwnFile } from '../util/safe-files.js'
import { groupSignalRefusal, type OwnedGroup, signalFacts } from '../util/process-ownership.js'
import {
  currentBootId,
  groupAlive,
  isProcessAlive,
  pollUntil,
  processStartTime,
  signalGroup,
} from './process-group.js'

/** One running process group, as recorded for the next start-up in case this process crashes. */
export interface PidEntry {
  /** The group's leader. */
  pid: number
  pgid: number
  command: string
  /** A foreground Bash command or a background job; absent in files written before foreground ones were. */
  kind?: 'foreground' | 'background'
  cwd?: string
  startedAt: number
  /** The agent-tui process that owns the job. */
  ownerPid: number
  /** Kernel start time of the leader (Linux), so a reused pid is never mistaken for the job. */
  leaderStart?: string
  /** Boot the entry was written in (Linux); entries from an earlier boot are stale. */
  bootId?: string
}

export interface ReapedOrphan {
  pid: number
  command: string
  kind?: 'foreground' | 'background'
  cwd?: string
  /** False when the group survived SIGTERM and SIGKILL (e.g. owned by another user), or was refused. */
  killed: boolean
  /**
   * Why the entry was not signalled at all: it names no group agent-tui could have started (group 0
   * or 1, agent-tui's own group, a group id that is not its leader's pid, no recorded start time).
   */
  refused?: string
}

export interface PidRegistry {
  readonly file: string
  /** Records a group; `ownerPid` defaults to this process. Never throws (see `onError`). */
  add(entry: {
    pid: number
    pgid?: number
    command: string
    kind?: 'foreground' | 'background'
    cwd?: string
    startedAt?: number
    ownerPid?: number
    /** The leader's start time, when the caller read it at spawn (read here otherwise). */
    leaderStart?: string
  }): void
  /** Forgets the groups led by `pid` (one write for many). Never throws (see `onError`). */
  remove(pid: number | readonly number[]): void
  /** The recorded entries; a missing or corrupt file reads as empty. */
  list(): PidEntry[]
  /**
   * At start-up: kills the groups of jobs whose owner is gone (SIGTERM, then SIGKILL after `graceMs`,
   * default 2000), reports them, and drops entries whose group no longer exists. Entries of live
   * owners (other agent-tui instances) are left alone.
   */
  reapOrphans(opts?: { graceMs?: number; killWaitMs?: number }): Promise<ReapedOrphan[]>
}

export interface PidRegistryOptions {
  /** Called when the file cannot be written; the registry is best-effort and never fails a launch. */
  onError?: (error: Error) => void
}

const entrySchema = z.object({
  pid: z.number().int().positive(),
  pgid: z.number().int().positive(),
  command: z.string(),
  kind: z.enum(['foreground', 'background']).optional(),
  cwd: z.string().optional(),
  startedAt: z.number(),
  ownerPid: z.number().int().positive(),
  leaderStart: z.string().optional(),
  bootId: z.string().optional(),
})

const fileSchema = z.object({ version: z.literal(1), entries: z.array(z.unknown()) })

/**
 * A JSON file of running jobs in the state dir. Writes are atomic (temp file + rename), so a crash
 * mid-write never corrupts it; neither the read nor the write follows a link (util/safe-files.ts). Several agent-tui processes may share one file; each write re-reads it
 * first, which keeps their entries apart except for writes that race within the same instant.
 */
export function createPidRegistry(file: string, opts: PidRegistryOptions = {}): PidRegistry {
  // Read once: every foreground command is recorded, and the boot does not change under a running app.
  const bootId = currentBootId()

  const read = (): PidEntry[] => {
    let raw: unknown
    try {
      // Not through a link, and a FIFO there cannot stall the start (util/safe-files.ts).
      raw = JSON.parse(readOwnFile(dirname(file), file)?.toString('utf8') ?? '')
    } catch {
      return []
    }
    const parsed = fileSchema.safeParse(raw)
    if (!parsed.success) return []
    // Keep every well-formed entry even if a neighbour is damaged.
    return parsed.data.entries.flatMap((entry) => {
      const result = entrySchema.safeParse(entry)
      return result.success ? [result.data] : []
    })
  }

  const write = (entries: PidEntry[]): void => {
    try {
      // A new temp file (O_EXCL, a random name) renamed through the open state dir: never through a link.
      replaceOwnFile(dirname(file), file, `${JSON.stringify({ version: 1, entries }, null, 2)}\n`, {
        mode: 0o600,
        createDirs: PRIVATE_DIR,
      })
    } catch (error) {
      const cause = error instanceof Error ? error.message : String(error)
      opts.onError?.(new Error(`could not update the background job registry ${file}: ${cause}`))
    }
  }

  const keyOf = (entry: PidEntry): string => `${entry.ownerPid}:${entry.pid}`

  /**
   * What to do with an orphan's entry. The file is only data: whoever could write it must not be able to
   * make agent-tui signal init, itself, or a process it did not start. A pid reused since (another start
   * time) or a group already gone is only stale: dropped without a word.
   */
  const verdictOn = (entry: PidEntry, bootId: string | undefined): 'kill' | 'stale' | { refused: string } => {
    const group: OwnedGroup = { pgid: entry.pgid, leaderStart: entry.leaderStart }
    const facts = signalFacts(entry.pgid)
    const refusal = groupSignalRefusal(group, { ...facts, leader: 'gone' })
    if (refusal !== undefined) return { refused: refusal }
    if (entry.pgid !== entry.pid)
      return { refused: `process group ${entry.pgid} is not led by the recorded pid ${entry.pid}` }
    if (entry.bootId !== undefined && bootId !== undefined && entry.bootId !== bootId) return 'stale'
    if (!groupAlive(entry.pgid)) return 'stale'
    if (facts.leader === 'unknown' || facts.leader === 'gone') return 'kill'
    // A live leader with another start time is an unrelated process that reused the pid (and so the
    // group id): the original group is gone.
    if (entry.leaderStart !== undefined && facts.leader.start !== entry.leaderStart) return 'stale'
    const late = groupSignalRefusal(group, facts)
    return late === undefined ? 'kill' : { refused: late }
  }

  const reported = (entry: PidEntry, killed: boolean, refused?: string): ReapedOrphan => ({
    pid: entry.pid,
    command: entry.command,
    ...(entry.kind !== undefined && { kind: entry.kind }),
    ...(entry.cwd !== undefined && { cwd: entry.cwd }),
    killed,
    ...(refused !== undefined && { refused }),
  })

  const killGroup = async (entry: PidEntry, graceMs: number, killWaitMs: number): Promise<ReapedOrphan> => {
    const group: OwnedGroup = { pgid: entry.pgid, leaderStart: entry.leaderStart }
    const gone = () => !groupAlive(entry.pgid)
    signalGroup(group, 'SIGTERM')
    let killed = await pollUntil(gone, { timeoutMs: graceMs })
    if (!killed) {
      signalGroup(group, 'SIGKILL')
      killed = await pollUntil(gone, { timeoutMs: killWaitMs })
    }
    return reported(entry, killed)
  }

  return {
    file,
    add(entry) {
      const leaderStart = entry.leaderStart ?? processStartTime(entry.pid)
      const full: PidEntry = {
        pid: entry.pid,
        pgid: entry.pgid ?? entry.pid,
        command: entry.command,
        ...(entry.kind !== undefined && { kind: entry.kind }),
        ...(entry.cwd !== undefined && { cwd: entry.cwd }),
        startedAt: entry.startedAt ?? Date.now(),
        ownerPid: entry.ownerPid ?? process.pid,
        ...(leaderStart !== undefined && { leaderStart }),
        ...(bootId !== undefined && { bootId }),
      }
      write([...read().filter((e) => e.pid !== entry.pid), full])
    },
    remove(pid) {
      const gone = new Set(typeof pid === 'number' ? [pid] : pid)
      if (gone.size === 0) return
      const entries = read()
      if (entries.some((e) => gone.has(e.pid))) write(entries.filter((e) => !gone.has(e.pid)))
    },
    list: read,
    async reapOrphans(reapOpts = {}) {
      const graceMs = reapOpts.graceMs ?? 2000
      const killWaitMs = reapOpts.killWaitMs ?? 2000
      const orphans: PidEntry[] = []
      const refused: ReapedOrphan[] = []
      const dropped = new Set<string>()
      for (const entry of read()) {
        if (entry.ownerPid === process.pid || isProcessAlive(entry.ownerPid)) continue
        dropped.add(keyOf(entry))
        const verdict = verdictOn(entry, bootId)
        if (verdict === 'kill') orphans.push(entry)
        else if (verdict !== 'stale') refused.push(reported(entry, false, verdict.refused))
      }
      const reaped = [
        ...refused,
        ...(await Promise.all(orphans.map((entry) => killGroup(entry, graceMs, killWaitMs)))),
      ]
      // Re-read: other instances may have written while the groups were dying.
      if (dropped.size > 0) write(read().filter((e) => !dropped.has(keyOf(e))))
      return reaped
    },
  }
}
