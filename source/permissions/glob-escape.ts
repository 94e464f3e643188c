import { lstat, readdir, realpath } from 'node:fs/promises'
import { isAbsolute, join, relative } from 'node:path'
import picomatch from 'picomatch'

/** Entries looked at per glob before giving up on it (a glob that wide is judged by its folder alone). */
const MAX_ENTRIES = 5_000

/** A path the glob reaches, and whether a symlink is on the way there from the glob's folder. */
interface Reached {
  path: string
  linked: boolean
}

/**
 * The real path of one entry a shell glob would expand to that leads out of the glob's folder through a
 * symlink (`cat *.txt` with `notes.txt -> ~/.ssh/id_rsa`, `cat h*\/x` with `home -> ~`), or undefined when
 * every match stays inside it. The policy judges a glob by its folder and its pattern; a link among the
 * matches would make the command read where neither says, unasked: the gate puts this path in the
 * folder's place instead, so the policy judges the read where it really lands.
 *
 * Expanded as bash does without `globstar`: segment by segment, dotfiles only for a segment starting with
 * a dot, `**` as `*`. Only matches reached through a link are resolved (the rest cannot lead out).
 */
export async function globEscape(dir: string, pattern: string): Promise<string | undefined> {
  const realDir = await realpath(dir).catch(() => undefined)
  if (realDir === undefined) return undefined
  const budget = { left: MAX_ENTRIES }
  const segments = pattern.split('/').filter((s) => s !== '')
  const matches = await expand([{ path: dir, linked: false }], segments, budget)
  const reals = await Promise.all(
    matches.filter((m) => m.linked).map((m) => realpath(m.path).catch(() => undefined)),
  )
  return reals.find((real) => {
    if (real === undefined) return false
    const rel = relative(realDir, real)
    return rel === '..' || rel.startsWith('../') || isAbsolute(rel)
  })
}

async function expand(from: Reached[], segments: string[], budget: { left: number }): Promise<Reached[]> {
  const [segment, ...rest] = segments
  if (segment === undefined) return from
  const next: Reached[] = []
  if (!/[*?[{]/.test(segment)) {
    // A literal name below a match: a link only if it is one itself (a missing one is no match).
    const found = await Promise.all(
      from.map(async (at) => {
        const path = join(at.path, segment)
        const info = await lstat(path).catch(() => undefined)
        return info ? [{ path, linked: at.linked || info.isSymbolicLink() }] : []
      }),
    )
    next.push(...found.flat())
  } else {
    const isMatch = picomatch(segment.replaceAll('**', '*'), { dot: segment.startsWith('.') })
    for (const at of from) {
      const entries = await readdir(at.path, { withFileTypes: true }).catch(() => [])
      budget.left -= entries.length
      if (budget.left < 0) break
      for (const entry of entries)
        if (isMatch(entry.name))
          next.push({ path: join(at.path, entry.name), linked: at.linked || entry.isSymbolicLink() })
    }
  }
  return next.length === 0 ? [] : expand(next, rest, budget)
}
