import { mkdirSync } from 'node:fs'
import { PRIVATE_DIR } from '../util/safe-files.js'
import type { AppPaths } from './app-paths.js'
import { parseSettingsText } from './load.js'
import { readSettingsObject, writeAtomically } from './save-rule.js'
import type { Settings } from './schema.js'

/**
 * Sets one key of the user's settings file (`/vim` saves `editorMode` there, as Claude Code keeps it in
 * the user's config), keeping every other key. Atomic (temp file + rename); a file that is not valid JSON
 * is never overwritten, and nothing is written that the next start would refuse. Throws a ConfigError
 * that names the file and why.
 */
export async function saveUserSetting<K extends keyof Settings>(
  paths: Pick<AppPaths, 'configDir' | 'userSettingsFile'>,
  key: K,
  value: Settings[K],
): Promise<string> {
  mkdirSync(paths.configDir, { recursive: true, mode: PRIVATE_DIR })
  const file = paths.userSettingsFile
  const current = await readSettingsObject(file, paths.configDir)
  const text = `${JSON.stringify({ ...current, [key]: value }, null, 2)}\n`
  parseSettingsText(text, file)
  await writeAtomically(file, text, paths.configDir)
  return file
}
