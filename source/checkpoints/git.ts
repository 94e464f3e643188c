import { spawn } from 'node:child_process'

/**
 * Runs git against the shadow repository only. The project's own repository is never consulted: the git
 * dir is given explicitly, every inherited GIT_* variable is dropped (an agent-tui started from a git hook
 * would otherwise inherit GIT_INDEX_FILE or GIT_DIR), and neither the user's nor the system's config is
 * read, so nothing a repository or a config file names (fsmonitor, hooks, filters) can run.
 */

export interface GitTarget {
  gitDir: string
  workTree: string
  /**
   * The git program, by absolute path: found once outside the workspace (source/util/host-programs.ts),
   * since a `git` planted in a PATH folder inside it would run with the user's rights at every snapshot.
   */
  program: string
}

export interface GitResult {
  code: number
  stdout: Buffer
  stderr: string
  truncated?: boolean
}

/** Settings forced on every call: command-line config beats any file, including our own repository's. */
const FORCED_CONFIG = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.untrackedCache=true',
  'core.preloadIndex=true',
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.symlinks=true',
  'core.quotepath=false',
  'core.splitIndex=false',
  // Never look into a nested repository's work tree (git would run git there, under its config).
  'diff.ignoreSubmodules=dirty',
  'submodule.recurse=false',
  'status.submoduleSummary=false',
  'gc.auto=0',
  'maintenance.auto=false',
  // The work tree may belong to another user (a checkout owned by root); the git dir is ours.
  'safe.directory=*',
]

/** git is missing (ENOENT) or could not be started at all. */
export class GitUnavailableError extends Error {
  constructor(cause: string) {
    super(`git could not be started (${cause})`)
    this.name = 'GitUnavailableError'
  }
}

export class GitCommandError extends Error {
  readonly code: number
  readonly stderr: string
  constructor(args: readonly string[], code: number, stderr: string) {
    const detail = stderr.trim().split('\n').slice(-3).join(' ').slice(0, 300)
    super(`git ${args[0] ?? ''} failed (exit ${code})${detail ? `: ${detail}` : ''}`)
    this.name = 'GitCommandError'
    this.code = code
    this.stderr = stderr
  }
}

export function isolatedEnv(base: NodeJS.ProcessEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(base)) {
    if (!key.startsWith('GIT_')) env[key] = value
  }
  return {
    ...env,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    // Paths given to git are file names, never patterns.
    GIT_LITERAL_PATHSPECS: '1',
    LC_ALL: 'C',
    ...extra,
  }
}

export interface RunOptions {
  input?: string | Buffer
  /** Extra environment, e.g. GIT_INDEX_FILE for a scratch index. */
  env?: Record<string, string>
  signal?: AbortSignal
  /** Exit codes that are not failures (e.g. 1 for `diff --quiet`). */
  okCodes?: readonly number[]
  /**
   * Stop reading once stdout holds more than this many NUL-separated entries: git is stopped and the
   * result has `truncated` set (a listing of a home directory need not run to its end to be too long).
   */
  maxEntries?: number
}

/** Runs one git command in the work tree; rejects with GitCommandError / GitUnavailableError. */
export function runGit(
  target: GitTarget,
  args: readonly string[],
  opts: RunOptions = {},
): Promise<GitResult> {
  const argv = [
    ...FORCED_CONFIG.flatMap((c) => ['-c', c]),
    `--git-dir=${target.gitDir}`,
    `--work-tree=${target.workTree}`,
    ...args,
  ]
  return new Promise((resolve, reject) => {
    let child: ReturnType<typeof spawn>
    try {
      child = spawn(target.program, argv, {
        cwd: target.workTree,
        env: isolatedEnv(process.env, opts.env),
        stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        // SIGTERM: git removes its lock files on it, so a stopped snapshot leaves no index.lock behind.
        ...(opts.signal ? { signal: opts.signal, killSignal: 'SIGTERM' as const } : {}),
      })
    } catch (err) {
      reject(new GitUnavailableError(err instanceof Error ? err.message : String(err)))
      return
    }
    const out: Buffer[] = []
    const err: Buffer[] = []
    let entries = 0
    let truncated = false
    child.stdout?.on('data', (d: Buffer) => {
      out.push(d)
      if (opts.maxEntries === undefined || truncated) return
      for (const byte of d) if (byte === 0) entries++
      if (entries > opts.maxEntries) {
        truncated = true
        child.kill('SIGTERM')
      }
    })
    child.stderr?.on('data', (d: Buffer) => err.push(d))
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (e.name === 'AbortError') reject(e)
      else if (e.code === 'ENOENT' || e.code === 'EACCES') reject(new GitUnavailableError(e.code))
      else reject(e)
    })
    child.on('close', (code) => {
      const result = { code: code ?? -1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString() }
      if (truncated) resolve({ ...result, truncated })
      else if (result.code === 0 || opts.okCodes?.includes(result.code)) resolve(result)
      else reject(new GitCommandError(args, result.code, result.stderr))
    })
    if (opts.input !== undefined) {
      child.stdin?.on('error', () => undefined)
      child.stdin?.end(opts.input)
    }
  })
}

/** Splits NUL-separated output (`-z`) into entries. */
export function splitZ(buffer: Buffer): string[] {
  if (buffer.length === 0) return []
  return buffer
    .toString('utf8')
    .split('\0')
    .filter((s) => s !== '')
}
