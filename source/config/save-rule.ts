import { randomBytes } from 'node:crypto'
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { ConfigError } from './errors.js'
import { parseRule } from '../permissions/rules.js'

/**
 * Adds `rule` to `permissions.allow` of a settings file (normally `.agent-tui/settings.local.json`),
 * creating the file when missing and keeping every other key. The write is atomic (temp file +
 * rename), so a crash never leaves a half-written file. Resolves to false when the rule was already
 * there. Throws ConfigError when the existing file is not valid JSON or has a non-list
 * `permissions.allow` — it is never overwritten in that case.
 */
export async function appendAllowRule(settingsLocalPath: string, rule: string): Promise<boolean> {
  const canonical = parseRuleOrThrow(rule, settingsLocalPath)
  const settings = await readSettingsObject(settingsLocalPath)
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
  await writeAtomically(settingsLocalPath, `${JSON.stringify(next, null, 2)}\n`)
  return true
}

function parseRuleOrThrow(rule: string, file: string): string {
  try {
    return parseRule(rule).text
  } catch (err) {
    throw new ConfigError(`cannot save rule to ${file}: ${(err as Error).message}`, { file })
  }
}

async function readSettingsObject(file: string): Promise<Record<string, unknown>> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw new ConfigError(`cannot read ${file}: ${(err as Error).message}`, { file, cause: err })
  }
  if (text.trim() === '') return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (err) {
    throw new ConfigError(
      `${file} is not valid JSON (${(err as Error).message}); fix it before saving rules`,
      {
        file,
        cause: err,
      },
    )
  }
  if (!isPlainObject(parsed)) throw new ConfigError(`${file} must contain a JSON object`, { file })
  return parsed
}

export async function writeAtomically(file: string, content: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true })
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  try {
    await writeFile(temp, content, 'utf8')
    await rename(temp, file)
  } catch (err) {
    await unlink(temp).catch(() => undefined)
    throw new ConfigError(`cannot write ${file}: ${(err as Error).message}`, { file, cause: err })
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
