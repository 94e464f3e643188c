import type { PidRegistry } from './pid-registry.js'
import { signalGroup } from './process-group.js'

/** A process group this agent-tui started and must not leave behind. */
export interface TrackedGroup {
  /** The group leader's pid, which is also the group id (spawned with `detached: true`). */
  pid: number
  command: string
  cwd?: string
  startedAt?: number
  kind: 'foreground' | 'background'
}

/** What a tool needs to register the group of a command it runs. */
export interface ProcessGroupTracker {
  /**
   * Records a running group until the returned function is called (call it once the group is gone).
   * Tracking a pid that is already tracked hands it over: the earlier holder's release becomes a no-op,
   * so a foreground command moved to the TaskManager stays recorded whatever order the two run in.
   */
  track(group: TrackedGroup): () => void
}

/** The one owner of every live process group of this process, foreground commands and background jobs. */
export interface ProcessGroups extends ProcessGroupTracker {
  /**
   * SIGKILLs every tracked group now and forgets them (registry included). For exit paths, which cannot
   * wait for a SIGTERM grace period: an `exit` handler runs synchronously to the end. Safe to call again.
   */
  killAllSync(): void
  /** The pids of the tracked groups. */
  pids(): number[]
}

export interface ProcessGroupsOptions {
  /** Where groups are also recorded on disk, so the next start can reap them after a crash. */
  registry?: PidRegistry
}

export function createProcessGroups(opts: ProcessGroupsOptions = {}): ProcessGroups {
  const { registry } = opts
  // pid → the token of its current holder.
  const live = new Map<number, symbol>()
  return {
    track(group) {
      const token = Symbol(group.command)
      live.set(group.pid, token)
      registry?.add({
        pid: group.pid,
        command: group.command,
        kind: group.kind,
        ...(group.cwd !== undefined && { cwd: group.cwd }),
        ...(group.startedAt !== undefined && { startedAt: group.startedAt }),
      })
      return () => {
        if (live.get(group.pid) !== token) return
        live.delete(group.pid)
        registry?.remove(group.pid)
      }
    },
    killAllSync() {
      const pids = [...live.keys()]
      live.clear()
      for (const pid of pids) signalGroup(pid, 'SIGKILL')
      // After the kills, in one write: a registry write is slow next to a signal.
      registry?.remove(pids)
    },
    pids: () => [...live.keys()],
  }
}
