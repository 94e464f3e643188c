import { mkdirSync } from 'node:fs'
import { PRIVATE_DIR } from '../util/safe-files.js'
import type { AppPaths } from './app-paths.js'
import { parseSettingsText } from './load.js'
import { readSettingsObject, writeAtomically } from './save-rule.js'

/**
 * Sets one key of the user's settings file (`/theme … save`), keeping every other key, in one atomic
 * write (temp file + rename). Throws a ConfigError naming the file when it is not a JSON object, and never
 * writes a file the next start would refuse. Resolves with the file written.
 */
export async function saveUserSetting(
  paths: Pick<AppPaths, 'configDir' | 'userSettingsFile'>,
  key: string,
  value: unknown,
): Promise<string> {
  mkdirSync(paths.configDir, { recursive: true, mode: PRIVATE_DIR })
  const file = paths.userSettingsFile
  const current = await readSettingsObject(file, paths.configDir)
  const text = `${JSON.stringify({ ...current, [key]: value }, null, 2)}\n`
  parseSettingsText(text, file)
  await writeAtomically(file, text, paths.configDir)
  return file
}
