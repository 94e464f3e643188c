import { relative, sep } from 'node:path'
import { type Fence, isInside } from './fence.js'

/**
 * bubblewrap's arguments for one command (Linux). Pure: the fence is planned beforehand.
 *
 * The mount order matters, each mount shadows what the earlier ones put at its path:
 *  1. the whole file system read-only, a minimal /dev, a /proc of the new PID namespace;
 *  2. private, empty temp dirs (/tmp, $TMPDIR, $XDG_RUNTIME_DIR) — nothing there survives the command;
 *  3. the part of a temp dir that leads to a writable root, read-only (else `touch ../x` from a workspace
 *     under /tmp would "succeed" into the private /tmp and be lost without an error), and the part that
 *     holds a directory of the command's PATH (a tool installed under /tmp must still run);
 *  4. the fence, outermost path first so the deepest rule wins: the writable roots and files bound
 *     read-write, the protected metadata inside them read-only again, missing protected paths reserved,
 *     and the hidden stores (an empty read-only directory, or /dev/null for a file). A hidden directory
 *     that holds a writable root (agent-tui's state dir holds the session's outputs) shows that root
 *     again, and a store inside a writable root (a workspace that is the home directory) is hidden.
 */
export interface BwrapPlan {
  fence: Fence
  network: boolean
  /** The command's working directory. */
  cwd: string
  /** Extra files the command must write (the shell wrapper's cwd file), bound read-write at the same path. */
  files?: readonly string[]
  /** Directories replaced by an empty private tmpfs (real paths; `/tmp` first). */
  privateTmp: readonly string[]
  /** The command's PATH directories (real paths): those inside a private temp dir stay visible, read-only. */
  pathDirs?: readonly string[]
  /** A descriptor bubblewrap writes `{"child-pid": N}` to: the sandbox's init, to wait for its end. */
  infoFd?: number
  /** A descriptor bubblewrap reads the seccomp program from (see seccomp-filter.ts). */
  seccompFd?: number
  /** Environment variables removed inside (see host-ipc-env.ts). */
  unsetEnv?: readonly string[]
}

export function buildBwrapArgs(plan: BwrapPlan, command: readonly string[]): string[] {
  const args: string[] = [
    ...(plan.infoFd === undefined ? [] : ['--info-fd', String(plan.infoFd)]),
    ...(plan.seccompFd === undefined ? [] : ['--seccomp', String(plan.seccompFd)]),
    // The sandbox dies with agent-tui, whatever way agent-tui ends.
    '--die-with-parent',
    // Run as root, bubblewrap would otherwise keep every capability inside: a `mount -o remount,rw`
    // would undo the read-only binds.
    '--cap-drop',
    'ALL',
    // Its own PID namespace: when the command's shell exits, everything it left behind is killed.
    '--unshare-pid',
    // Its own System V IPC and POSIX message queues: no host process's shared memory or queue.
    '--unshare-ipc',
    ...(plan.network ? [] : ['--unshare-net']),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
  ]
  // Outermost first: a private dir inside the way to a workspace (a runtime dir under /tmp) stays private.
  const tmpMounts = [
    ...plan.privateTmp.map((dir) => ({ path: dir, args: ['--tmpfs', dir] })),
    ...exposedTmpAncestors(plan).map((dir) => ({ path: dir, args: ['--ro-bind', dir, dir] })),
  ]
  for (const mount of outermostFirst(tmpMounts)) args.push(...mount.args)
  args.push(...fenceMounts(plan))
  for (const name of plan.unsetEnv ?? []) args.push('--unsetenv', name)
  args.push('--chdir', plan.cwd, '--', ...command)
  return args
}

interface Mount {
  path: string
  args: string[]
  /** Made read-only once everything inside it is mounted (bubblewrap creates mount points in it). */
  seal?: boolean
}

/**
 * The fence's mounts, outermost first (a stable sort: at the same path the later kind wins, so a
 * writable root beats a store it equals). `--remount-ro` does not reach mounts inside, so a sealed
 * directory keeps a writable root shown inside it writable.
 */
function fenceMounts(plan: BwrapPlan): string[] {
  const { fence } = plan
  const mounts: Mount[] = []
  for (const { path, kind } of fence.hidden ?? []) {
    mounts.push(
      kind === 'dir'
        ? { path, args: ['--tmpfs', path], seal: true }
        : { path, args: ['--ro-bind', '/dev/null', path] },
    )
  }
  for (const root of fence.writable) mounts.push({ path: root, args: ['--bind', root, root] })
  for (const file of plan.files ?? []) mounts.push({ path: file, args: ['--bind', file, file] })
  for (const path of fence.readOnly) mounts.push({ path, args: ['--ro-bind', path, path] })
  for (const path of fence.reserved) mounts.push({ path, args: ['--tmpfs', path], seal: true })
  const ordered = outermostFirst(mounts)
  // Each seal goes right after the last mount inside its directory; none for a path mounted over again.
  const sealsAfter = new Map<number, string[]>()
  ordered.forEach((mount, i) => {
    if (!mount.seal) return
    const later = ordered.slice(i + 1)
    if (later.some((m) => m.path === mount.path)) return
    let last = i
    later.forEach((m, j) => {
      if (isInside(m.path, mount.path)) last = i + 1 + j
    })
    sealsAfter.set(last, [...(sealsAfter.get(last) ?? []), mount.path])
  })
  return ordered.flatMap((mount, i) => [
    ...mount.args,
    ...(sealsAfter.get(i) ?? []).flatMap((path) => ['--remount-ro', path]),
  ])
}

/** By depth, keeping the given order at equal depth (Array.prototype.sort is stable). */
function outermostFirst<T extends { path: string }>(mounts: readonly T[]): T[] {
  const depth = (path: string) => path.split(sep).filter(Boolean).length
  return [...mounts].sort((a, b) => depth(a.path) - depth(b.path))
}

/**
 * For each writable root inside a private temp dir (not the dir itself), and each PATH directory there:
 * the temp dir's child that holds it, so the way there is the host's, read-only, instead of empty
 * private directories.
 */
function exposedTmpAncestors(plan: BwrapPlan): string[] {
  const dirs: string[] = []
  for (const tmp of plan.privateTmp) {
    const topOf = (path: string): string | undefined => {
      if (path === tmp || !isInside(path, tmp)) return undefined
      const first = relative(tmp, path).split(sep)[0]
      if (!first) return undefined
      return tmp.endsWith(sep) ? `${tmp}${first}` : `${tmp}${sep}${first}`
    }
    for (const path of plan.fence.writable) {
      const top = topOf(path)
      if (top && top !== path && !dirs.includes(top)) dirs.push(top)
    }
    // A PATH directory's programs are often links into the tree beside it (node_modules/.bin): the
    // whole top-level entry that holds it is shown, as for a workspace.
    for (const path of plan.pathDirs ?? []) {
      const top = topOf(path)
      if (top && !dirs.includes(top) && !plan.fence.writable.includes(top)) dirs.push(top)
    }
  }
  return dirs
}
