import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/**
 * The checked-out branch from .git/HEAD (following a worktree's `gitdir:` file), read once at start-up.
 * A detached HEAD shows its short hash; no repository gives undefined. The files are the repository's:
 * each is read only if it is a small regular file (a FIFO would block the start, a link to a secret
 * would put its first bytes into the system prompt), and only a branch name or a hash comes out.
 */
export function readGitBranch(cwd: string): string | undefined {
  let dir = resolve(cwd)
  for (;;) {
    const head = headOf(join(dir, '.git'))
    if (head !== null) return branchOf(head)
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

/** HEAD's text for a `.git` directory or `gitdir:` file; null when there is none to read. */
function headOf(dotGit: string): string | null {
  let info: ReturnType<typeof statSync>
  try {
    info = statSync(dotGit)
  } catch {
    return null
  }
  if (info.isDirectory()) return smallFile(join(dotGit, 'HEAD'))
  const link = smallFile(dotGit)
  const gitDir = link === null ? undefined : /^gitdir:\s*(.+)$/m.exec(link)?.[1]?.trim()
  return gitDir ? smallFile(join(resolve(dirname(dotGit), gitDir), 'HEAD')) : null
}

const MAX_BYTES = 4096
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0)

/** The text of a regular file of at most 4 KB (links followed), else null. */
function smallFile(path: string): string | null {
  let fd: number
  try {
    // Judged before it is opened: opening a device can do something.
    if (!statSync(path).isFile()) return null
    fd = openSync(path, FLAGS)
  } catch {
    return null
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile() || info.size > MAX_BYTES) return null
    const buffer = Buffer.alloc(MAX_BYTES)
    return buffer.subarray(0, readSync(fd, buffer, 0, MAX_BYTES, 0)).toString('utf8')
  } catch {
    return null
  } finally {
    closeSync(fd)
  }
}

/** `ref: refs/heads/main` → `main`; a hash → its first 7 digits; anything else is not shown. */
export function branchOf(head: string): string | undefined {
  const text = head.trim()
  const ref = /^ref: refs\/heads\/([^\s\p{C}]{1,200})$/u.exec(text)
  if (ref) return ref[1]
  return /^[0-9a-f]{7,64}$/.test(text) ? text.slice(0, 7) : undefined
}
