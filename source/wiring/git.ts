import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'

/** Reads the current branch from .git/HEAD (walking up), without spawning git. */
export async function readGitBranch(dir: string): Promise<string | undefined> {
  let current = dir
  for (let i = 0; i < 40; i++) {
    const head = await readFile(join(current, '.git', 'HEAD'), 'utf8').catch(() => null)
    if (head !== null) {
      const ref = /^ref: refs\/heads\/(.+)$/m.exec(head.trim())
      return ref?.[1] ?? head.trim().slice(0, 8)
    }
    const parent = dirname(current)
    if (parent === current) return undefined
    current = parent
  }
  return undefined
}
