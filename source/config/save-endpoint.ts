import { mkdirSync } from 'node:fs'
import { PRIVATE_DIR } from '../util/safe-files.js'
import type { AppPaths } from './app-paths.js'
import { credentialsPath, storeKey } from './credentials.js'
import { originOf } from './headers.js'
import { parseSettingsText } from './load.js'
import { readSettingsObject, writeAtomically } from './save-rule.js'

/**
 * What the setup form saves (docs/configuration.md#where-the-key-is-kept): `baseUrl` and `model` in the
 * user's settings file, every other key kept; the key typed into the form in `credentials.json` (0600)
 * for that URL, or the name of the environment variable to read it from as `apiKeyEnv`. Never a secret in
 * a settings file: an `apiKey` already there would beat the new choice, so it goes.
 */

export type KeyChoice =
  | { kind: 'none' }
  /** Typed into the form: stored in credentials.json for this URL. */
  | { kind: 'stored'; key: string }
  /** Read from this environment variable at every start. */
  | { kind: 'env'; name: string }

export interface EndpointChoice {
  baseUrl: string
  model: string
  key: KeyChoice
}

export interface SavedEndpoint {
  settingsFile: string
  /** Set when a key was stored. */
  credentialsFile?: string
  /** Keys of the settings file removed because they would override the choice (`apiKey`). */
  removed: string[]
}

/** Names a shell accepts for a variable. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Saves the choice. Throws an Error whose message says what could not be written and why. */
export async function saveEndpoint(
  paths: Pick<AppPaths, 'configDir' | 'userSettingsFile'>,
  choice: EndpointChoice,
): Promise<SavedEndpoint> {
  if (choice.key.kind === 'env' && !ENV_NAME.test(choice.key.name))
    throw new Error(`"${choice.key.name}" is not an environment variable name`)
  mkdirSync(paths.configDir, { recursive: true, mode: PRIVATE_DIR })
  const file = paths.userSettingsFile
  const current = await readSettingsObject(file, paths.configDir)
  refuseMovingHeaders(file, current, choice.baseUrl)
  const next: Record<string, unknown> = { ...current, baseUrl: choice.baseUrl, model: choice.model }
  const removed: string[] = []
  if ('apiKey' in next) {
    delete next.apiKey
    removed.push('apiKey')
  }
  if (choice.key.kind === 'env') next.apiKeyEnv = choice.key.name
  else delete next.apiKeyEnv
  const text = `${JSON.stringify(next, null, 2)}\n`
  // Never write a file the next start would refuse (a key of it that was wrong already is named).
  parseSettingsText(text, file)
  // The key first: settings that name the endpoint without its key would fail at the next start.
  if (choice.key.kind === 'stored') storeKey(paths, choice.baseUrl, choice.key.key)
  else storeKey(paths, choice.baseUrl, undefined)
  await writeAtomically(file, text, paths.configDir)
  return {
    settingsFile: file,
    ...(choice.key.kind === 'stored' ? { credentialsFile: credentialsPath(paths) } : {}),
    removed,
  }
}

/**
 * A settings file's `headers` go to its own `baseUrl`'s origin (docs/configuration.md#request-headers):
 * saving another origin there would send them — a gateway's key, say — to the new endpoint from the next
 * start. Not saved; the file says what to do, and nothing in it is lost.
 */
function refuseMovingHeaders(file: string, current: Record<string, unknown>, baseUrl: string): void {
  const headers = current.headers
  if (typeof headers !== 'object' || headers === null || Object.keys(headers).length === 0) return
  const from = originOf(typeof current.baseUrl === 'string' ? current.baseUrl : undefined)
  const to = originOf(baseUrl)
  if (from !== undefined && from === to) return
  throw new Error(
    `not saved: ${file} has "headers" ${from ? `for ${from}` : 'and no "baseUrl"'}; saved with ${to ?? baseUrl} they would be sent there from the next start. Move or remove "headers" in that file, then save again`,
  )
}
