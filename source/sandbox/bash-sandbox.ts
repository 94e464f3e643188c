import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmdirSync, statSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { resolve } from 'node:path'
import type { SandboxView } from '../permissions/sandbox-fence.js'
import { PROJECT_START_UP } from '../permissions/start-up-files.js'
import { buildBwrapArgs } from './bwrap-args.js'
import { isInside, NESTED_NAMES, planFence, realOrSelf, replaceableEntries, secretStores } from './fence.js'
import { HOST_IPC_ENV } from './host-ipc-env.js'
import { locateSandboxTool, type SandboxTool, unavailableNotice } from './locate.js'
import { createNestedFinder } from './nested-protected.js'
import { buildSeatbeltArgs } from './seatbelt-profile.js'
import { seccompFilterFor } from './seccomp-filter.js'
import { planStartUp } from './start-up-fence.js'
import {
  createInputFile,
  inheritedDescriptors,
  type SandboxFds,
  type StdioEntry,
  sandboxStdio,
} from './spawn-fds.js'

/** A command as it would be spawned without a sandbox. */
export interface SpawnSpec {
  file: string
  args: readonly string[]
  cwd: string
  /** Files outside the writable roots the command must be able to write (bound read-write). */
  files?: readonly string[]
  /**
   * A descriptor the caller can open as a pipe if the wrapped spawn says it uses it: bubblewrap writes
   * `{"child-pid": N}` there, the host pid of the process whose end is the end of everything in it.
   */
  infoFd?: number
}

/** The same command, to be spawned inside the sandbox. */
export interface WrappedSpawn {
  file: string
  args: string[]
  /** Set when the sandbox program reports on `SpawnSpec.infoFd`: open that descriptor as a pipe. */
  infoFd?: number
  /**
   * The spawn's stdio, from the caller's own (`base`: 0-2, and `infoFd` when used): adds the
   * descriptor the sandbox program reads its seccomp filter from, and /dev/null over descriptors
   * agent-tui inherited open (they would reach the command, a socket among them). Spawned without it,
   * bubblewrap refuses to start.
   */
  stdio(base: readonly StdioEntry[]): StdioEntry[]
  /** Call right after spawning with `stdio(…)`: closes agent-tui's copy of the filter's descriptor. */
  started(): void
  /** Call once the spawned process has exited (or failed to start); calling it again does nothing. */
  done(): void
}

/** Turns a spawn into a sandboxed one. */
export interface CommandSandbox {
  wrap(spec: SpawnSpec): WrappedSpawn
}

export type SandboxStatus =
  | {
      kind: 'on'
      /** The sandbox program's absolute path. */
      program: string
      network: boolean
      /** What a sandboxed command may write (besides the temp dirs), as the permission policy sees it. */
      view: SandboxView
      sandbox: CommandSandbox
    }
  | { kind: 'unavailable'; notice: string }

/** The session's Bash sandbox: found and tried once, then used for every command. */
export interface BashSandbox {
  readonly network: boolean
  /** Finds the sandbox program and starts one trivial sandboxed command; later calls share the answer. */
  status(): Promise<SandboxStatus>
  /** The answer, once `status()` has settled. */
  current(): SandboxStatus | undefined
}

export interface BashSandboxOptions {
  network: boolean
  /** Real paths of the workspace and the added directories: writable, their configuration (fence.ts PROTECTED_NAMES) read-only. */
  projectRoots: readonly string[]
  /** The session's outputs dir: writable (created when the first command starts). */
  scratchRoots: readonly string[]
  /** agent-tui's own dirs (settings, state): hidden like the home's secret stores, the scratch roots inside shown again. */
  ownSecrets?: readonly string[]
  platform?: NodeJS.Platform
  /** The CPU architecture (Node's names): the seccomp filter exists for x64 and arm64 only. */
  arch?: string
  env?: Readonly<Record<string, string | undefined>>
  /** Called once, when `status()` first settles. */
  onStatus?: (status: SandboxStatus) => void
  probeTimeoutMs?: number
}

const PROBE_TIMEOUT_MS = 10_000

export function createBashSandbox(opts: BashSandboxOptions): BashSandbox {
  const platform = opts.platform ?? process.platform
  const env = opts.env ?? process.env
  let settled: SandboxStatus | undefined
  let pending: Promise<SandboxStatus> | undefined

  const probe = async (): Promise<SandboxStatus> => {
    const tool = locateSandboxTool(platform, env)
    if (tool.kind === 'missing') return { kind: 'unavailable', notice: unavailableNotice(tool) }
    const arch = opts.arch ?? process.arch
    const filter = tool.kind === 'bwrap' ? seccompFilterFor(arch) : undefined
    // Without the filter a sandboxed command could reach any host daemon's Unix socket: no sandbox.
    if (tool.kind === 'bwrap' && filter === undefined)
      return { kind: 'unavailable', notice: unavailableNotice({ kind: 'no-filter', arch }) }
    const sandbox = createCommandSandbox(tool, opts, env, filter)
    const failure = await tryOnce(
      sandbox,
      opts.projectRoots[0] ?? '/',
      opts.probeTimeoutMs ?? PROBE_TIMEOUT_MS,
    )
    if (failure !== undefined) {
      return {
        kind: 'unavailable',
        notice: unavailableNotice({ kind: 'failed', program: tool.path, detail: failure }),
      }
    }
    const writableRoots = bothSpellings([...opts.projectRoots, ...opts.scratchRoots])
    const projectRoots = bothSpellings(opts.projectRoots)
    const startUpRoots = {
      home: env.HOME || homedir(),
      env,
      projectRoots: opts.projectRoots.map(realOrSelf),
      writable: [...opts.projectRoots, ...opts.scratchRoots].map(realOrSelf),
    }
    return {
      kind: 'on',
      program: tool.path,
      network: opts.network,
      // Looked at for every command: a `.git` can become a symlink during the session.
      get view(): SandboxView {
        const later = planStartUp(startUpRoots)
        const replaceable = [...replaceableEntries(projectRoots), ...later.replaceable]
        const leaks = [...later.leaks]
        // bubblewrap could keep a missing file from being created only by creating it first (start-up-fence.ts).
        if (tool.kind === 'bwrap' && leaks.length === 0 && later.reservedFiles.length > 0)
          leaks.push(
            `${later.reservedFiles.join(', ')} could be created by a command, and runs later outside it`,
          )
        return {
          writableRoots,
          projectRoots,
          ...(replaceable.length > 0 ? { replaceable } : {}),
          ...(leaks.length > 0 ? { leaks } : {}),
        }
      },
      sandbox,
    }
  }

  return {
    network: opts.network,
    status() {
      pending ??= probe().then((status) => {
        settled = status
        opts.onStatus?.(status)
        return status
      })
      return pending
    },
    current: () => settled,
  }
}

/**
 * The wrapper for a found program. Each command gets a fence planned from the file system as it is
 * when the command starts (a `.git` created since is protected too).
 */
function createCommandSandbox(
  tool: Extract<SandboxTool, { kind: 'bwrap' | 'seatbelt' }>,
  opts: BashSandboxOptions,
  env: Readonly<Record<string, string | undefined>>,
  filter: Uint8Array | undefined,
): CommandSandbox {
  const privateTmp = privateTempDirs(env)
  const pathDirs = (env.PATH ?? '')
    .split(':')
    .filter((dir) => dir.startsWith('/') && existsSync(dir))
    .map(realOrSelf)
  const histFile = env.HISTFILE?.startsWith('/') ? [env.HISTFILE] : []
  const hidden = secretStores(env.HOME || homedir(), [...(opts.ownSecrets ?? []), ...histFile])
  // Node opens all of its own descriptors close-on-exec; one without is one agent-tui was started
  // with, there from the start: looked for once.
  const covered = inheritedDescriptors()
  const devNull = covered.length > 0 ? openSync('/dev/null', 'r') : undefined
  const filterFile = filter === undefined ? undefined : createInputFile(filter)
  const tempDirs = [realOrSelf('/tmp'), realOrSelf(tmpdir())].filter((d, i, all) => all.indexOf(d) === i)
  // Remembers the directories it read: each plan re-reads only those that changed since. A nested
  // project's .vscode/ and .idea/ too: an IDE runs them when that folder is opened.
  const nested = createNestedFinder({ names: [...NESTED_NAMES, ...PROJECT_START_UP.keys()] })
  const projectRoots = opts.projectRoots.map(realOrSelf)
  // Off the first command's path: the first walk reads every folder, later ones only stat them.
  void nested.refresh(projectRoots)
  let scratchReady = false
  let running = 0
  // Mount points bubblewrap created on the host for reserved paths: removed once no sandbox runs.
  const placeholders = new Set<string>()
  const removePlaceholders = (): void => {
    for (const path of placeholders) removeIfEmptyDir(path)
    placeholders.clear()
  }
  return {
    wrap(spec) {
      if (!scratchReady) {
        // bubblewrap binds only what exists; the outputs dir is made on first use otherwise.
        for (const dir of opts.scratchRoots) mkdirSync(dir, { recursive: true })
        scratchReady = true
      }
      // Planned from the file system as it is now: the walk stats the folders it has read before
      // and reads only those that changed (the probe's warm-up walk read them all).
      const found = nested.find(projectRoots)
      const fence = planFence({
        projectRoots: opts.projectRoots,
        scratchRoots: opts.scratchRoots,
        hidden,
        nested: found.paths,
        startUp: { home: env.HOME || homedir(), env },
      })
      const command = [spec.file, ...spec.args]
      const files = spec.files ?? []
      const fds: SandboxFds = { covered, ...(devNull === undefined ? {} : { devNull }) }
      // The first descriptor after the caller's.
      if (filterFile) fds.input = { at: (spec.infoFd ?? 2) + 1, from: filterFile.open() }
      const closeInput = () => {
        if (fds.input === undefined) return
        closeSync(fds.input.from)
        fds.input = undefined
      }
      let args: string[]
      if (tool.kind === 'bwrap') {
        for (const path of fence.reserved) placeholders.add(path)
        args = buildBwrapArgs(
          {
            fence,
            network: opts.network,
            cwd: spec.cwd,
            files,
            privateTmp,
            pathDirs,
            ...(fds.input === undefined ? {} : { seccompFd: fds.input.at }),
            unsetEnv: HOST_IPC_ENV,
            ...(spec.infoFd === undefined ? {} : { infoFd: spec.infoFd }),
          },
          command,
        )
      } else {
        args = buildSeatbeltArgs(
          { fence, network: opts.network, tempDirs, files: files.map(realOrSelf), unsetEnv: HOST_IPC_ENV },
          command,
        )
      }
      running++
      let finished = false
      return {
        file: tool.path,
        args,
        ...(tool.kind === 'bwrap' && spec.infoFd !== undefined ? { infoFd: spec.infoFd } : {}),
        stdio: (base) => sandboxStdio(base, fds),
        started: closeInput,
        done() {
          closeInput()
          if (finished) return
          finished = true
          running--
          if (running === 0) removePlaceholders()
        },
      }
    },
  }
}

/** Each path as given and resolved: the policy may meet either. */
function bothSpellings(paths: readonly string[]): string[] {
  return [...new Set(paths.flatMap((path) => [resolve(path), realOrSelf(path)]))]
}

/**
 * Linux: /tmp, $TMPDIR when it is elsewhere, and the user's runtime dir, each replaced by an empty
 * private tmpfs. The runtime dir holds the session's sockets (bus, Wayland, agents, Docker rootless)
 * and credentials (podman's auth.json); programs that make their own there still can.
 */
function privateTempDirs(env: Readonly<Record<string, string | undefined>>): string[] {
  const dirs = ['/tmp']
  const add = (dir: string) => {
    if (dir !== '/' && !isInside('/tmp', dir) && !dirs.includes(dir)) dirs.push(dir)
  }
  if (env.TMPDIR) add(realOrSelf(env.TMPDIR))
  const uid = process.getuid?.()
  for (const runtime of [env.XDG_RUNTIME_DIR, uid === undefined ? undefined : `/run/user/${uid}`]) {
    if (runtime?.startsWith('/') && isDir(runtime)) add(realOrSelf(runtime))
  }
  return dirs
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

function removeIfEmptyDir(path: string): void {
  try {
    if (readdirSync(path).length === 0) rmdirSync(path)
  } catch {
    // Gone already, not a directory, or still a mount point somewhere: leave it.
  }
}

/** Runs `/bin/sh -c 'exit 0'` in the sandbox; undefined when it worked, else what went wrong. */
function tryOnce(sandbox: CommandSandbox, cwd: string, timeoutMs: number): Promise<string | undefined> {
  const wrapped = sandbox.wrap({ file: '/bin/sh', args: ['-c', 'exit 0'], cwd })
  return new Promise((resolve) => {
    let stderr = ''
    let timedOut = false
    const child = spawn(wrapped.file, wrapped.args, {
      cwd,
      stdio: wrapped.stdio(['ignore', 'ignore', 'pipe']),
    })
    wrapped.started()
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, timeoutMs)
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8')
    })
    const finish = (result: string | undefined) => {
      clearTimeout(timer)
      wrapped.done()
      resolve(result)
    }
    child.once('error', (error) => finish(error.message))
    child.once('close', (code, signal) => {
      if (code === 0) return finish(undefined)
      if (timedOut) return finish(`a trial command did not finish in ${timeoutMs / 1000} s`)
      const said = stderr.trim().split('\n')[0]
      finish(said || (signal ? `killed by ${signal}` : `exit code ${code}`))
    })
  })
}
