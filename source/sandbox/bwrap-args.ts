import { relative, sep } from 'node:path'
import { type Fence, isInside } from './fence.js'

/**
 * bubblewrap's arguments for one command (Linux). Pure: the fence is planned beforehand.
 *
 * The mount order matters, each mount shadows what the earlier ones put at its path:
 *  1. the whole file system read-only, a minimal /dev, a /proc of the new PID namespace;
 *  2. private, empty temp dirs (/tmp, $TMPDIR) — nothing there survives the command;
 *  3. the part of a temp dir that leads to a writable root, read-only (else `touch ../x` from a workspace
 *     under /tmp would "succeed" into the private /tmp and be lost without an error), and the part that
 *     holds a directory of the command's PATH (a tool installed under /tmp must still run);
 *  4. the writable roots and files, bound read-write;
 *  5. the protected metadata inside them, read-only again, and missing protected paths reserved;
 *  6. the user's secret stores, hidden (an empty read-only directory, or /dev/null for a file).
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
}

export function buildBwrapArgs(plan: BwrapPlan, command: readonly string[]): string[] {
  const { fence } = plan
  const args: string[] = [
    ...(plan.infoFd === undefined ? [] : ['--info-fd', String(plan.infoFd)]),
    // The sandbox dies with agent-tui, whatever way agent-tui ends.
    '--die-with-parent',
    // Run as root, bubblewrap would otherwise keep every capability inside: a `mount -o remount,rw`
    // would undo the read-only binds.
    '--cap-drop',
    'ALL',
    // Its own PID namespace: when the command's shell exits, everything it left behind is killed.
    '--unshare-pid',
    ...(plan.network ? [] : ['--unshare-net']),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
  ]
  for (const dir of plan.privateTmp) args.push('--tmpfs', dir)
  for (const dir of exposedTmpAncestors(plan)) args.push('--ro-bind', dir, dir)
  for (const root of fence.writable) args.push('--bind', root, root)
  for (const file of plan.files ?? []) args.push('--bind', file, file)
  for (const path of fence.readOnly) args.push('--ro-bind', path, path)
  for (const path of fence.reserved) args.push('--tmpfs', path, '--remount-ro', path)
  // Last, so a secret store inside a writable root (a workspace that is the home directory) is hidden too.
  for (const { path, kind } of fence.hidden ?? []) {
    if (kind === 'dir') args.push('--tmpfs', path, '--remount-ro', path)
    else args.push('--ro-bind', '/dev/null', path)
  }
  args.push('--chdir', plan.cwd, '--', ...command)
  return args
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
