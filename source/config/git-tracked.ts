import { readOnlyGitEnv } from '../permissions/git-read-only.js'
import { findHostProgram } from '../util/host-programs.js'

/**
 * Whether git tracks `relPath` (relative to `cwd`): a committed `.agent-tui/settings.local.json` came with
 * the repository, not from the user. `unknown` when git could not say (the caller then assumes the safer
 * answer). No git, or not a repository: false.
 *
 * git runs with fsmonitor, hooks and the other settings that run programs on a read fixed
 * (permissions/git-read-only.ts): a repository's own `.git/config` (present in a downloaded archive)
 * could otherwise name a command that git runs to list changed files.
 */
export async function isTrackedByGit(
  cwd: string,
  relPath: string,
  timeoutMs = 3000,
  // Never a git found in the workspace (a PATH entry there): it would run with the user's rights.
  git = findHostProgram('git', { path: process.env.PATH, unsafe: [cwd] }),
): Promise<boolean | 'unknown'> {
  // No git outside the workspace: as without git, nothing can be tracked.
  if (git === undefined) return false
  // Loaded here: most starts have no settings.local.json and never spawn anything.
  const { execFile } = await import('node:child_process')
  const paths = await pathsThatBringIt(cwd, relPath)
  return new Promise((resolve) => {
    execFile(
      git,
      ['--no-pager', '-c', 'core.fsmonitor=false', 'ls-files', '-z', '--cached', '--', ...paths],
      {
        cwd,
        timeout: timeoutMs,
        windowsHide: true,
        env: readOnlyGitEnv({ ...process.env, GIT_LITERAL_PATHSPECS: '1' }),
      },
      (error, stdout, stderr) => {
        if (!error) {
          resolve(stdout.length > 0)
          return
        }
        const code = (error as NodeJS.ErrnoException).code
        // No git installed, or not inside a work tree: nothing can be tracked.
        if (code === 'ENOENT' || /not a git repository/i.test(String(stderr))) resolve(false)
        else resolve('unknown')
      },
    )
  })
}

/**
 * The paths whose being tracked means the repository brought `relPath`: the path itself, every symlink
 * on the way to it (git answers "not tracked" for a path beyond a symlink, so a committed
 * `.agent-tui -> cfg` must be asked about as the link), and the file it really is when that lies in the
 * workspace (a committed `cfg/settings.local.json` behind an untracked link).
 */
async function pathsThatBringIt(cwd: string, relPath: string): Promise<string[]> {
  const { lstat, realpath } = await import('node:fs/promises')
  const { isAbsolute, join, relative, sep } = await import('node:path')
  const paths = [relPath]
  const parts = relPath.split(sep)
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join(sep)
    const info = await lstat(join(cwd, prefix)).catch(() => undefined)
    if (info?.isSymbolicLink()) paths.push(prefix)
  }
  const [root, real] = await Promise.all([
    realpath(cwd).catch(() => undefined),
    realpath(join(cwd, relPath)).catch(() => undefined),
  ])
  if (root !== undefined && real !== undefined) {
    const rel = relative(root, real)
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) paths.push(rel)
  }
  return [...new Set(paths)]
}
