/**
 * Whether git tracks `relPath` (relative to `cwd`): a committed `.agent-tui/settings.local.json` came with
 * the repository, not from the user. `unknown` when git could not say (the caller then assumes the safer
 * answer). No git, or not a repository: false.
 *
 * git runs with fsmonitor off: a repository's own `.git/config` (present in a downloaded archive) could
 * otherwise name a command that git runs to list changed files.
 */
export async function isTrackedByGit(
  cwd: string,
  relPath: string,
  timeoutMs = 3000,
): Promise<boolean | 'unknown'> {
  // Loaded here: most starts have no settings.local.json and never spawn anything.
  const { execFile } = await import('node:child_process')
  return new Promise((resolve) => {
    execFile(
      'git',
      ['--no-pager', '-c', 'core.fsmonitor=false', 'ls-files', '-z', '--cached', '--', relPath],
      { cwd, timeout: timeoutMs, windowsHide: true, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } },
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
