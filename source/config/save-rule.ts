import { basename, dirname, resolve } from 'node:path'
import { parseRule } from '../permissions/rules.js'
import { readOwnFile, replaceInDirAsync } from '../util/safe-files.js'
import { openSafeDir } from '../util/safe-open.js'
import { ConfigError } from './errors.js'

/**
 * Adds `rule` to `permissions.allow` of a settings file (normally `.agent-tui/settings.local.json`),
 * creating the file when missing and keeping every other key. The write is atomic (temp file +
 * rename), so a crash never leaves a half-written file. Resolves to false when the rule was already
 * there. Throws ConfigError when the existing file is not valid JSON or has a non-list
 * `permissions.allow` — it is never overwritten in that case.
 */
export async function appendAllowRule(
  settingsLocalPath: string,
  rule: string,
  /** The workspace: below it no link is followed (see `writeAtomically`). Default: two folders up. */
  root: string = dirname(dirname(resolve(settingsLocalPath))),
): Promise<boolean> {
  const canonical = parseRuleOrThrow(rule, settingsLocalPath)
  const settings = await readSettingsObject(settingsLocalPath, root)
  const permissions = settings.permissions ?? {}
  if (!isPlainObject(permissions)) {
    throw new ConfigError(`${settingsLocalPath}: permissions must be an object to save ${canonical}`, {
      file: settingsLocalPath,
      keyPath: 'permissions',
    })
  }
  const allow = permissions.allow ?? []
  if (!Array.isArray(allow)) {
    throw new ConfigError(`${settingsLocalPath}: permissions.allow must be a list to save ${canonical}`, {
      file: settingsLocalPath,
      keyPath: 'permissions.allow',
    })
  }
  if (allow.includes(canonical)) return false
  const next = { ...settings, permissions: { ...permissions, allow: [...allow, canonical] } }
  await writeAtomically(settingsLocalPath, `${JSON.stringify(next, null, 2)}\n`, root)
  return true
}

function parseRuleOrThrow(rule: string, file: string): string {
  try {
    return parseRule(rule).text
  } catch (err) {
    throw new ConfigError(`cannot save rule to ${file}: ${(err as Error).message}`, { file })
  }
}

/** A settings file's JSON object, read without following a link below `root`; `{}` when missing. */
export async function readSettingsObject(file: string, root: string): Promise<Record<string, unknown>> {
  let text: string
  try {
    // Not through a link: what is read is merged into the file written.
    const bytes = readOwnFile(root, file)
    if (bytes === undefined) return {}
    text = bytes.toString('utf8')
  } catch (err) {
    throw new ConfigError(`cannot read ${file}: ${(err as Error).message}`, { file, cause: err })
  }
  if (text.trim() === '') return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (err) {
    throw new ConfigError(`${file} is not valid JSON (${(err as Error).message}); fix it first`, {
      file,
      cause: err,
    })
  }
  if (!isPlainObject(parsed)) throw new ConfigError(`${file} must contain a JSON object`, { file })
  return parsed
}

/**
 * Replaces `file` atomically (temp file + rename). The workspace is writable by sandboxed commands and
 * a repository can bring links, so nothing below `root` is followed: a link on the way is refused, and
 * a link at the name is replaced by the file instead of being written through (util/safe-open.ts).
 */
export async function writeAtomically(
  file: string,
  content: string,
  root: string = dirname(file),
): Promise<void> {
  try {
    const dir = openSafeDir(root, dirname(resolve(file)), { create: 0o777 })
    try {
      await replaceInDirAsync(dir, basename(file), content, { mode: 0o666 })
    } finally {
      dir.close()
    }
  } catch (err) {
    throw new ConfigError(`cannot write ${file}: ${(err as Error).message}`, { file, cause: err })
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
