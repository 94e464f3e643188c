import { readFileSync } from 'node:fs'

/**
 * The one check every signal agent-tui sends to a process group goes through: a group is signalled only
 * when it is one agent-tui started. `kill(-pgid)` with a bad number is not a small mistake — `-0` is
 * agent-tui's own group, `-1` is every process of the user, a negative pgid names a single process, and a
 * recorded group whose leader died may name someone else's process that reused the pid. So a group is
 * identified by its id and its leader's kernel start time, read when it was spawned, and never signalled
 * when the id is 0, 1 or not a positive integer, is agent-tui's own process or group, or is led by a
 * process other than the recorded one (another start time: the pid was reused). Linux answers all of
 * these from /proc; elsewhere only the checks on the numbers and on agent-tui's own pid hold.
 * (Between the check and the kill the group could empty and its pid be reused; without pidfd_send_signal
 * in Node that gap of two system calls cannot be closed.)
 */

/** A process group agent-tui started: its id (= its leader's pid) and its leader's start time then. */
export interface OwnedGroup {
  pgid: number
  /** `/proc/<pid>/stat` field 22 when it was spawned; undefined off Linux (or when it could not be read). */
  leaderStart: string | undefined
}

/** What the system says now, for `groupSignalRefusal`. */
export interface SignalFacts {
  ownPid: number
  /** agent-tui's own process group; undefined when it cannot be known (no /proc). */
  ownPgid: number | undefined
  /**
   * The start time of the process whose pid is the group id; `gone` when there is none (the group may
   * still have members: the kernel does not hand out a pid that is still a group's id), `unknown`
   * without /proc.
   */
  leader: { start: string } | 'gone' | 'unknown'
}

/** Why `group` must not be signalled now, or undefined when it may. Pure: the facts are gathered apart. */
export function groupSignalRefusal(group: OwnedGroup, facts: SignalFacts): string | undefined {
  const { pgid } = group
  if (!Number.isSafeInteger(pgid) || pgid <= 0) return `${pgid} is not a process group id`
  if (pgid === 1) return 'process group 1 is init (kill(-1) would reach every process of the user)'
  if (pgid === facts.ownPid) return `process group ${pgid} is agent-tui itself`
  if (facts.ownPgid !== undefined && pgid === facts.ownPgid)
    return `process group ${pgid} is agent-tui's own group`
  const { leader } = facts
  if (leader === 'gone' || leader === 'unknown') return undefined
  // With /proc the start time was read at spawn; a group without one was not recorded by agent-tui.
  if (group.leaderStart === undefined) return `no start time was recorded for process group ${pgid}`
  if (leader.start !== group.leaderStart)
    return `pid ${pgid} is now another process (started at tick ${leader.start}, not ${group.leaderStart})`
  return undefined
}

/** The group of a process agent-tui has just spawned (call it before the event loop can reap the child). */
export function ownedGroup(pid: number): OwnedGroup {
  return { pgid: pid, leaderStart: processStartTime(pid) }
}

/** The facts about `pgid` as they are now (from /proc on Linux). */
export function signalFacts(pgid: number): SignalFacts {
  const own = procStatFields(process.pid)
  const ownPgid = own ? Number(own[2]) : undefined
  if (!procAvailable(own)) return { ownPid: process.pid, ownPgid: undefined, leader: 'unknown' }
  const start = Number.isSafeInteger(pgid) && pgid > 0 ? processStartTime(pgid) : undefined
  return {
    ownPid: process.pid,
    ownPgid: Number.isInteger(ownPgid) ? ownPgid : undefined,
    leader: start === undefined ? 'gone' : { start },
  }
}

export type GroupSignalResult = 'sent' | 'gone' | { refused: string }

/**
 * Sends `signal` to every process of `group` (0: only checks that it exists) unless `groupSignalRefusal`
 * says no. `gone` when no process of the group is left (or it cannot be signalled: EPERM).
 */
export function signalOwnedGroup(group: OwnedGroup, signal: NodeJS.Signals | 0): GroupSignalResult {
  const refusal = groupSignalRefusal(group, signalFacts(group.pgid))
  if (refusal !== undefined) return { refused: refusal }
  try {
    process.kill(-group.pgid, signal)
    return 'sent'
  } catch {
    return 'gone'
  }
}

/** Fields of /proc/<pid>/stat after the command name; undefined off Linux or when the process is gone. */
export function procStatFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may contain spaces and parentheses, so split after its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}

/**
 * The kernel's start time of a process (clock ticks since boot), used to tell a recorded process from
 * a later one that reused its pid. Undefined off Linux or when the process is gone.
 */
export function processStartTime(pid: number): string | undefined {
  // starttime is field 22 of /proc/<pid>/stat, i.e. index 19 after the command name.
  return procStatFields(pid)?.[19]
}

/** Whether /proc answered for this very process: without it nothing about other pids can be known. */
function procAvailable(own: string[] | undefined): boolean {
  return own !== undefined && own[19] !== undefined
}
