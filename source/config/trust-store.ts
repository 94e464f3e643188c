import { rename } from 'node:fs/promises'
import { basename, dirname, sep } from 'node:path'
import { PRIVATE_DIR, readOwnFile, replaceInDirAsync } from '../util/safe-files.js'
import { openSafeDir } from '../util/safe-open.js'

/**
 * The user's remembered answers to "do you trust this folder?" (`$XDG_STATE_HOME/agent-tui/trusted-folders.json`),
 * keyed by real path. A folder's answer is the one for the longest stored path that contains it, so trusting
 * a parent trusts its children and an explicit "don't trust" deeper down wins over it. `/`, the home
 * directory and its ancestors are never trusted as a whole: an entry for them covers that folder only.
 */

export interface TrustEntry {
  /** Real path the answer is for. */
  path: string
  trusted: boolean
  /** ISO time of the answer (for /trust), when known. */
  at?: string
  /** What configuration the folder and its subfolders held when trusted (see trust-fingerprint.ts). */
  config?: Record<string, string>
  /** The folder's `dev:ino` when trusted: another directory renamed into its place is not it. */
  id?: string
}

export interface TrustStoreContents {
  entries: TrustEntry[]
  /** Set when the file could not be used as a whole (then `entries` is empty) or in part. */
  warning?: string
  /** The file exists but is not a readable store: writing must keep it aside first. */
  corrupt: boolean
}

export interface TrustMatch {
  trusted: boolean
  entry: TrustEntry
}

export const TRUST_STORE_VERSION = 1

/** Parses the store file's text. Never throws: a broken file yields no entries and a warning. */
export function parseTrustStore(text: string, file: string): TrustStoreContents {
  let json: unknown
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (err) {
    return {
      entries: [],
      corrupt: true,
      warning: `${file} is not valid JSON (${(err as Error).message}): every folder counts as untrusted until it is fixed`,
    }
  }
  const folders = isObject(json) ? json.folders : undefined
  if (!isObject(json) || !isObject(folders)) {
    return {
      entries: [],
      corrupt: true,
      warning: `${file} does not have the expected {"folders": {…}} shape: every folder counts as untrusted until it is fixed`,
    }
  }
  const entries: TrustEntry[] = []
  const bad: string[] = []
  for (const [path, value] of Object.entries(folders)) {
    if (!path.startsWith('/') || !isObject(value) || typeof value.trusted !== 'boolean') {
      bad.push(path)
      continue
    }
    entries.push({
      path,
      trusted: value.trusted,
      ...(typeof value.at === 'string' ? { at: value.at } : {}),
      ...(isRecord(value.config) ? { config: value.config } : {}),
      ...(typeof value.id === 'string' ? { id: value.id } : {}),
    })
  }
  return {
    entries,
    corrupt: false,
    ...(bad.length > 0
      ? { warning: `${file}: ignored unreadable entries for ${bad.map((p) => JSON.stringify(p)).join(', ')}` }
      : {}),
  }
}

/** The store as JSON text (entries sorted by path, so diffs of the file stay readable). */
export function formatTrustStore(entries: readonly TrustEntry[]): string {
  const folders: Record<string, Omit<TrustEntry, 'path'>> = {}
  for (const e of [...entries].sort((a, b) => a.path.localeCompare(b.path))) {
    folders[e.path] = {
      trusted: e.trusted,
      ...(e.at ? { at: e.at } : {}),
      ...(e.id ? { id: e.id } : {}),
      ...(e.config ? { config: e.config } : {}),
    }
  }
  return `${JSON.stringify({ version: TRUST_STORE_VERSION, folders }, null, 2)}\n`
}

/**
 * `/`, the home directory and every ancestor of it: an entry there must not make every project under it
 * trusted by accident, so it covers only that exact folder. `home` is a real path.
 */
export function isBroadFolder(path: string, home: string): boolean {
  return path === '/' || path === home || home.startsWith(path.endsWith(sep) ? path : path + sep)
}

/** Whether `folder` is `base` or inside it (both real, absolute paths). */
export function isWithin(folder: string, base: string): boolean {
  return folder === base || folder.startsWith(base.endsWith(sep) ? base : base + sep)
}

/**
 * The answer for `folder` (a real path): the entry with the longest path that contains it; entries for
 * broad folders only match themselves. Undefined when no entry applies (never asked).
 */
export function matchTrust(
  entries: readonly TrustEntry[],
  folder: string,
  home: string,
): TrustMatch | undefined {
  let best: TrustEntry | undefined
  for (const entry of entries) {
    const applies = isBroadFolder(entry.path, home) ? entry.path === folder : isWithin(folder, entry.path)
    if (!applies) continue
    // Equal paths cannot occur in one file (keys are unique); longer is more specific.
    if (!best || entry.path.length > best.path.length) best = entry
  }
  return best ? { trusted: best.trusted, entry: best } : undefined
}

/** Reads the store. A missing file is an empty store; an unreadable one is empty with a warning. */
export async function readTrustStore(file: string): Promise<TrustStoreContents> {
  let text: string
  try {
    // Not through a link, and a FIFO there cannot stall the start (util/safe-files.ts).
    const bytes = readOwnFile(dirname(file), file)
    if (bytes === undefined) return { entries: [], corrupt: false }
    text = bytes.toString('utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return { entries: [], corrupt: false }
    return {
      entries: [],
      corrupt: false,
      warning: `cannot read ${file} (${(err as Error).message}): every folder counts as untrusted`,
    }
  }
  return parseTrustStore(text, file)
}

export interface TrustWriteResult {
  entries: TrustEntry[]
  /** Where a corrupt store was moved before it was replaced. */
  keptCorruptAs?: string
}

/**
 * Applies `change` to the store on disk: the file is read again right before the write (another
 * agent-tui may have answered meanwhile) and replaced atomically (temp file + rename, mode 0600). A
 * corrupt file is first renamed to `<file>.corrupt-<time>`, so nothing the user wrote is lost.
 */
export async function updateTrustStore(
  file: string,
  change: (entries: TrustEntry[]) => TrustEntry[],
  now: () => number = Date.now,
): Promise<TrustWriteResult> {
  const current = await readTrustStore(file)
  let keptCorruptAs: string | undefined
  const entries = change(current.entries)
  try {
    // Never through a link: the temp file is new (O_EXCL) and renamed through the open state dir.
    const dir = openSafeDir(dirname(file), dirname(file), { create: PRIVATE_DIR })
    try {
      if (current.corrupt) {
        keptCorruptAs = `${file}.corrupt-${now()}`
        await rename(dir.at(basename(file)), dir.at(basename(keptCorruptAs)))
      }
      await replaceInDirAsync(dir, basename(file), formatTrustStore(entries), { mode: 0o600 })
    } finally {
      dir.close()
    }
  } catch (err) {
    throw new Error(`cannot write ${file}: ${(err as Error).message}`, { cause: err })
  }
  return { entries, ...(keptCorruptAs ? { keptCorruptAs } : {}) }
}

/** A path → hash map (anything else in it is dropped by the caller's use: values are compared as strings). */
function isRecord(value: unknown): value is Record<string, string> {
  return isObject(value) && Object.values(value).every((v) => typeof v === 'string')
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
