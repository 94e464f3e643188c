import { lstatSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { PRIVATE_DIR, readOwnFile, replaceOwnFile } from '../util/safe-files.js'
import type { AppPaths } from './app-paths.js'

/**
 * API keys typed into the setup form (docs/configuration.md#where-the-key-is-kept): one file in the
 * user's config dir, `credentials.json`, mode 0600, never in a settings file (settings are shared,
 * pasted into issues, and a repository's own settings must never receive one). Each key is stored for
 * the base URL it was entered and tested for, and is only ever sent there: a settings file that points
 * `baseUrl` elsewhere does not get it. Sandboxed commands cannot see the file (the sandbox hides the
 * whole config dir), and a Read of it asks (its name is a secrets file's).
 */

export const CREDENTIALS_FILE = 'credentials.json'

interface FileShape {
  version: 1
  keys: Record<string, string>
}

export interface StoredKeyRead {
  key?: string
  /** Why the file could not be used (a link, not this user's, not JSON): said, never fatal. */
  problem?: string
  /** The file's permission bits when others can read it (it should be 0600). */
  looseMode?: number
}

export function credentialsPath(paths: Pick<AppPaths, 'configDir'>): string {
  return join(paths.configDir, CREDENTIALS_FILE)
}

/** The form of a base URL keys are stored under: no trailing slash. */
export function credentialKey(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '')
}

/** The stored key for `baseUrl`, if any. Never throws. */
export function readStoredKey(paths: Pick<AppPaths, 'configDir'>, baseUrl: string): StoredKeyRead {
  const file = credentialsPath(paths)
  const read = readCredentials(paths)
  if ('problem' in read) return { problem: `${file}: ${read.problem}` }
  const key = read.contents.keys[credentialKey(baseUrl)]
  return {
    ...(key ? { key } : {}),
    ...(read.mode !== undefined && (read.mode & 0o077) !== 0 ? { looseMode: read.mode } : {}),
  }
}

/** Every base URL with a stored key (for `doctor`; the keys themselves are never shown). */
export function storedKeyUrls(paths: Pick<AppPaths, 'configDir'>): string[] {
  const read = readCredentials(paths)
  return 'problem' in read ? [] : Object.keys(read.contents.keys)
}

/**
 * Stores `key` for `baseUrl` (undefined removes it), keeping the other entries. The file is replaced
 * atomically, exactly 0600 before it is renamed into place, in a config dir made 0700; nothing below the
 * config dir is followed (a link at the name is refused on reading, so its target is never rewritten).
 */
export function storeKey(paths: Pick<AppPaths, 'configDir'>, baseUrl: string, key: string | undefined): void {
  const read = readCredentials(paths)
  if ('problem' in read) throw new Error(`cannot update ${credentialsPath(paths)}: ${read.problem}`)
  const keys = { ...read.contents.keys }
  const at = credentialKey(baseUrl)
  if (key === undefined) {
    if (!(at in keys)) return
    delete keys[at]
  } else keys[at] = key
  mkdirSync(paths.configDir, { recursive: true, mode: PRIVATE_DIR })
  const contents: FileShape = { version: 1, keys }
  replaceOwnFile(paths.configDir, credentialsPath(paths), `${JSON.stringify(contents, null, 2)}\n`, {
    mode: 0o600,
    exactMode: true,
    fsync: true,
  })
}

type Read = { contents: FileShape; mode?: number } | { problem: string }

function readCredentials(paths: Pick<AppPaths, 'configDir'>): Read {
  const file = credentialsPath(paths)
  let bytes: Buffer | undefined
  let mode: number | undefined
  try {
    bytes = readOwnFile(paths.configDir, file, { maxBytes: 1024 * 1024 })
    if (bytes !== undefined) mode = modeOf(file)
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) }
  }
  if (bytes === undefined) return { contents: { version: 1, keys: {} } }
  let json: unknown
  try {
    json = JSON.parse(bytes.toString('utf8'))
  } catch (error) {
    return { problem: `not valid JSON (${(error as Error).message})` }
  }
  const keys = isRecord(json) && isRecord(json.keys) ? json.keys : undefined
  if (!keys) return { problem: 'expected {"version": 1, "keys": {"<base URL>": "<key>"}}' }
  const clean = Object.fromEntries(
    Object.entries(keys).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''),
  )
  return { contents: { version: 1, keys: clean }, ...(mode === undefined ? {} : { mode }) }
}

function modeOf(file: string): number | undefined {
  try {
    // readOwnFile has just refused a link, so this stat meets the file it read.
    return lstatSync(file).mode & 0o777
  } catch {
    return undefined
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
