import type { AppPaths } from '../config/app-paths.js'
import { PRIVATE_DIR, readOwnFile, replaceOwnFile } from '../util/safe-files.js'
import { isObject, PLUGIN_NAME } from './manifest.js'

/**
 * What the user installed (docs/plugins.md): `plugins.json` in agent-tui's data dir names each installed
 * plugin (its folder is `plugins/<name>/` beside it), where it came from, and whether it is enabled; and
 * each marketplace added, with the folder its `.claude-plugin/marketplace.json` is read from. Written only
 * by `agent-tui plugin …` (and `/plugin`), through util/safe-files.
 */

export interface InstalledPlugin {
  /** The path or git URL it was installed from, or `name@marketplace`. */
  source: string
  enabled: boolean
  installedAt: string
  version?: string
}

export interface AddedMarketplace {
  /** The path or git URL it was added from. */
  source: string
  /** The folder holding `.claude-plugin/marketplace.json` (the source itself for a local path). */
  root: string
}

export interface PluginRegistry {
  plugins: Record<string, InstalledPlugin>
  marketplaces: Record<string, AddedMarketplace>
}

export class PluginError extends Error {}

const MAX_BYTES = 1024 * 1024

/** The registry; empty when there is none. A file that cannot be used is a PluginError naming it. */
export function readRegistry(paths: AppPaths): PluginRegistry {
  const file = paths.pluginRegistryFile
  let raw: Buffer | undefined
  try {
    raw = readOwnFile(paths.dataDir, file, { maxBytes: MAX_BYTES })
  } catch (error) {
    throw new PluginError(`${file}: cannot be read (${(error as Error).message})`)
  }
  if (raw === undefined) return { plugins: {}, marketplaces: {} }
  let json: unknown
  try {
    json = JSON.parse(raw.toString('utf8'))
  } catch (error) {
    throw new PluginError(`${file}: invalid JSON (${(error as Error).message})`)
  }
  if (!isObject(json)) throw new PluginError(`${file}: expected a JSON object`)
  const registry: PluginRegistry = { plugins: {}, marketplaces: {} }
  for (const [name, entry] of Object.entries(isObject(json.plugins) ? json.plugins : {})) {
    if (!PLUGIN_NAME.test(name) || !isObject(entry) || typeof entry.source !== 'string') continue
    registry.plugins[name] = {
      source: entry.source,
      enabled: entry.enabled === true,
      installedAt: typeof entry.installedAt === 'string' ? entry.installedAt : '',
      ...(typeof entry.version === 'string' ? { version: entry.version } : {}),
    }
  }
  for (const [name, entry] of Object.entries(isObject(json.marketplaces) ? json.marketplaces : {})) {
    if (!PLUGIN_NAME.test(name) || !isObject(entry)) continue
    if (typeof entry.source !== 'string' || typeof entry.root !== 'string') continue
    registry.marketplaces[name] = { source: entry.source, root: entry.root }
  }
  return registry
}

export function writeRegistry(paths: AppPaths, registry: PluginRegistry): void {
  replaceOwnFile(paths.dataDir, paths.pluginRegistryFile, `${JSON.stringify(registry, null, 2)}\n`, {
    mode: 0o600,
    createDirs: PRIVATE_DIR,
  })
}
