import type { ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { constants as osConstants } from 'node:os'
import type { ListeningPort, TaskSummary } from '../store/domain.js'
import { formatRead, type JobOutput, type OutputSource, type SourceEvents } from './job-output.js'
import type { LogCap } from './log-cap.js'
import { groupAlive, ownedGroup, signalGroup } from './process-group.js'
import type { TaskReadResult } from './types.js'

/** How often to check whether a stopping job's group is gone (no event tells us). */
const STOP_POLL_MS = 25
/** How often to check a job whose leader exited while processes it started still run. */
const LINGER_POLL_MS = 1000
/** After SIGKILL, how long to wait for the group and the pipes before giving up on them. */
const ABANDON_MS = 500
const MAX_TIMER_MS = 2 ** 31 - 1

export interface TaskJobInit {
  id: string
  command: string
  cwd: string
  description: string | undefined
  logPath: string
  /** The log's size cap (see log-cap.ts); undefined: uncapped. */
  logCap: LogCap | undefined
  startedAt: number
  /** The group leader; it must lead its own process group. */
  child: ChildProcess
  output: JobOutput
  throttleMs: number
  killGraceMs: number
  onUpdate: ((summary: TaskSummary) => void) | undefined
  /** Called once when the job has ended, before the final update. */
  onEnd: (summary: TaskSummary) => void
}

/** One background job: its process group, its output and its status. */
export interface TaskJob {
  /** The group leader's pid (= the group id); undefined when the spawn failed. */
  readonly pid: number | undefined
  readonly done: Promise<void>
  /** Sends the first update and starts watching for the end. Call once, after registering the job. */
  start(): void
  isRunning(): boolean
  summary(): TaskSummary
  read(opts: { block: boolean; timeoutMs: number; signal?: AbortSignal }): Promise<TaskReadResult>
  tail(maxBytes: number): string
  /** Moves the read cursor to the end of what is held (output the caller has already shown). */
  markAllRead(): void
  /** SIGTERM to the group, SIGKILL after the grace; resolves once the job has ended. */
  stop(): Promise<TaskSummary>
  /** SIGKILL to the group now, without waiting. */
  killNow(): void
  /** No more updates (the manager is being disposed). */
  mute(): void
  /** The TCP ports it listens on (port-watch.ts); an update goes out when they changed. */
  setPorts(ports: ListeningPort[]): void
  /** Output from `cursor` on (at most its last `maxBytes`), for the port watcher; moves no read cursor. */
  outputSince(cursor: number, maxBytes: number): { text: string; next: number }
}

/**
 * A job ends when its leader has exited, its pipes (if any) are closed and no live process is left
 * in its group; then its status becomes completed (exit 0), failed, or stopped (stop was asked).
 */
export function createTaskJob(
  init: TaskJobInit,
  makeSource: (events: SourceEvents) => OutputSource,
): TaskJob {
  const { child, output } = init
  const pgid = child.pid
  // Read now, while the leader cannot have been reaped yet: a later signal goes to this group only.
  const group = pgid === undefined ? undefined : ownedGroup(pgid)
  const summary: TaskSummary = {
    id: init.id,
    kind: 'bash',
    command: init.command,
    ...(init.description !== undefined && { description: init.description }),
    ...(pgid !== undefined && { pid: pgid }),
    status: 'running',
    exitCode: null,
    startedAt: init.startedAt,
    endedAt: null,
    lastLine: '',
    outputBytes: 0,
    logPath: init.logPath,
  }
  const timers: Partial<Record<'update' | 'kill' | 'abandon' | 'linger', NodeJS.Timeout>> = {}
  let cursor = 0
  let leaderExit: { code: number | null; signal: NodeJS.Signals | null } | null = null
  let spawnError: string | undefined
  let stopRequested = false
  let abandoned = false
  let finalizing = false
  let muted = false
  let stopping: Promise<TaskSummary> | undefined
  let lastEmit = 0
  let resolveDone = () => {}
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve
  })

  const isRunning = (): boolean => summary.status === 'running' && !finalizing

  const snapshot = (): TaskSummary => {
    if (isRunning()) source.refresh()
    summary.lastLine = output.lastLine
    summary.outputBytes = output.totalBytes
    return { ...summary }
  }

  const emitNow = (): void => {
    clearTimeout(timers.update)
    timers.update = undefined
    lastEmit = Date.now()
    // Re-arm before snapshot() reads, so a write landing in between still raises the next event.
    if (isRunning()) source.rearm()
    const current = snapshot()
    if (!muted) init.onUpdate?.(current)
  }

  const scheduleUpdate = (): void => {
    if (!init.onUpdate || timers.update || muted) return
    const wait = lastEmit + init.throttleMs - Date.now()
    if (wait <= 0) {
      emitNow()
      return
    }
    timers.update = setTimeout(emitNow, Math.min(wait, MAX_TIMER_MS))
    timers.update.unref()
  }

  const signal = (name: NodeJS.Signals): void => {
    if (group !== undefined && signalGroup(group, name)) return
    // No group to signal (it never formed or is gone); the leader may still be reachable directly
    // (Node signals its own child only until it has reaped it, so this cannot reach a reused pid).
    if (leaderExit === null) child.kill(name)
  }

  const finish = (): void => {
    const exit = leaderExit ?? { code: null, signal: null }
    const signalNumber = exit.signal ? osConstants.signals[exit.signal] : undefined
    const exitCode = exit.code ?? (signalNumber !== undefined ? 128 + signalNumber : null)
    summary.exitCode = exitCode
    summary.endedAt = Date.now()
    // An ended job listens on nothing.
    delete summary.ports
    summary.status = stopRequested
      ? 'stopped'
      : spawnError === undefined && exitCode === 0
        ? 'completed'
        : 'failed'
    init.onEnd(snapshot())
    resolveDone()
    emitNow()
  }

  const checkEnd = (): void => {
    if (finalizing || leaderExit === null) return
    if (!abandoned) {
      if (source.open) return
      if (pgid !== undefined && groupAlive(pgid)) {
        // Processes the job started outlive its leader (e.g. `server &`): the job still runs.
        if (!timers.linger) {
          timers.linger = setTimeout(
            () => {
              timers.linger = undefined
              checkEnd()
            },
            stopRequested ? STOP_POLL_MS : LINGER_POLL_MS,
          )
          if (!stopRequested) timers.linger.unref()
        }
        return
      }
    }
    finalizing = true
    for (const timer of Object.values(timers)) clearTimeout(timer)
    source.close(spawnError === undefined ? undefined : `[agent-tui] ${spawnError}\n`, finish)
  }

  const beginStop = (name: NodeJS.Signals): void => {
    stopRequested = true
    signal(name)
    // From now on poll the group quickly.
    clearTimeout(timers.linger)
    timers.linger = undefined
    checkEnd()
  }

  const startAbandonTimer = (): void => {
    if (timers.abandon || finalizing) return
    timers.abandon = setTimeout(() => {
      abandoned = true
      // E.g. a process that called setsid still holds the pipes: stop waiting for it.
      source.abandon()
      checkEnd()
    }, ABANDON_MS)
  }

  const waitForEnd = (timeoutMs: number, abort: AbortSignal | undefined): Promise<void> => {
    if (abort?.aborted) return Promise.resolve()
    return new Promise((resolve) => {
      const settle = () => {
        clearTimeout(timer)
        abort?.removeEventListener('abort', settle)
        resolve()
      }
      const ms = Number.isNaN(timeoutMs) ? 0 : Math.min(Math.max(0, timeoutMs), MAX_TIMER_MS)
      const timer = setTimeout(settle, ms)
      abort?.addEventListener('abort', settle, { once: true })
      void done.then(settle)
    })
  }

  const source = makeSource({ changed: scheduleUpdate, closed: checkEnd })
  const logInfo = () => ({ path: init.logPath, droppedBytes: source.logDroppedBytes, cap: init.logCap })

  return {
    pid: pgid,
    done,
    start() {
      child.on('error', (error) => {
        // 'error' after a successful spawn only reports a failed kill(); the exit still arrives.
        if (pgid !== undefined || leaderExit !== null) return
        spawnError = existsSync(init.cwd)
          ? `could not start bash: ${error.message}`
          : `working directory does not exist: ${init.cwd}`
        leaderExit = { code: null, signal: null }
        checkEnd()
      })
      if (child.exitCode !== null || child.signalCode !== null) {
        leaderExit = { code: child.exitCode, signal: child.signalCode }
      } else {
        child.once('exit', (code, exitSignal) => {
          leaderExit = { code, signal: exitSignal }
          checkEnd()
        })
      }
      emitNow()
      checkEnd()
    },
    isRunning,
    summary: snapshot,
    async read({ block, timeoutMs, signal: abort }) {
      if (block && summary.status === 'running') await waitForEnd(timeoutMs, abort)
      if (isRunning()) source.refresh()
      const result = output.read(cursor, { final: summary.status !== 'running' })
      cursor = result.cursor
      return {
        status: summary.status,
        exitCode: summary.exitCode,
        output: formatRead(result, logInfo()),
        droppedBytes: result.droppedBytes,
        logPath: summary.logPath,
      }
    },
    tail(maxBytes) {
      if (isRunning()) source.refresh()
      const from = Math.max(0, output.totalBytes - maxBytes)
      return formatRead(output.read(from, { final: true }), logInfo())
    },
    markAllRead() {
      cursor = output.totalBytes
    },
    async stop() {
      if (!isRunning()) {
        await done
        return snapshot()
      }
      if (stopping) return stopping
      timers.kill = setTimeout(() => {
        signal('SIGKILL')
        startAbandonTimer()
      }, init.killGraceMs)
      stopping = done.then(snapshot)
      beginStop('SIGTERM')
      return stopping
    },
    killNow() {
      if (!isRunning()) return
      startAbandonTimer()
      beginStop('SIGKILL')
    },
    mute() {
      muted = true
      clearTimeout(timers.update)
    },
    setPorts(ports) {
      // Compared as text: the watcher sends fresh arrays every tick.
      if (!isRunning() || JSON.stringify(summary.ports ?? []) === JSON.stringify(ports)) return
      if (ports.length === 0) delete summary.ports
      else summary.ports = ports
      emitNow()
    },
    outputSince(cursor, maxBytes) {
      if (isRunning()) source.refresh()
      const from = Math.max(cursor, output.totalBytes - maxBytes)
      const read = output.read(from, { final: false })
      return { text: read.text, next: read.cursor }
    },
  }
}
