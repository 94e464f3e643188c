import type { ListeningPort } from '../store/domain.js'
import { combinePorts, type PortHint, portsInOutput } from './listening-ports.js'
import { hostScanner, type PortScanner } from './port-scan.js'

/**
 * Polls the listening ports of running background jobs. It runs only while a job runs: `kick` starts it,
 * and it stops by itself on the first tick that finds none, so an idle session has no timer at all. Timers
 * are unref'd (they never keep agent-tui alive) and a tick starts only after the previous one finished.
 */

/** What the watcher needs of one running job (the TaskManager's TaskJob gives it). */
export interface WatchedJob {
  id: string
  /** The job's process group. */
  pgid: number
  /** Output from `cursor` on, at most `maxBytes` of its end; `next` is the cursor for the next call. */
  outputSince(cursor: number, maxBytes: number): { text: string; next: number }
  /** Receives the job's ports on every tick (the job sends an update only when they changed). */
  setPorts(ports: ListeningPort[]): void
}

export interface PortWatchOptions {
  /** The running jobs, asked at every tick. */
  jobs: () => WatchedJob[]
  intervalMs: number
  /** Default: /proc on Linux, lsof elsewhere. */
  scan?: PortScanner
  /** Where the default scanner finds lsof (see `hostScanner`). */
  lsof?: () => string | undefined
}

export interface PortWatch {
  /** A job started: polls from now on, until no job runs. */
  kick(): void
  dispose(): void
}

/** At most this much new output is read for URLs per job and tick (a chatty job skips to its end). */
const OUTPUT_SCAN_BYTES = 64 * 1024
/** Printed ports remembered per job (output cannot grow the watcher without bound). */
const MAX_HINTS = 32

export function createPortWatch(opts: PortWatchOptions): PortWatch {
  const scan = opts.scan ?? hostScanner(opts.lsof)
  const state = new Map<string, { cursor: number; hints: PortHint[] }>()
  let timer: NodeJS.Timeout | undefined
  let ticking = false
  let disposed = false

  const schedule = (): void => {
    if (timer || ticking || disposed) return
    timer = setTimeout(() => {
      timer = undefined
      void tick()
    }, opts.intervalMs)
    timer.unref()
  }

  const look = async (jobs: WatchedJob[]): Promise<void> => {
    for (const job of jobs) {
      const seen = state.get(job.id) ?? { cursor: 0, hints: [] }
      const read = job.outputSince(seen.cursor, OUTPUT_SCAN_BYTES)
      seen.cursor = read.next
      for (const hint of portsInOutput(read.text)) {
        if (seen.hints.length < MAX_HINTS && !seen.hints.some((h) => h.port === hint.port))
          seen.hints.push(hint)
      }
      state.set(job.id, seen)
    }
    const sockets = await scan(jobs.map((job) => job.pgid)).catch(() => null)
    if (disposed) return
    for (const job of jobs) {
      const held = sockets === null ? null : (sockets.get(job.pgid) ?? [])
      job.setPorts(combinePorts(held, state.get(job.id)?.hints ?? []))
    }
  }

  const tick = async (): Promise<void> => {
    const jobs = opts.jobs()
    for (const id of state.keys()) if (!jobs.some((job) => job.id === id)) state.delete(id)
    // No job runs: stop here (a later launch kicks again).
    if (jobs.length === 0 || disposed) return
    ticking = true
    try {
      await look(jobs)
    } catch {
      // A job that ended halfway through a look; the next look no longer sees it. Ports are a convenience:
      // nothing here may stop the watcher or reach the process as an unhandled rejection.
    } finally {
      ticking = false
    }
    schedule()
  }

  return {
    kick: schedule,
    dispose() {
      disposed = true
      clearTimeout(timer)
      timer = undefined
      state.clear()
    },
  }
}
