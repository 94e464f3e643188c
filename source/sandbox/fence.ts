import { accessSync, constants, existsSync, lstatSync, readFileSync, realpathSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { planStartUp } from './start-up-fence.js'

/**
 * What a sandboxed command may write: its writable roots, minus the metadata inside them that runs
 * code or grants permissions later, outside the sandbox (`.git/` — hooks, `core.fsmonitor` — and
 * `.agent-tui/` — settings, rules). Computed from the file system just before each command starts.
 */
export interface Fence {
  /** Real paths writable inside the sandbox (the private /tmp aside). */
  writable: string[]
  /** Existing paths inside writable roots that stay read-only. */
  readOnly: string[]
  /**
   * Missing protected paths inside writable roots. The sandbox must stop them from being created (a
   * `git init` in a folder without `.git` would plant hooks that run outside it): bubblewrap mounts an
   * empty read-only directory there, which it has to create on the host first (see `placeholders`).
   */
  reserved: string[]
  /**
   * Missing files that run code at a later start, inside writable roots (start-up-fence.ts): Seatbelt
   * keeps them from being created; bubblewrap cannot without creating them first, so there the sandbox
   * does not hold while one is missing.
   */
  reservedFiles?: string[]
  /**
   * Secret stores (`~/.ssh`, `~/.netrc`, agent-tui's own keys…) made unreadable inside the sandbox. Its
   * commands run unasked in auto mode, and any program could print them; the read boundary that asks
   * before `cat ~/.ssh/id_rsa` cannot see into `python -c`. Real paths; absent when none exists.
   */
  hidden?: HiddenPath[]
}

export interface HiddenPath {
  path: string
  kind: 'dir' | 'file'
}

export interface FenceRoots {
  /** The workspace and added directories: their `.git` and `.agent-tui` are protected. */
  projectRoots: readonly string[]
  /** The session's own scratch directories (outputs): writable as they are. */
  scratchRoots: readonly string[]
  /** Secret stores to hide, where they exist (see `secretStores`). */
  hidden?: readonly string[]
  /** Protected names found below the top of the project roots (see nested-protected.ts); missing ones are skipped. */
  nested?: readonly string[]
  /** The home and environment the files that run code at a later start are found from (start-up-fence.ts). */
  startUp?: { home: string; env: Readonly<Record<string, string | undefined>> }
}

/**
 * Names inside a project root that stay read-only, and are reserved when missing (a sandboxed command
 * cannot create them): `.git/` runs hooks, `.agent-tui/` and `.claude/` hold settings and hooks, and
 * `.mcp.json` names programs agent-tui starts, outside any sandbox, at the next start in a trusted folder.
 */
export const RESERVED_NAMES = ['.git', '.agent-tui', '.mcp.json', '.claude'] as const

/**
 * Instruction files every session reads: read-only where they exist. A missing one is not reserved (an
 * empty directory named `AGENTS.md` would show in every listing while a command runs); a new one can
 * only steer the next session's model, never its permissions.
 */
export const INSTRUCTION_NAMES = ['AGENTS.md', 'CLAUDE.md', 'CLAUDE.local.md'] as const

/** Everything read-only at the top of a root. */
export const PROTECTED_NAMES: readonly string[] = [...RESERVED_NAMES, ...INSTRUCTION_NAMES]

/**
 * What is bound read-only below the top of a root where it exists (a session started in a subfolder
 * reads that folder's own; git runs a nested repository's hooks). New ones there cannot be stopped by a
 * mount: project trust catches new configuration (source/config/project-trust.ts). Instruction files
 * are left out below the top: a monorepo has one in every package, and each read-only bind costs
 * bubblewrap 0.1-1 ms per command (25 of them added 16-30 ms, measured); a Write or named shell write
 * of one still asks (source/permissions/protected-paths.ts).
 */
export const NESTED_NAMES: readonly string[] = RESERVED_NAMES

/** Enough for any real repository; a `.gitmodules` listing more is not worth a slower start of every command. */
const MAX_SUBMODULES = 200

export function planFence(roots: FenceRoots): Fence {
  const projects = unique(roots.projectRoots.map(realOrSelf))
  const writable = unique([...projects, ...roots.scratchRoots.map(realOrSelf)])
  const readOnly: string[] = []
  const reserved: string[] = []
  const inWritable = (path: string) => writable.some((root) => isInside(path, root))
  const protect = (path: string) => {
    if (inWritable(path) && !readOnly.includes(path)) readOnly.push(path)
  }
  for (const root of projects) {
    for (const name of PROTECTED_NAMES) {
      const path = join(root, name)
      const kind = kindOf(path)
      if (kind === 'missing') {
        // Only a folder we could write to needs reserving; bubblewrap could not create the mount point otherwise.
        const reserve = (RESERVED_NAMES as readonly string[]).includes(name)
        if (reserve && isWritableDir(root) && !reserved.includes(path)) reserved.push(path)
        continue
      }
      protectEntry(path, kind, protect)
    }
    for (const sub of submodulePaths(root)) {
      const gitPath = join(root, sub, '.git')
      const kind = kindOf(gitPath)
      if (kind !== 'missing') protectEntry(gitPath, kind, protect)
    }
  }
  for (const path of roots.nested ?? []) {
    const kind = kindOf(path)
    if (kind !== 'missing') protectEntry(path, kind, protect)
  }
  const later = roots.startUp
    ? planStartUp({ ...roots.startUp, projectRoots: projects, writable })
    : undefined
  for (const path of later?.readOnly ?? []) protect(path)
  for (const path of later?.reserved ?? []) if (!reserved.includes(path)) reserved.push(path)
  const reservedFiles = later?.reservedFiles ?? []
  const hidden = hiddenPaths(roots.hidden ?? [], writable)
  return {
    writable,
    readOnly,
    reserved,
    ...(reservedFiles.length > 0 ? { reservedFiles } : {}),
    ...(hidden.length > 0 ? { hidden } : {}),
  }
}

/**
 * The candidates that exist, by real path. One that is a writable root stays as it is (the user works
 * there); one that holds a writable root is hidden around it (bwrap-args.ts shows the root again
 * inside); one inside a hidden directory, with no writable root between, is hidden already.
 */
function hiddenPaths(candidates: readonly string[], writable: readonly string[]): HiddenPath[] {
  const found: HiddenPath[] = []
  for (const candidate of candidates) {
    // Most candidates do not exist: asking first is far cheaper than the error realpath throws.
    const path = existsSync(candidate) ? realOrUndefined(candidate) : undefined
    if (path === undefined || writable.includes(path)) continue
    const kind = kindOf(path)
    if ((kind === 'dir' || kind === 'file') && !found.some((h) => h.path === path)) found.push({ path, kind })
  }
  const coveredBy = (inner: HiddenPath, outer: HiddenPath) =>
    outer.kind === 'dir' &&
    outer.path !== inner.path &&
    isInside(inner.path, outer.path) &&
    !writable.some((root) => isInside(root, outer.path) && isInside(inner.path, root))
  return found.filter((h) => !found.some((outer) => coveredBy(h, outer)))
}

/**
 * Where secrets live in a home directory: the stores protected-paths.ts treats as secrets, tool and
 * cloud credentials, other agents' sign-ins and transcripts, browser profiles (cookies, saved
 * passwords), display cookies, and shell and REPL histories (typed passwords, tokens in command lines).
 * `extra` adds agent-tui's own dirs (settings, state: every session's log, the trust store, sign-ins).
 */
export function secretStores(home: string, extra: readonly string[] = []): string[] {
  return [...SECRET_STORES.map((p) => join(home, p)), ...HISTORIES.map((p) => join(home, p)), ...extra]
}

const SECRET_STORES = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.azure',
  '.password-store',
  '.kube',
  '.oci',
  '.config/gh',
  '.config/glab-cli',
  '.config/hub',
  '.config/gcloud',
  '.config/doctl',
  '.config/op',
  '.config/rclone',
  '.config/containers/auth.json',
  '.config/git/credentials',
  '.config/github-copilot',
  '.docker/config.json',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.pgpass',
  '.vault-token',
  '.my.cnf',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.gradle/gradle.properties',
  '.m2/settings.xml',
  '.terraform.d/credentials.tfrc.json',
  '.fly',
  '.local/share/keyrings',
  '.Xauthority',
  '.ICEauthority',
  '.mozilla',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.claude.json',
  '.claude/.credentials.json',
  '.claude/projects',
  '.claude/history.jsonl',
  '.codex/auth.json',
  '.codex/sessions',
  '.codex/history.jsonl',
  '.gemini/oauth_creds.json',
]

const HISTORIES = [
  '.bash_history',
  '.zsh_history',
  '.zhistory',
  '.histfile',
  '.sh_history',
  '.local/share/fish/fish_history',
  '.python_history',
  '.node_repl_history',
  '.ts_node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.rediscli_history',
  '.irb_history',
  '.lesshst',
  '.viminfo',
  '.local/state/nvim/shada',
  '.local/share/nvim/shada',
]

/**
 * The `.git` and `.agent-tui` of the roots that are symlinks. Their targets stay read-only, but the
 * links sit in writable folders and any sandboxed program can replace one with a directory of its own
 * (a `.git` whose config runs outside the sandbox): with any, the sandbox does not hold (see
 * `SandboxView.replaceable`). `roots` are given in every spelling the policy may meet.
 */
export function replaceableEntries(roots: readonly string[]): string[] {
  const found: string[] = []
  for (const root of roots) {
    // A replaced instruction file only steers the model; a replaced `.git` or settings dir runs code.
    for (const name of RESERVED_NAMES) {
      const path = join(root, name)
      if (kindOf(path) === 'symlink' && !found.includes(path)) found.push(path)
    }
  }
  return found
}

type EntryKind = 'missing' | 'dir' | 'file' | 'symlink' | 'other'

/**
 * A `.git` file (worktree, submodule) is bound read-only, and so is the git dir it names when that
 * lies inside a writable root. A symlink is followed: its target stays read-only (the link itself sits
 * in a writable folder and could be replaced, so the policy stops trusting the sandbox: see
 * `replaceableEntries`).
 */
function protectEntry(path: string, kind: EntryKind, protect: (path: string) => void): void {
  if (kind === 'symlink') {
    const target = realOrUndefined(path)
    if (target !== undefined) protect(target)
    return
  }
  protect(path)
  if (kind !== 'file' || !path.endsWith(`${sep}.git`)) return
  const gitDir = gitDirOf(path)
  if (gitDir === undefined) return
  protect(gitDir)
  // A linked worktree's git dir points at the main repository's (`commondir`).
  const common = readSmall(join(gitDir, 'commondir'))?.trim()
  if (common) {
    const commonDir = realOrUndefined(resolve(gitDir, common))
    if (commonDir !== undefined) protect(commonDir)
  }
}

/** The directory a `.git` file names (`gitdir: ../.git/modules/x`), resolved; undefined when unreadable. */
function gitDirOf(gitFile: string): string | undefined {
  const text = readSmall(gitFile)
  const match = text?.match(/^gitdir:\s*(.+?)\s*$/m)
  if (!match?.[1]) return undefined
  return realOrUndefined(resolve(dirname(gitFile), match[1]))
}

/** The `path = …` entries of a root's `.gitmodules`, kept inside the root. */
function submodulePaths(root: string): string[] {
  const text = readSmall(join(root, '.gitmodules'))
  if (text === undefined) return []
  const paths: string[] = []
  for (const match of text.matchAll(/^\s*path\s*=\s*(.+?)\s*$/gm)) {
    const sub = match[1]
    if (!sub || isAbsolute(sub)) continue
    if (!isInside(resolve(root, sub), root) || resolve(root, sub) === root) continue
    paths.push(sub)
    if (paths.length >= MAX_SUBMODULES) break
  }
  return paths
}

function kindOf(path: string): EntryKind {
  try {
    const stat = lstatSync(path)
    if (stat.isSymbolicLink()) return 'symlink'
    if (stat.isDirectory()) return 'dir'
    if (stat.isFile()) return 'file'
    return 'other'
  } catch {
    return 'missing'
  }
}

function isWritableDir(path: string): boolean {
  try {
    accessSync(path, constants.W_OK)
    return true
  } catch {
    return false
  }
}

/** A small text file (`.git`, `.gitmodules`, `commondir`); undefined when missing or too large to be one. */
function readSmall(path: string): string | undefined {
  try {
    const text = readFileSync(path, 'utf8')
    return text.length > 256 * 1024 ? undefined : text
  } catch {
    return undefined
  }
}

export function realOrSelf(path: string): string {
  return realOrUndefined(path) ?? resolve(path)
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

export function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)]
}
