import { readFile, stat } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'

/**
 * The shadow repository's `info/exclude`: `.git`, the project's own `.git/info/exclude` (its `.gitignore`
 * files are read from the work tree by git itself), and the files over the size cap, one anchored literal
 * pattern each. The cap list is parsed back at start so a later session knows what was left out.
 */

const HEADER = '# agent-tui checkpoints: left out of every snapshot'
const LARGE_MARK = '# over the size cap (path, then its size in bytes):'

/** A gitignore pattern that matches exactly this workspace-relative path. */
export function literalPattern(path: string): string {
  let escaped = path.replace(/[\\*?[\]]/g, (c) => `\\${c}`)
  if (/^[#!]/.test(escaped)) escaped = `\\${escaped}`
  escaped = escaped.replace(/ $/, '\\ ')
  return `/${escaped}`
}

function unescapePattern(pattern: string): string {
  return pattern.replace(/^\//, '').replace(/\\(.)/g, '$1')
}

export function excludeText(projectExclude: string, large: ReadonlyMap<string, number>): string {
  const lines = [HEADER, '.git', '']
  if (projectExclude.trim())
    lines.push('# from the project’s .git/info/exclude', projectExclude.trimEnd(), '')
  lines.push(LARGE_MARK)
  // A size on its own comment line keeps the pattern line a pure pattern.
  for (const [path, bytes] of [...large].sort(([a], [b]) => (a < b ? -1 : 1))) {
    lines.push(`#size ${bytes}`, literalPattern(path))
  }
  return `${lines.join('\n')}\n`
}

/** The over-the-cap list recorded in an exclude file written by `excludeText`. */
export function parseLarge(text: string): Map<string, number> {
  const large = new Map<string, number>()
  const at = text.indexOf(LARGE_MARK)
  if (at < 0) return large
  let size = 0
  for (const line of text.slice(at + LARGE_MARK.length).split('\n')) {
    const m = /^#size (\d+)$/.exec(line)
    if (m) size = Number(m[1])
    else if (line.startsWith('/')) large.set(unescapePattern(line), size)
  }
  return large
}

/**
 * The project's repository root (walking up from `dir` to a `.git` entry) and its `info/exclude` text.
 * Reads files only: running git in the project would read its config, which is the project's to set.
 */
export async function findProject(dir: string): Promise<{ root: string; exclude: string }> {
  let at = resolve(dir)
  for (;;) {
    const dotGit = join(at, '.git')
    const info = await stat(dotGit).catch(() => null)
    if (info) return { root: at, exclude: await readProjectExclude(dotGit, info.isDirectory()) }
    const parent = dirname(at)
    if (parent === at) return { root: resolve(dir), exclude: '' }
    at = parent
  }
}

async function readProjectExclude(dotGit: string, isDir: boolean): Promise<string> {
  try {
    let gitDir = dotGit
    if (!isDir) {
      // A worktree or submodule: `.git` is a file naming the git dir; info/ lives in its common dir.
      const pointer = (await readFile(dotGit, 'utf8')).replace(/^gitdir:\s*/, '').trim()
      gitDir = resolve(dirname(dotGit), pointer)
      const common = await readFile(join(gitDir, 'commondir'), 'utf8').catch(() => '')
      if (common.trim()) gitDir = resolve(gitDir, common.trim())
    }
    return await readFile(join(gitDir, 'info', 'exclude'), 'utf8')
  } catch {
    return ''
  }
}
