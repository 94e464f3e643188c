import type { PidRegistry } from './pid-registry.js'
import { type OwnedGroup, ownedGroup, signalGroup } from './process-group.js'

/** A process group this agent-tui started and must not leave behind. */
export interface TrackedGroup {
  /** The group leader's pid, which is also the group id (spawned with `detached: true`). */
  pid: number
  command: string
  cwd?: string
  startedAt?: number
  kind: 'foreground' | 'background'
  /**
   * The leader's start time, when the spawner read it (`ownedGroup`); read at `track` otherwise, which
   * is right as long as the spawner tracks the group before the event loop can reap its leader.
   */
  leaderStart?: string
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
  // pid → its current holder's token and the group as recorded when it was first tracked.
  const live = new Map<number, { token: symbol; group: OwnedGroup }>()
  return {
    track(group) {
      const token = Symbol(group.command)
      // A hand-over keeps the identity read when the group was first tracked.
      const owned = live.get(group.pid)?.group ?? {
        pgid: group.pid,
        leaderStart: group.leaderStart ?? ownedGroup(group.pid).leaderStart,
      }
      live.set(group.pid, { token, group: owned })
      registry?.add({
        pid: group.pid,
        command: group.command,
        kind: group.kind,
        ...(group.cwd !== undefined && { cwd: group.cwd }),
        ...(group.startedAt !== undefined && { startedAt: group.startedAt }),
        ...(owned.leaderStart !== undefined && { leaderStart: owned.leaderStart }),
      })
      return () => {
        if (live.get(group.pid)?.token !== token) return
        live.delete(group.pid)
        registry?.remove(group.pid)
      }
    },
    killAllSync() {
      const groups = [...live.values()].map((held) => held.group)
      const pids = [...live.keys()]
      live.clear()
      for (const group of groups) signalGroup(group, 'SIGKILL')
      // After the kills, in one write: a registry write is slow next to a signal.
      registry?.remove(pids)
    },
    pids: () => [...live.keys()],
  }
}
