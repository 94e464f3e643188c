import { stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { realPathOf } from '../../permissions/real-path.js'
import { SessionError } from '../session-error.js'

/**
 * The real paths of the directories added with `--add-dir` or `additionalDirectories`
 * (relative to the workspace, `~` expanded). A missing `--add-dir` is a usage error (the user just
 * typed it); a missing settings entry is a warning, so one stale path does not block every start.
 */
export async function resolveAdditionalDirs(
  entries: ReadonlyArray<{ path: string; source: 'settings' | '--add-dir' }>,
  workspace: string,
  home: string,
  warnings: string[],
): Promise<string[]> {
  const dirs: string[] = []
  for (const entry of entries) {
    const expanded =
      entry.path === '~' || entry.path.startsWith('~/') ? join(home, entry.path.slice(1)) : entry.path
    const abs = resolve(workspace, expanded)
    const isDir = await stat(abs).then(
      (s) => s.isDirectory(),
      () => false,
    )
    if (!isDir) {
      const where = entry.source === '--add-dir' ? '--add-dir' : 'additionalDirectories'
      const message = `${where} ${entry.path}: ${abs} is not a directory`
      if (entry.source === '--add-dir') throw new SessionError(message)
      warnings.push(`${message}; ignored`)
      continue
    }
    const real = await realPathOf(abs)
    if (!dirs.includes(real)) dirs.push(real)
  }
  return dirs
}
