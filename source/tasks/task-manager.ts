import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync } from 'node:fs'
import { join } from 'node:path'
import type { WrappedSpawn } from '../sandbox/bash-sandbox.js'
import type { StdioEntry } from '../sandbox/spawn-fds.js'
import type { TaskSummary } from '../store/domain.js'
import { PRIVATE_DIR } from '../util/safe-files.js'
import { createFresh, openSafeDir, reopen, type SafeDir } from '../util/safe-open.js'
import { createFileFollower, type FileFollower } from './file-follower.js'
import { createJobOutput } from './job-output.js'
import { DEFAULT_LOG_CAP_BYTES, type LogCap, logCap } from './log-cap.js'
import { DEFAULT_HEAD_BYTES, DEFAULT_TAIL_BYTES, type OutputBufferOptions } from './output-buffer.js'
import { createPipeReader } from './pipe-reader.js'
import { processGroupId } from './process-group.js'
import type { PortWatch, WatchedJob } from './port-watch.js'
import type { PortScanner } from './port-scan.js'
import type { ProcessGroups } from './process-groups.js'
import { createTaskJob, type TaskJob, type TaskJobInit } from './task-job.js'
import type { AdoptRequest, TaskManagerApi } from './types.js'

export interface TaskManagerOptions {
  /** The session's outputs dir; logs go to `<outputsDir>/tasks/<id>.log`. */
  outputsDir: string
  /**
   * The directory at or above `outputsDir` whose own path is trusted (default `outputsDir`): below it no
   * link is followed and no file reused, since sandboxed commands can write there (safe-open.ts).
   */
  privateRoot?: string
  /** The owner of the app's live process groups (and the pid registry); every job's group is tracked there. */
  processes?: ProcessGroups
  /** Receives summaries (copies): throttled while output flows, immediately on status changes. Must not throw. */
  onUpdate?: (summary: TaskSummary) => void
  /** At most one output-driven update per task per this many ms (default 250). */
  updateThrottleMs?: number
  /** In-memory bounds per task (default 64 KiB head + 1 MiB tail). */
  buffer?: OutputBufferOptions
  /** Time between SIGTERM and SIGKILL in `stop` (default 2000 ms). */
  killGraceMs?: number
  /**
   * Size cap of each log file (default 64 MiB; see log-cap.ts): past it the middle is cut, the first
   * eighth and the latest output stay. It must hold the in-memory head and tail.
   */
  logCapBytes?: number
  /** bash by absolute path for jobs outside the sandbox (see ShellOptions.shell); `bash` from PATH without it. */
  shell?: () => string
  /**
   * How often the listening ports of running jobs are looked up (default 1500 ms; 0: never). Only while a
   * job runs; the watcher's module loads with the first job.
   */
  portPollMs?: number
  /** How ports are looked up (default: /proc on Linux, lsof elsewhere; port-scan.ts). */
  portScanner?: PortScanner
  /** lsof by absolute path, found outside the workspace (default: `lsof` from PATH); undefined: none. */
  lsof?: () => string | undefined
}

/** `adopt`'s options: the shared AdoptRequest. */
export interface AdoptOptions extends Omit<AdoptRequest, 'child'> {
  /**
   * A running process that leads its own process group (spawned with `detached: true`) with piped
   * stdout/stderr. Hand-over contract for the foreground Bash tool: remove your own 'data' listeners
   * (and pipes) and call `adopt` in the same synchronous turn, so no chunk falls between the two. From
   * then on the manager owns the process and its output.
   */
  child: ChildProcess
}

/** The TaskManager: `TaskManagerApi` plus hand-over, viewing and shutdown. */
export interface TaskManager extends TaskManagerApi {
  /** Takes over a running foreground process as a background task. Throws if it has no pid or group. */
  adopt(opts: AdoptOptions): TaskSummary
  /** The last `maxBytes` (default 64 KiB) of held output, for live viewers; does not move read cursors. */
  tail(id: string, maxBytes?: number): string
  /** SIGKILLs every running job's group at once; for exit paths that cannot wait. */
  stopAllSync(): void
  /** Kills everything, waits for the processes to go and stops all timers. For tests and shutdown. */
  dispose(): Promise<void>
}

/** A new log, made where nothing planted can redirect it; `fd` is its first open description. */
interface NewLog {
  fd: number
  path: string
  name: string
  dir: SafeDir
}

const DEFAULT_PORT_POLL_MS = 1500

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * Creates a manager; ids are `b1`, `b2`, … in start order for this instance. A launched job runs as
 * `bash -c command` in its own process group (and session), stdin from /dev/null, with stdout and
 * stderr both writing straight into `<outputsDir>/tasks/<id>.log`: interleaved exactly as produced and
 * at no cost to this process. Memory holds a bounded head and tail of each job's output.
 */
export function createTaskManager(opts: TaskManagerOptions): TaskManager {
  const cap = checkedCap(opts.logCapBytes ?? DEFAULT_LOG_CAP_BYTES, opts.buffer)
  const logDir = join(opts.outputsDir, 'tasks')
  const jobs = new Map<string, TaskJob>()
  /** Untracks each job's group once the job has ended (or been killed on the way out). */
  const releases = new Map<string, () => void>()
  let disposed = false
  let portWatch: Promise<PortWatch | undefined> | undefined
  const portPollMs = opts.portPollMs ?? DEFAULT_PORT_POLL_MS
  /** Polls ports while jobs run; loaded on the first job, so a session without one never loads it. */
  const watchPorts = (): void => {
    if (portPollMs <= 0 || disposed) return
    portWatch ??= import('./port-watch.js').then(
      ({ createPortWatch }) =>
        disposed
          ? undefined
          : createPortWatch({
              intervalMs: portPollMs,
              jobs: watchedJobs,
              ...(opts.portScanner ? { scan: opts.portScanner } : {}),
              ...(opts.lsof ? { lsof: opts.lsof } : {}),
            }),
      // Ports are a convenience: a module that cannot load leaves every job as it was.
      () => undefined,
    )
    void portWatch.then((watch) => watch?.kick())
  }
  const release = (id: string): void => {
    releases.get(id)?.()
    releases.delete(id)
  }

  const requireJob = (id: string): TaskJob => {
    const job = jobs.get(id)
    if (job) return job
    const known = [...jobs.keys()]
    throw new Error(
      known.length === 0
        ? `unknown task id "${id}"; no background tasks exist`
        : `unknown task id "${id}"; known: ${known.join(', ')}`,
    )
  }

  /**
   * Checked before anything starts, so a failure leaves no process behind and consumes no id. The log is
   * created new (O_EXCL, never through a link); a name already taken — a link or file a sandboxed
   * command planted — gives the log a fresh random name instead, which the summary reports.
   */
  const prepare = (flags: {
    append: boolean
    access: 'write' | 'read-write'
  }): { id: string; log: NewLog } => {
    if (disposed) throw new Error('the task manager has been disposed; no new background tasks can start')
    let dir: SafeDir
    try {
      dir = openSafeDir(opts.privateRoot ?? opts.outputsDir, logDir, { create: PRIVATE_DIR })
    } catch (error) {
      throw new Error(`cannot create the task log directory ${logDir}: ${errorMessage(error)}`)
    }
    const id = `b${jobs.size + 1}`
    try {
      const made = createFresh(dir, `${id}.log`, { mode: 0o600, ...flags })
      return { id, log: { ...made, dir, path: join(dir.path, made.name) } }
    } catch (error) {
      dir.close()
      throw new Error(`cannot create the task log ${join(logDir, `${id}.log`)}: ${errorMessage(error)}`)
    }
  }

  /** `prepare` for a process that runs already: it is taken over even without a log (output in memory). */
  const prepareAdopted = (): { id: string; log: NewLog | { error: unknown; path: string } } => {
    try {
      const prepared = prepare({ append: false, access: 'read-write' })
      prepared.log.dir.close()
      return prepared
    } catch (error) {
      if (disposed) throw error
      const id = `b${jobs.size + 1}`
      return { id, log: { error, path: join(logDir, `${id}.log`) } }
    }
  }

  const jobInit = (
    fields: Pick<TaskJobInit, 'id' | 'logPath' | 'child' | 'output' | 'command' | 'cwd' | 'startedAt'> & {
      description: string | undefined
    },
  ): TaskJobInit => ({
    ...fields,
    logCap: cap,
    throttleMs: opts.updateThrottleMs ?? 250,
    killGraceMs: opts.killGraceMs ?? 2000,
    onUpdate: opts.onUpdate,
    onEnd: () => release(fields.id),
  })

  const begin = (job: TaskJob, init: TaskJobInit): TaskSummary => {
    jobs.set(init.id, job)
    const { pid } = init.child
    const { processes } = opts
    if (pid !== undefined && processes) {
      releases.set(
        init.id,
        processes.track({
          pid,
          command: init.command,
          cwd: init.cwd,
          startedAt: init.startedAt,
          kind: 'background',
        }),
      )
    }
    job.start()
    watchPorts()
    return job.summary()
  }

  const runningJobs = (): TaskJob[] => [...jobs.values()].filter((job) => job.isRunning())
  const watchedJobs = (): WatchedJob[] =>
    [...jobs].flatMap(([id, job]) =>
      job.isRunning() && job.pid !== undefined
        ? [
            {
              id,
              pgid: job.pid,
              outputSince: job.outputSince,
              setPorts: job.setPorts,
            },
          ]
        : [],
    )

  const manager: TaskManager = {
    launch({ command, cwd, description, sandbox, env }) {
      // O_APPEND: stdout and stderr share this one file description, so writes interleave without
      // overwriting, and land at the end after the follower cuts the log back.
      const { id, log } = prepare({ append: true, access: 'write' })
      const logPath = log.path
      const logFd = log.fd
      const output = createJobOutput(opts.buffer)
      let follower: FileFollower
      let child: ChildProcess
      try {
        // A description of its own (no O_APPEND, for cutting), of this very file: not through the path.
        follower = createFileFollower(logPath, output, cap, reopen(logFd, log.dir, log.name, 'read-write'))
      } catch (error) {
        closeSync(logFd)
        throw new Error(`cannot read back the task log ${logPath}: ${errorMessage(error)}`)
      } finally {
        log.dir.close()
      }
      let wrapped: WrappedSpawn | undefined
      try {
        wrapped = sandbox?.wrap({ file: 'bash', args: ['-c', command], cwd })
        // Own process group: stop() and the exit clean-up signal the whole tree at once (the sandbox
        // program shares the group with everything it starts).
        const stdio: StdioEntry[] = ['ignore', logFd, logFd]
        child = spawn(wrapped?.file ?? opts.shell?.() ?? 'bash', wrapped?.args ?? ['-c', command], {
          cwd,
          env: env ?? process.env,
          detached: true,
          stdio: wrapped ? wrapped.stdio(stdio) : stdio,
        })
        if (wrapped) {
          wrapped.started()
          child.once('exit', wrapped.done)
          child.once('error', wrapped.done)
        }
      } catch (error) {
        wrapped?.done()
        follower.close(undefined, () => {})
        throw new Error(`cannot start "${command}": ${errorMessage(error)}`)
      } finally {
        // The child holds its own copy; ours would only keep the file open.
        closeSync(logFd)
      }
      const init = jobInit({ id, logPath, child, output, command, cwd, description, startedAt: Date.now() })
      const job = createTaskJob(init, (events) => {
        // Without a listener nobody needs live updates: reads sync on demand, no watcher at all.
        if (opts.onUpdate) follower.watch(events.changed)
        return follower
      })
      return begin(job, init)
    },

    adopt({ child, command, cwd, description, initialOutput, initialOutputSeen, startedAt }) {
      const node = child
      if (node.pid === undefined)
        throw new Error(`cannot adopt "${command}": the process never started (no pid)`)
      const pgid = processGroupId(node.pid)
      if (pgid !== undefined && pgid !== node.pid) {
        throw new Error(
          `cannot adopt "${command}": pid ${node.pid} is not a process-group leader (group ${pgid}); spawn it with detached: true`,
        )
      }
      const { id, log } = prepareAdopted()
      const logPath = log.path
      const output = createJobOutput(opts.buffer)
      const init = jobInit({
        id,
        logPath,
        child: node,
        output,
        command,
        cwd,
        description,
        startedAt: startedAt ?? Date.now(),
      })
      const job = createTaskJob(init, (events) =>
        createPipeReader(
          {
            child: node,
            logPath,
            log: 'fd' in log ? { fd: log.fd } : { error: log.error },
            output,
            initialOutput,
            cap,
          },
          events,
        ),
      )
      if (initialOutputSeen) job.markAllRead()
      return begin(job, init)
    },

    get: (id) => jobs.get(id)?.summary(),

    list: () => [...jobs.values()].map((job) => job.summary()),

    read: async (id, readOpts) => requireJob(id).read(readOpts),

    tail: (id, maxBytes = 64 * 1024) => requireJob(id).tail(maxBytes),

    stop: async (id) => requireJob(id).stop(),

    async stopAll() {
      await Promise.all(runningJobs().map((job) => job.stop()))
    },

    stopAllSync() {
      for (const [id, job] of jobs) {
        if (!job.isRunning()) continue
        // The exit event may never be processed (we are likely exiting), so forget the group now.
        release(id)
        job.killNow()
      }
    },

    async dispose() {
      manager.stopAllSync()
      await Promise.all([...jobs.values()].map((job) => job.done))
      disposed = true
      ;(await portWatch)?.dispose()
      for (const job of jobs.values()) job.mute()
    },
  }
  return manager
}

/** The log cap, checked against the memory bounds: the follower reads the head and tail from the log. */
function checkedCap(capBytes: number, buffer: OutputBufferOptions = {}): LogCap {
  const cap = logCap(capBytes)
  const head = buffer.headBytes ?? DEFAULT_HEAD_BYTES
  const tail = buffer.tailBytes ?? DEFAULT_TAIL_BYTES
  // A few bytes of slack: the head's end moves back to a character boundary.
  if (cap.headBytes < head + 4 || cap.keepBytes < tail) {
    throw new RangeError(
      `a log cap of ${capBytes} bytes keeps less than the in-memory head (${head}) and tail (${tail}) of a job's output`,
    )
  }
  return cap
}
