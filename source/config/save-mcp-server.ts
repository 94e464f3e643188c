import { mkdirSync } from 'node:fs'
import type { AppPaths } from './app-paths.js'
import { parseSettingsText } from './load.js'
import { readSettingsObject, writeAtomically } from './save-rule.js'
import type { McpServerSettings } from './schema.js'

/**
 * `/mcp add … --save`: the server goes under `mcpServers` of the user's settings file, every other key
 * kept, written atomically; a file the next start would refuse is never written. Throws an Error
 * saying what could not be written and why (a server of that name is there already, too).
 */
export async function saveMcpServer(
  paths: Pick<AppPaths, 'configDir' | 'userSettingsFile'>,
  name: string,
  server: McpServerSettings,
): Promise<string> {
  mkdirSync(paths.configDir, { recursive: true, mode: 0o700 })
  const file = paths.userSettingsFile
  const current = await readSettingsObject(file, paths.configDir)
  const servers = current.mcpServers ?? {}
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    throw new Error(`${file}: "mcpServers" must be an object to add "${name}"`)
  if (Object.hasOwn(servers, name)) throw new Error(`${file} has an MCP server "${name}" already`)
  const text = `${JSON.stringify({ ...current, mcpServers: { ...servers, [name]: server } }, null, 2)}\n`
  parseSettingsText(text, file)
  await writeAtomically(file, text, paths.configDir)
  return file
}
