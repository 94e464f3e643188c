import { readdir, realpath } from 'node:fs/promises'
import { join, relative, isAbsolute } from 'node:path'
import picomatch from 'picomatch'

/** Entries looked at per glob before giving up on it (a glob that wide is judged by its folder alone). */
const MAX_ENTRIES = 5_000

/**
 * The real path of one entry a shell glob would expand to that leads out of the glob's folder through a
 * symlink (`cat *.txt` with `notes.txt -> ~/.ssh/id_rsa`, `cat h*\/x` with `home -> ~`), or undefined when
 * every match stays inside it. The policy judges a glob by its folder and its pattern; a link among the
 * matches would make the command read where neither says, unasked: the gate puts this path in the
 * folder's place instead, so the policy judges the read where it really lands.
 *
 * Expanded as bash does without `globstar`: segment by segment, dotfiles only for a segment starting with
 * a dot, `**` as `*`.
 */
export async function globEscape(dir: string, pattern: string): Promise<string | undefined> {
  const realDir = await realpath(dir).catch(() => undefined)
  if (realDir === undefined) return undefined
  const budget = { left: MAX_ENTRIES }
  const matches = await expand(
    [dir],
    pattern.split('/').filter((s) => s !== ''),
    budget,
  )
  for (const match of matches) {
    const real = await realpath(match).catch(() => undefined)
    if (real === undefined) continue
    const rel = relative(realDir, real)
    if (rel === '..' || rel.startsWith('../') || isAbsolute(rel)) return real
  }
  return undefined
}

async function expand(dirs: string[], segments: string[], budget: { left: number }): Promise<string[]> {
  const [segment, ...rest] = segments
  if (segment === undefined) return dirs
  let next: string[]
  if (!/[*?[{]/.test(segment)) next = dirs.map((d) => join(d, segment))
  else {
    const isMatch = picomatch(segment.replaceAll('**', '*'), { dot: segment.startsWith('.') })
    next = []
    for (const dir of dirs) {
      const names = await readdir(dir).catch(() => [] as string[])
      budget.left -= names.length
      if (budget.left < 0) break
      for (const name of names) if (isMatch(name)) next.push(join(dir, name))
    }
  }
  return next.length === 0 ? [] : expand(next, rest, budget)
}
