import { spawn } from 'node:child_process'
import { type OwnedGroup, ownedGroup, signalOwnedGroup } from '../util/process-ownership.js'
import type { RawRun } from './protocol.js'
import type { HookProcessOwner } from './types.js'

export interface RunCommandOptions {
  command: string
  /** The event as JSON, written to stdin. */
  input: string
  cwd: string
  env: NodeJS.ProcessEnv
  timeoutMs: number
  signal?: AbortSignal
  owner?: HookProcessOwner
  /** Time between SIGTERM and SIGKILL when a hook is stopped (default 500 ms). */
  killGraceMs?: number
  /** bash by absolute path, found outside the workspace (source/util/host-programs.ts); `bash` from PATH without it. */
  shell?: string
}

/** Output kept per stream; a hook that prints more is cut (its answer then is not JSON). */
const MAX_OUTPUT = 1024 * 1024
/** After the hook exits, how long its pipes may stay open before they are closed for it. */
const DRAIN_MS = 200

/**
 * Runs one hook command with `bash -c` in its own process group, the event on stdin. Never rejects.
 * At its timeout or on abort the whole group gets SIGTERM, then SIGKILL; when the hook exits, whatever
 * it left running in its group is killed too, so no hook outlives its run.
 */
export function runHookCommand(opts: RunCommandOptions): Promise<RawRun> {
  const started = performance.now()
  const elapsed = () => performance.now() - started
  return new Promise<RawRun>((resolve) => {
    let child: ReturnType<typeof spawn>
    try {
      child = spawn(opts.shell ?? 'bash', ['-c', opts.command], {
        cwd: opts.cwd,
        env: opts.env,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      })
    } catch (err) {
      resolve(failedToStart((err as Error).message, elapsed()))
      return
    }
    const pid = child.pid
    // Read at once, before the event loop can reap the leader: every later signal goes to this group only.
    const group = pid === undefined ? undefined : ownedGroup(pid)
    const release =
      group === undefined
        ? () => undefined
        : (opts.owner?.track({
            pid: group.pgid,
            command: `hook: ${opts.command}`,
            cwd: opts.cwd,
            kind: 'foreground',
            ...(group.leaderStart !== undefined && { leaderStart: group.leaderStart }),
          }) ?? (() => undefined))
    const out = collector()
    const err = collector()
    child.stdout?.on('data', out.push)
    child.stderr?.on('data', err.push)
    // A hook that never reads its stdin (or exits first) closes the pipe: not an error.
    child.stdin?.on('error', () => undefined)
    child.stdin?.end(opts.input)

    let timedOut = false
    let aborted = false
    let killTimer: NodeJS.Timeout | undefined
    const stop = () => {
      if (group === undefined) return
      signalGroup(group, 'SIGTERM')
      killTimer ??= setTimeout(() => signalGroup(group, 'SIGKILL'), opts.killGraceMs ?? 500)
    }
    const timer = setTimeout(() => {
      timedOut = true
      stop()
    }, opts.timeoutMs)
    const onAbort = () => {
      aborted = true
      stop()
    }
    if (opts.signal?.aborted) onAbort()
    else opts.signal?.addEventListener('abort', onAbort, { once: true })

    let settled = false
    const finish = (run: RawRun) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (killTimer) clearTimeout(killTimer)
      opts.signal?.removeEventListener('abort', onAbort)
      release()
      resolve(run)
    }
    child.once('error', (error) => {
      finish(failedToStart(error.message, elapsed()))
    })
    child.once('exit', (code) => {
      const durationMs = elapsed()
      // What the hook left behind in its group goes with it.
      if (group !== undefined) signalGroup(group, 'SIGKILL')
      const drained = new Promise<void>((done) => {
        if (child.stdout?.readableEnded !== false && child.stderr?.readableEnded !== false) done()
        else child.once('close', () => done())
      })
      const cap = new Promise<void>((done) => setTimeout(done, DRAIN_MS).unref())
      void Promise.race([drained, cap]).then(() => {
        child.stdout?.destroy()
        child.stderr?.destroy()
        finish({
          exitCode: timedOut || aborted ? null : code,
          stdout: out.text(),
          stderr: err.text(),
          durationMs,
          timedOut,
          aborted,
        })
      })
    })
  })
}

/** A hook agent-tui did not start (see HookGuard): `reason` says why, where the user looks. */
export function notStarted(reason: string): RawRun {
  return { ...failedToStart(reason, 0), refused: reason }
}

function failedToStart(message: string, durationMs: number): RawRun {
  return {
    exitCode: null,
    stdout: '',
    stderr: '',
    durationMs,
    timedOut: false,
    aborted: false,
    spawnError: message,
  }
}

function collector() {
  const chunks: Buffer[] = []
  let size = 0
  let cut = 0
  return {
    push: (chunk: Buffer) => {
      if (size >= MAX_OUTPUT) {
        cut += chunk.length
        return
      }
      const room = MAX_OUTPUT - size
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk)
      cut += Math.max(0, chunk.length - room)
      size += Math.min(chunk.length, room)
    },
    text: () => {
      const text = Buffer.concat(chunks).toString('utf8')
      return cut > 0 ? `${text}\n… (${cut} more bytes not kept)` : text
    },
  }
}

/** Through the ownership check (util/process-ownership.ts); a group gone already is not an error. */
function signalGroup(group: OwnedGroup, signal: NodeJS.Signals): void {
  signalOwnedGroup(group, signal)
}
