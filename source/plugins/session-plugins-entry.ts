import { lstatSync } from 'node:fs'
import type { AppPaths } from '../config/app-paths.js'
import type { EnabledPlugin, PluginSettings, SessionPlugins } from './session-plugins.js'

/**
 * What a session needs of the plugins before any is known to be there (docs/plugins.md). The plugin
 * modules themselves (the registry, manifests, components, installing) load only when the user has a
 * plugin registry or the settings name plugins, and for `/plugin`: a session without plugins no longer
 * carries their code (idle RSS, docs/performance.md#memory).
 */

/** session-plugins.ts' NO_PLUGINS, written out here so as not to load that module for it. */
const NO_PLUGINS: SessionPlugins = {
  plugins: [],
  hooks: { hooks: [], disabledBy: null, warnings: [] },
  mcpSources: [],
  warnings: [],
}

/** The user's enabled plugins, as loadSessionPlugins reads them; NO_PLUGINS when there is nothing to read. */
export async function loadPluginsIfAny(
  paths: AppPaths,
  settings: PluginSettings = {},
): Promise<SessionPlugins> {
  if (!mayHavePlugins(paths, settings)) return NO_PLUGINS
  const { loadSessionPlugins } = await import('./session-plugins.js')
  return loadSessionPlugins(paths, settings)
}

/**
 * False only when loadSessionPlugins would find nothing and say nothing: no registry file, and no
 * plugin keys in the settings (which it warns about). A registry that is there but cannot be read
 * (a link, a permission) goes on to the reader, which names the problem.
 */
export function mayHavePlugins(paths: AppPaths, settings: PluginSettings): boolean {
  if (Object.keys(settings.enabledPlugins ?? {}).length > 0) return true
  if (Object.keys(settings.extraKnownMarketplaces ?? {}).length > 0) return true
  try {
    lstatSync(paths.pluginRegistryFile)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT'
  }
}

/** `/plugin` and `/plugin enable|disable NAME` for a session, loading the plugin modules when used. */
export function pluginCommands(
  paths: AppPaths,
  loaded: readonly EnabledPlugin[],
): { pluginLines(): Promise<string[]>; setPluginEnabled(name: string, enabled: boolean): Promise<string[]> } {
  return {
    pluginLines: async () => (await import('./session-plugins.js')).sessionPluginLines(paths, loaded),
    setPluginEnabled: async (name, enabled) =>
      (await import('./session-plugins.js')).switchPlugin(paths, name, enabled),
  }
}
