import { readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/**
 * The checked-out branch from .git/HEAD (following a worktree's `gitdir:` file), read once at start-up.
 * A detached HEAD shows its short hash; no repository gives undefined.
 */
export function readGitBranch(cwd: string): string | undefined {
  let dir = resolve(cwd)
  for (;;) {
    const dotGit = join(dir, '.git')
    try {
      const gitDir = statSync(dotGit).isDirectory()
        ? dotGit
        : resolve(
            dir,
            readFileSync(dotGit, 'utf8')
              .replace(/^gitdir:\s*/, '')
              .trim(),
          )
      const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim()
      const ref = /^ref: refs\/heads\/(.+)$/.exec(head)
      return ref ? ref[1] : head.slice(0, 7)
    } catch {
      const parent = dirname(dir)
      if (parent === dir) return undefined
      dir = parent
    }
  }
}
