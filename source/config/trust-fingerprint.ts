import { createHash } from 'node:crypto'
import { type Dirent, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { changedInWindow, type UnaskedWindow } from '../provenance/windows.js'
import { createNestedFinder } from '../sandbox/nested-protected.js'

/**
 * What configuration a trusted folder held, so trust given to a folder is not silently extended to
 * configuration that appeared later (docs/permissions.md#project-trust). Recorded when the user trusts a folder: every
 * configuration file of the folder and its subfolders (`.mcp.json`, everything in `.agent-tui/` but the
 * memory file, everything in `.claude/`), as workspace-relative path → a hash of its bytes. Files that
 * changed while commands or edits ran unasked are left out of a record the user did not look at, so
 * they count as new.
 *
 * At start, a folder's own configuration is compared with the record of the entry its trust comes
 * from (see `judgeConfig`):
 * - trusted through a parent folder: it must be what the record holds; a file that is new or differs
 *   asks about the folder again (a sandboxed command can create `sub/.mcp.json`, and no mount can stop
 *   it; trusting the subfolder itself then makes its configuration yours to edit);
 * - trusted itself: its configuration is yours to edit, so a changed or new file is taken as it is and
 *   recorded, unless it changed while commands or edits ran unasked, or the folder is no longer the
 *   directory that was trusted (its device and inode differ: an old tree renamed into its place keeps
 *   its files' old ctimes) — then the folder is asked about again.
 */

export type ConfigRecord = Record<string, string>

export interface ConfigFile {
  /** Relative to the folder it was listed for. */
  rel: string
  hash: string
  ctimeMs: number
}

/** Files per configuration folder, and in all, that a record holds at most. */
const MAX_FILES = 2000
const CONFIG_DIRS = ['.agent-tui', '.claude']
/** Text for the model, not configuration: it is read in untrusted folders too. */
const NOT_CONFIG = new Set([join('.agent-tui', 'memory.md')])

/** The folder's own configuration files (not its subfolders'). */
export function ownConfig(folder: string): ConfigFile[] {
  const out: ConfigFile[] = []
  const add = (path: string) => {
    const file = describe(folder, path)
    if (file && !NOT_CONFIG.has(file.rel)) out.push(file)
  }
  add(join(folder, '.mcp.json'))
  for (const dir of CONFIG_DIRS) for (const path of filesUnder(join(folder, dir))) add(path)
  return out
}

/** The configuration of the folder and every subfolder (bounded), relative to `folder`. */
export function treeConfig(folder: string): ConfigFile[] {
  const nested = createNestedFinder({ names: ['.mcp.json', ...CONFIG_DIRS] }).find([folder]).paths
  const out = ownConfig(folder)
  for (const path of nested) {
    if (out.length >= MAX_FILES) break
    const paths = path.endsWith(`${sep}.mcp.json`) ? [path] : filesUnder(path)
    for (const file of paths.map((p) => describe(folder, p))) {
      if (file && !NOT_CONFIG.has(file.rel.split(sep).slice(-2).join(sep))) out.push(file)
    }
  }
  return out.slice(0, MAX_FILES)
}

/**
 * The record trusting `target` leaves: its tree's configuration as it is now, but for files that
 * changed while commands or edits ran unasked (they stay new, so they are asked about where they
 * apply), and for `shown`, the configuration the user was shown and trusted, as it is.
 */
export function recordFor(
  target: string,
  windows: readonly UnaskedWindow[],
  shown: readonly ConfigFile[] = [],
  shownPrefix = '',
): ConfigRecord {
  const record: ConfigRecord = {}
  for (const file of treeConfig(target)) {
    if (changedInWindow(file.ctimeMs, join(target, file.rel), windows, inside)) continue
    record[file.rel] = file.hash
  }
  for (const file of shown) record[join(shownPrefix, file.rel)] = file.hash
  return record
}

export type ConfigJudgement = { ok: true; record?: ConfigRecord } | { ok: false; changes: string[] }

/**
 * Whether `own` (the folder's configuration now) is covered by the trust of the entry it comes from:
 * `record` is that entry's (undefined for an entry from before records were kept), `prefix` the folder's
 * path relative to it ('' for the folder itself), `sameFolder` whether the folder is the directory that
 * was trusted (undefined when that was not recorded). `record` in the answer: the entry's record with
 * the accepted changes, when there were any.
 */
export function judgeConfig(opts: {
  folder: string
  own: readonly ConfigFile[]
  record: ConfigRecord | undefined
  prefix: string
  windows: readonly UnaskedWindow[]
  sameFolder: boolean | undefined
}): ConfigJudgement {
  const { own, prefix } = opts
  const record = opts.record ?? {}
  const next: ConfigRecord = { ...record }
  const changes: string[] = []
  let updated = false
  for (const file of own) {
    const key = join(prefix, file.rel)
    const known = record[key]
    if (known === file.hash) continue
    const what = known === undefined ? 'appeared' : 'changed'
    if (prefix !== '') {
      changes.push(`${file.rel} ${what} after the folder above was trusted`)
    } else if (opts.sameFolder === false) {
      changes.push(
        `${file.rel} ${what}, and the folder is not the directory that was trusted (it was replaced)`,
      )
    } else if (changedInWindow(file.ctimeMs, join(opts.folder, file.rel), opts.windows, inside)) {
      const when = new Date(file.ctimeMs).toTimeString().slice(0, 8)
      changes.push(`${file.rel} ${what} at ${when} while commands or edits ran unasked`)
    } else {
      next[key] = file.hash
      updated = true
    }
  }
  if (changes.length > 0) return { ok: false, changes }
  return updated ? { ok: true, record: next } : { ok: true }
}

/** `dev:ino` of a folder: another directory renamed into its place has another. */
export function folderIdentity(folder: string): string | undefined {
  try {
    const stat = statSync(folder, { bigint: true })
    return `${stat.dev}:${stat.ino}`
  } catch {
    return undefined
  }
}

/**
 * A file's hash (of what it leads to, for a link: loaders follow links) and the latest change time of
 * it, its link, and every folder between `folder` and it: an old file renamed (or linked) into place
 * carries an old ctime, the folder it was put in a new one. (`folder` itself is left out: every file
 * created in it changes its ctime; its identity is checked instead.)
 */
function describe(folder: string, path: string): ConfigFile | undefined {
  try {
    const stat = statSync(path)
    if (!stat.isFile() || stat.size > 1024 * 1024) return undefined
    const hash = createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 32)
    let ctimeMs = Math.max(stat.ctimeMs, lstatSync(path).ctimeMs)
    for (let dir = dirname(path); dir !== folder && inside(dir, folder); dir = dirname(dir))
      ctimeMs = Math.max(ctimeMs, lstatSync(dir).ctimeMs)
    return { rel: relative(folder, path), hash, ctimeMs }
  } catch {
    return undefined
  }
}

/** Regular files below `dir`, bounded (links are not followed). */
function filesUnder(dir: string): string[] {
  const out: string[] = []
  const stack = [dir]
  while (stack.length > 0 && out.length < MAX_FILES) {
    const at = stack.pop() as string
    let entries: Dirent[]
    try {
      entries = readdirSync(at, { withFileTypes: true })
    } catch {
      continue
    }
    for (const entry of entries) {
      const path = join(at, entry.name)
      if (entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(path))) stack.push(path)
      else out.push(path)
    }
  }
  return out.sort()
}

function inside(path: string, root: string): boolean {
  const rel = relative(root, path)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep))
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
