import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { unlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { readOnlyGitEnv, withGitConfig } from '../permissions/git-read-only.js'
import type { CommandSandbox, WrappedSpawn } from '../sandbox/bash-sandbox.js'
import type { StdioEntry } from '../sandbox/spawn-fds.js'
import {
  groupAlive,
  groupMembers,
  isProcessAlive,
  type OwnedGroup,
  ownedGroup,
  pollUntil,
  signalGroup,
} from '../tasks/process-group.js'
import type { ProcessGroupTracker } from '../tasks/process-groups.js'

export interface ShellExit {
  /** null when the shell was killed by a signal. */
  exitCode: number | null
  signal: NodeJS.Signals | null
  /** The shell's physical working directory when it exited (`pwd -P`); undefined when it could not say. */
  cwd: string | undefined
  durationMs: number
  /** The command left processes running in its group (e.g. `server &`); they were killed when it ended. */
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
  /**
   * Settles once the shell has exited and its output is drained, or with 'handed-over' as soon as
   * `handOver` succeeded; rejects only if bash could not start.
   */
  readonly exited: Promise<ShellExit | 'handed-over'>
  /** SIGTERM to the whole group, SIGKILL after `graceMs` if any member survives. Resolves once the shell exited. */
  kill(graceMs?: number): Promise<void>
  /**
   * Gives the running process to `take` (e.g. a task manager's adopt), which must start reading its
   * pipes before it returns. Our output listeners are gone and the pipes paused before `take` runs,
   * so no output is lost or read twice; a character split across the hand-over goes back into the
   * pipe. If `take` throws, the process stays ours (output keeps flowing to our listeners) and the
   * error propagates. Returns undefined without calling `take` when the shell has already exited, is
   * being killed or was handed over.
   */
  handOver<T>(take: (child: ChildProcess) => T): T | undefined
}

export interface ShellOptions {
  command: string
  cwd: string
  env?: NodeJS.ProcessEnv
  /** The classifier judged it read-only: git runs with the settings that execute on a read fixed. */
  readOnly?: boolean
  /**
   * Records the command's process group from its start until nothing of it is left (the app's owner of
   * live groups, which kills them on every exit path and records them for reaping after a crash).
   */
  tracker?: ProcessGroupTracker
  /** Runs the command inside the OS sandbox (bubblewrap, sandbox-exec) instead of directly. */
  sandbox?: CommandSandbox
  /**
   * bash by absolute path, found outside the workspace (source/util/host-programs.ts), for a command run
   * outside the sandbox: a `bash` planted in a PATH folder inside the workspace must never be it.
   */
  shell?: string
}

// The descriptor bubblewrap reports its sandbox's init on (`--info-fd`).
const INFO_FD = 3

// After the shell exits, processes it started in the background may still hold the output pipe.
const DRAIN_GRACE_MS = 200
const KILL_GRACE_MS = 500

// stderr joins stdout on one pipe (exact interleaving); an EXIT trap records the final directory even
// after `exit`; `eval` keeps the command's own line numbers in syntax errors and its positional
// parameters empty. The cwd file's name is written into the trap's text, never kept in a variable: the
// command could reassign a variable (`__agent_tui_cwd_file=~/.bashrc` passes as a mere assignment) and
// make the trap overwrite any file with the directory's path.
const WRAPPER =
  'exec 2>&1; trap "pwd -P >| $(printf %q "$2") 2>/dev/null" EXIT; ' +
  '__agent_tui_cmd=$1; set --; eval "$__agent_tui_cmd"'

/**
 * The environment of a command, with git told to use a bare repository only when named explicitly
 * (`safe.bareRepository=explicit`, git 2.38+, added after any GIT_CONFIG_COUNT entries already set).
 * A repository can commit a bare-looking directory (HEAD, objects/, refs/, a config naming
 * `core.fsmonitor` or a textconv program); without this, `cd it && git status` — read-only to the
 * classifier — would run that program. A command the classifier judged read-only also gets the settings
 * that make a reading git run programs fixed (permissions/git-read-only.ts).
 */
export function withGitSafety(env: NodeJS.ProcessEnv, opts: { readOnly?: boolean } = {}): NodeJS.ProcessEnv {
  const safe = withGitConfig(env, [['safe.bareRepository', 'explicit']])
  return opts.readOnly ? readOnlyGitEnv(safe) : safe
}

/**
 * Starts `command` with `bash -c` in `cwd`, detached into its own process group with stdin closed.
 * The caller decides what happens on timeout: kill it, or hand the process to a task manager.
 */
export function startShell(opts: ShellOptions): ShellProcess {
  const cwdFile = join(tmpdir(), `agent-tui-cwd-${randomBytes(8).toString('hex')}`)
  const startedAt = Date.now()
  const shellArgs = ['-c', WRAPPER, 'bash', opts.command, cwdFile]
  let spawnFile = opts.shell ?? 'bash'
  let spawnArgs = shellArgs
  let sandboxDone = (): void => {}
  let infoFd: number | undefined
  let wrapped: WrappedSpawn | undefined
  if (opts.sandbox) {
    // The sandbox binds the cwd file read-write, so it must exist before the command starts.
    writeFileSync(cwdFile, '', { flag: 'wx', mode: 0o600 })
    wrapped = opts.sandbox.wrap({
      file: 'bash',
      args: shellArgs,
      cwd: opts.cwd,
      files: [cwdFile],
      infoFd: INFO_FD,
    })
    spawnFile = wrapped.file
    spawnArgs = wrapped.args
    sandboxDone = wrapped.done
    infoFd = wrapped.infoFd
  }
  // Detached: its own process group, which the sandbox program shares with everything it starts.
  let child: ChildProcess
  try {
    const stdio: StdioEntry[] =
      infoFd === INFO_FD ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe']
    child = spawn(spawnFile, spawnArgs, {
      cwd: opts.cwd,
      env: withGitSafety(opts.env ?? process.env, { readOnly: opts.readOnly === true }),
      detached: true,
      stdio: wrapped ? wrapped.stdio(stdio) : stdio,
    })
    wrapped?.started()
  } catch (error) {
    sandboxDone()
    throw error
  }
  // Read at once, before the event loop can reap the leader: every later signal goes to this group only.
  const group = child.pid === undefined ? undefined : ownedGroup(child.pid)
  let sandboxInfo = ''
  const infoPipe = infoFd === INFO_FD ? child.stdio[INFO_FD] : null
  infoPipe?.on('data', (chunk: Buffer) => {
    if (sandboxInfo.length < 4096) sandboxInfo += chunk.toString('utf8')
  })
  child.once('exit', sandboxDone)
  child.once('error', sandboxDone)
  const release =
    group !== undefined && opts.tracker
      ? opts.tracker.track({
          pid: group.pgid,
          command: opts.command,
          cwd: opts.cwd,
          startedAt,
          kind: 'foreground',
          ...(group.leaderStart !== undefined && { leaderStart: group.leaderStart }),
        })
      : () => {}
  const listeners = new Set<(chunk: string) => void>()
  const emit = (text: string): void => {
    if (text === '') return
    for (const listener of listeners) listener(text)
  }
  const pipes = [child.stdout, child.stderr].flatMap((stream) => {
    if (!stream) return []
    const decoder = createUtf8Decoder()
    const onData = (buf: Buffer): void => emit(decoder.write(buf))
    stream.on('data', onData)
    return [{ stream, decoder, onData }]
  })

  let handedOver = false
  let markHandedOver = (): void => {}
  const handedOverPromise = new Promise<'handed-over'>((resolve) => {
    markHandedOver = () => resolve('handed-over')
  })
  const sandboxInit = opts.sandbox ? () => sandboxInitPid(sandboxInfo) ?? 'unknown' : undefined
  const shellExit = waitForExit(child, group, startedAt, cwdFile, () => handedOver, sandboxInit).then(
    (exit) => {
      if (exit !== 'handed-over') {
        release()
        for (const pipe of pipes) emit(pipe.decoder.end())
      }
      return exit
    },
    (error: unknown) => {
      release()
      throw error
    },
  )
  const exited = Promise.race([shellExit, handedOverPromise])
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
      // Once handed over the process belongs to its new owner.
      if (handedOver) return Promise.resolve()
      killing ??= (async () => {
        if (group !== undefined) await killGroup(group, graceMs)
        await exited.catch(() => undefined)
      })()
      return killing
    },
    handOver<T>(take: (child: ChildProcess) => T): T | undefined {
      const running = child.pid !== undefined && child.exitCode === null && child.signalCode === null
      if (!running || handedOver || killing) return undefined
      for (const { stream, decoder, onData } of pipes) {
        stream.off('data', onData)
        // Paused, the pipe holds what arrives until the new owner resumes it.
        stream.pause()
        const split = decoder.takePending()
        if (split.length > 0) stream.unshift(split)
      }
      let taken: T
      try {
        taken = take(child)
      } catch (error) {
        for (const { stream, onData } of pipes) {
          stream.on('data', onData)
          stream.resume()
        }
        throw error
      }
      handedOver = true
      listeners.clear()
      // A no-op when the new owner tracks the group itself (tracking the same pid hands it over).
      release()
      markHandedOver()
      return taken
    },
  }
}

interface Utf8Decoder {
  write(buf: Buffer): string
  /** What is left at the end of the stream (an incomplete character decodes to U+FFFD). */
  end(): string
  /** Returns and forgets the bytes of a character not complete yet. */
  takePending(): Buffer
}

/**
 * A UTF-8 decoder for one pipe that holds back a character split across chunks. Unlike StringDecoder
 * it can give those bytes back, so a hand-over can return them to the pipe for the next reader.
 */
function createUtf8Decoder(): Utf8Decoder {
  let pending: Buffer = Buffer.alloc(0)
  return {
    write(buf) {
      const all = pending.length === 0 ? buf : Buffer.concat([pending, buf])
      const cut = all.length - incompleteTail(all)
      pending = all.subarray(cut)
      return all.toString('utf8', 0, cut)
    },
    end() {
      const rest = pending.toString('utf8')
      pending = Buffer.alloc(0)
      return rest
    },
    takePending() {
      const taken = pending
      pending = Buffer.alloc(0)
      return taken
    },
  }
}

/** How many bytes at the end of `buf` start a UTF-8 character that continues in the next chunk. */
function incompleteTail(buf: Buffer): number {
  for (let back = 1; back <= Math.min(3, buf.length); back++) {
    const byte = buf[buf.length - back] ?? 0
    // Continuation bytes (10xxxxxx): keep looking for the lead byte.
    if ((byte & 0xc0) === 0x80) continue
    const length = byte >= 0xf8 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
    return length > back ? back : 0
  }
  return 0
}

/**
 * Reads and removes the directory the EXIT trap wrote. Synchronously, two calls on a tiny file: from the
 * shell's exit to the tool's result nothing waits on the event loop, so no other work of the process (a
 * timer due meanwhile) can get in between and hold the result back.
 */
function takeCwdFile(cwdFile: string): string | undefined {
  let cwd: string | undefined
  try {
    cwd = readFileSync(cwdFile, 'utf8').trim() || undefined
  } catch {
    cwd = undefined
  }
  try {
    unlinkSync(cwdFile)
  } catch {
    // never written (bash did not start), or already gone
  }
  return cwd
}

async function waitForExit(
  child: ChildProcess,
  group: OwnedGroup | undefined,
  startedAt: number,
  cwdFile: string,
  handedOver: () => boolean,
  /** Sandboxed: the pid of the sandbox's init, once bubblewrap said it. */
  sandboxInit: (() => number | 'unknown') | undefined,
): Promise<ShellExit | 'handed-over'> {
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code, sig) => resolve([code, sig]))
  })
  // A hand-over is refused once the shell has exited, so this answer is final. The new owner handles
  // the output; only the cwd file (written by the EXIT trap just before) is still ours to remove.
  if (handedOver()) {
    await unlink(cwdFile).catch(() => undefined)
    return 'handed-over'
  }
  const durationMs = Date.now() - startedAt
  const drain = () => Promise.race([closed.then(() => true), delay(DRAIN_GRACE_MS).then(() => false)])
  let drained = await drain()
  // What the command started and left running (`cmd &`, `(cmd &)`, with or without its output) is still
  // in its process group, unless it left the group (setsid): the group dies with the command.
  // In the sandbox, its PID namespace dies with the command and takes everything else in it along; the
  // sandbox program only exits a moment before its namespace is torn down, which is not a leftover.
  let killedLeftovers = false
  if (group !== undefined && sandboxInit) await awaitTeardown(group, sandboxInit())
  else if (group !== undefined) killedLeftovers = await killLeftovers(group)
  // The killed processes may have held the pipes: read what they left in them.
  if (!drained && killedLeftovers) drained = await drain()
  if (!drained) {
    // Whatever still holds the pipes left the group; stop waiting for it.
    child.stdout?.destroy()
    child.stderr?.destroy()
  }
  const cwd = takeCwdFile(cwdFile)
  return { exitCode, signal, cwd, durationMs, killedLeftovers }
}

/** The sandbox init's pid from what bubblewrap wrote to its info descriptor; undefined if it said none. */
function sandboxInitPid(info: string): number | undefined {
  const pid = Number(/"child-pid"\s*:\s*(\d+)/.exec(info)?.[1])
  return Number.isInteger(pid) && pid > 0 ? pid : undefined
}

/**
 * Waits for a sandbox's init to finish exiting (its PID namespace, and everything in it, goes with it);
 * SIGKILLs the group after a second. Without the init's pid (macOS, or bubblewrap failed to start), the
 * group's live members are looked up once.
 */
async function awaitTeardown(group: OwnedGroup, init: number | 'unknown'): Promise<void> {
  if (!signalGroup(group, 0)) return
  const live = init === 'unknown' ? groupMembers(group.pgid) : [init]
  if (live.length === 0) return
  // Polls only these few processes (cheap), not the whole process table.
  if (await pollUntil(() => !live.some(isProcessAlive), { timeoutMs: 1000, intervalMs: 2 })) return
  signalGroup(group, 'SIGKILL')
}

/** Kills what is left of the group of a shell that has exited; resolves with whether anything was. */
async function killLeftovers(group: OwnedGroup): Promise<boolean> {
  // The cheap check first: usually nothing at all is left (zombies count here, not below).
  if (!signalGroup(group, 0)) return false
  if (groupMembers(group.pgid).length === 0) return false
  await killGroup(group, KILL_GRACE_MS)
  return true
}

/** SIGTERM the group, then SIGKILL whatever is left after `graceMs`. */
async function killGroup(group: OwnedGroup, graceMs: number): Promise<void> {
  if (!signalGroup(group, 'SIGTERM')) return
  if (await pollUntil(() => !groupAlive(group.pgid), { timeoutMs: graceMs, intervalMs: 20 })) return
  signalGroup(group, 'SIGKILL')
}
