import { readdir } from 'node:fs/promises'
import { isAbsolute, resolve } from 'node:path'

export interface Mention {
  /** Index of the "@". */
  start: number
  /** The typed path after "@", up to the cursor. */
  query: string
}

/** The `@path` token that ends at the cursor, if any ("@" at the start or after whitespace). */
export function mentionAtCursor(text: string, cursor: number): Mention | null {
  const before = text.slice(0, cursor)
  const m = /(^|\s)@([^\s@]*)$/.exec(before)
  if (!m) return null
  return { start: cursor - (m[2] ?? '').length - 1, query: m[2] ?? '' }
}

export interface PathCandidate {
  /** Path as it will be inserted after "@" (directories end with "/"). */
  value: string
  isDir: boolean
}

const IGNORED = new Set(['node_modules', '.git'])

/**
 * Lists entries of the directory the user is typing in (one readdir, no recursion) whose names start
 * with the typed prefix. Dotfiles show only when the prefix starts with "."; node_modules and .git never.
 */
export async function listPathCandidates(cwd: string, query: string, limit = 50): Promise<PathCandidate[]> {
  const slash = query.lastIndexOf('/')
  const dirPart = slash >= 0 ? query.slice(0, slash + 1) : ''
  const prefix = (slash >= 0 ? query.slice(slash + 1) : query).toLowerCase()
  const dir = isAbsolute(dirPart) ? dirPart : resolve(cwd, dirPart || '.')
  let entries: Array<{ name: string; isDirectory(): boolean }>
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch {
    return []
  }
  return entries
    .filter((e) => !IGNORED.has(e.name))
    .filter((e) => (prefix.startsWith('.') ? true : !e.name.startsWith('.')))
    .filter((e) => e.name.toLowerCase().startsWith(prefix))
    .map((e) => ({ value: `${dirPart}${e.name}${e.isDirectory() ? '/' : ''}`, isDir: e.isDirectory() }))
    .sort((a, b) => Number(b.isDir) - Number(a.isDir) || a.value.localeCompare(b.value))
    .slice(0, limit)
}

/** A file path completion the user has already typed out in full (accepting it would change nothing). */
export function typedOut(
  item: { kind: string; value: string; isDir: boolean },
  query: string | null,
): boolean {
  return item.kind === 'path' && !item.isDir && item.value === query
}
