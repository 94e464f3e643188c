import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFile, unlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import { setTimeout as delay } from 'node:timers/promises'

export interface ShellExit {
  /** null when the shell was killed by a signal. */
  exitCode: number | null
  signal: NodeJS.Signals | null
  /** The shell's physical working directory when it exited (`pwd -P`); undefined when it could not say. */
  cwd: string | undefined
  durationMs: number
  /** The command left processes holding its output open; they were killed when the shell exited. */
  killedLeftovers: boolean
}

/** A running `bash -c` command in its own process group. */
export interface ShellProcess {
  readonly pid: number | undefined
  readonly startedAt: number
  /**
   * Receives output as it arrives: stdout and stderr share one pipe, so the order is the order the
   * command wrote. Earlier output is not replayed. Returns an unsubscribe function.
   */
  onOutput(listener: (chunk: string) => void): () => void
  /** Settles once the shell has exited and its output is drained; rejects only if bash could not start. */
  readonly exited: Promise<ShellExit>
  /** SIGTERM to the whole group, SIGKILL after `graceMs` if any member survives. Resolves once the shell exited. */
  kill(graceMs?: number): Promise<void>
}

export interface ShellOptions {
  command: string
  cwd: string
  env?: NodeJS.ProcessEnv
}

// After the shell exits, processes it started in the background may still hold the output pipe.
const DRAIN_GRACE_MS = 200
const KILL_GRACE_MS = 500

// stderr joins stdout on one pipe (exact interleaving); an EXIT trap records the final directory even
// after `exit`; `eval` keeps the command's own line numbers in syntax errors and its positional
// parameters empty.
const WRAPPER =
  'exec 2>&1; __agent_tui_cwd_file=$2; trap \'pwd -P >| "$__agent_tui_cwd_file" 2>/dev/null\' EXIT; ' +
  '__agent_tui_cmd=$1; set --; eval "$__agent_tui_cmd"'

/**
 * Starts `command` with `bash -c` in `cwd`, detached into its own process group with stdin closed.
 * The caller decides what happens on timeout: kill it, or hand the process to a task manager.
 */
export function startShell(opts: ShellOptions): ShellProcess {
  const cwdFile = join(tmpdir(), `agent-tui-cwd-${randomBytes(8).toString('hex')}`)
  const startedAt = Date.now()
  const child = spawn('bash', ['-c', WRAPPER, 'bash', opts.command, cwdFile], {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const listeners = new Set<(chunk: string) => void>()
  const decoder = new StringDecoder('utf8')
  const emit = (text: string): void => {
    if (text === '') return
    for (const listener of listeners) listener(text)
  }
  child.stdout?.on('data', (buf: Buffer) => emit(decoder.write(buf)))
  child.stderr?.on('data', (buf: Buffer) => emit(decoder.write(buf)))

  const exited = waitForExit(child, startedAt, cwdFile).finally(() => emit(decoder.end()))
  let killing: Promise<void> | undefined
  return {
    pid: child.pid,
    startedAt,
    onOutput(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    exited,
    kill(graceMs = KILL_GRACE_MS) {
      killing ??= (async () => {
        if (child.pid !== undefined) await killGroup(child.pid, graceMs)
        await exited.catch(() => undefined)
      })()
      return killing
    },
  }
}

async function waitForExit(child: ChildProcess, startedAt: number, cwdFile: string): Promise<ShellExit> {
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code, sig) => resolve([code, sig]))
  })
  const durationMs = Date.now() - startedAt
  const drained = await Promise.race([closed.then(() => true), delay(DRAIN_GRACE_MS).then(() => false)])
  if (!drained && child.pid !== undefined) {
    await killGroup(child.pid, KILL_GRACE_MS)
    child.stdout?.destroy()
    child.stderr?.destroy()
  }
  const cwd = await readFile(cwdFile, 'utf8').then(
    (text) => text.trim() || undefined,
    () => undefined,
  )
  await unlink(cwdFile).catch(() => undefined)
  return { exitCode, signal, cwd, durationMs, killedLeftovers: !drained }
}

function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal)
    return true
  } catch {
    return false
  }
}

/** SIGTERM the group, then SIGKILL whatever is left after `graceMs`. */
async function killGroup(pid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pid, 'SIGTERM')) return
  const deadline = Date.now() + graceMs
  while (Date.now() < deadline) {
    await delay(20)
    if (!signalGroup(pid, 0)) return
  }
  signalGroup(pid, 'SIGKILL')
}
