import { join } from 'node:path'
import type { AppPaths } from '../config/app-paths.js'
import type { SettingsSource } from '../config/load.js'
import type { McpServerSettings } from '../config/schema.js'
import { type CollectedHooks, collectHooks } from '../user-hooks/hook-settings.js'
import { describeComponents, type PluginComponents, readComponents } from './components.js'
import { PLUGIN_ROOT_VAR, type PluginManifest, readPluginManifest } from './manifest.js'
import { readInstalled, setEnabled } from './install.js'
import { PluginError, readRegistry } from './registry.js'

/**
 * The enabled plugins of a session (docs/plugins.md), read once at start: each one's commands, agents
 * and skills folders, its hooks (each run with `CLAUDE_PLUGIN_ROOT` set) and its MCP servers (with
 * `${CLAUDE_PLUGIN_ROOT}` put in). A plugin the user installed is theirs, like their own settings: it
 * needs no project trust; its hooks and MCP servers still pass the provenance check before they start.
 */

export interface EnabledPlugin {
  name: string
  root: string
  manifest: PluginManifest
  components: PluginComponents
}

export interface SessionPlugins {
  plugins: EnabledPlugin[]
  hooks: CollectedHooks
  /** One settings source per plugin with MCP servers, as the user's own (`scope: 'user'`). */
  mcpSources: SettingsSource[]
  /** What could not be used, one line each, naming the plugin. */
  warnings: string[]
}

export const NO_PLUGINS: SessionPlugins = {
  plugins: [],
  hooks: { hooks: [], disabledBy: null, warnings: [] },
  mcpSources: [],
  warnings: [],
}

/** The settings' plugin keys: Claude Code's, from any settings file (a repository's once trusted). */
export interface PluginSettings {
  enabledPlugins?: Readonly<Record<string, boolean | readonly string[]>>
  extraKnownMarketplaces?: Readonly<Record<string, unknown>>
}

export async function loadSessionPlugins(
  paths: AppPaths,
  settings: PluginSettings = {},
): Promise<SessionPlugins> {
  const warnings: string[] = []
  const markets = Object.keys(settings.extraKnownMarketplaces ?? {})
  if (markets.length)
    warnings.push(
      `plugins: "extraKnownMarketplaces" (${markets.join(', ')}) is not fetched; add one with agent-tui plugin marketplace add <path | git-url>`,
    )
  let registry: ReturnType<typeof readRegistry>
  try {
    registry = readRegistry(paths)
  } catch (error) {
    return { ...NO_PLUGINS, warnings: [`plugins: ${(error as Error).message}; no plugin is loaded`] }
  }
  // `"name@marketplace": true` (or `"name"`) in settings turns an installed plugin on or off here.
  const switched = new Map<string, boolean>()
  for (const [id, value] of Object.entries(settings.enabledPlugins ?? {})) {
    const name = id.includes('@') ? id.slice(0, id.lastIndexOf('@')) : id
    switched.set(name, value !== false)
    if (value !== false && !registry.plugins[name])
      warnings.push(`plugins: the settings enable ${id}, which is not installed (agent-tui plugin add ${id})`)
  }
  const plugins: EnabledPlugin[] = []
  for (const [name, entry] of Object.entries(registry.plugins)) {
    if (!(switched.get(name) ?? entry.enabled)) continue
    const root = join(paths.pluginsDir, name)
    const read = await readPluginManifest(root)
    if (!read.ok) {
      warnings.push(`plugin ${name}: ${read.error}; not loaded`)
      continue
    }
    if (read.manifest.name !== name) {
      warnings.push(`plugin ${name}: its manifest now names it ${read.manifest.name}; not loaded`)
      continue
    }
    const components = await readComponents(root, read.manifest)
    warnings.push(...[...read.warnings, ...components.problems].map((w) => `plugin ${name}: ${w}`))
    plugins.push({ name, root, manifest: read.manifest, components })
  }
  const hooks = collectHooks(
    plugins.map((p) => ({
      scope: 'user' as const,
      label: `plugin ${p.name}`,
      settings: { hooks: p.components.hooks },
      env: { CLAUDE_PLUGIN_ROOT: p.root },
    })),
  )
  warnings.push(...hooks.warnings)
  const mcpSources = plugins
    .filter((p) => Object.keys(p.components.mcpServers).length > 0)
    .map(
      (p): SettingsSource => ({
        scope: 'user',
        path: join(p.root, '.mcp.json'),
        label: `plugin ${p.name}`,
        exists: true,
        settings: { mcpServers: withPluginRoot(p.components.mcpServers, p.root) },
      }),
    )
  return { plugins, hooks, mcpSources, warnings }
}

/** `${CLAUDE_PLUGIN_ROOT}` put in everywhere, and set in a stdio server's environment. */
export function withPluginRoot(
  servers: Readonly<Record<string, McpServerSettings>>,
  root: string,
): Record<string, McpServerSettings> {
  const put = (text: string) => text.replaceAll(PLUGIN_ROOT_VAR, root)
  const putAll = (record: Readonly<Record<string, string>> | undefined) =>
    record ? Object.fromEntries(Object.entries(record).map(([k, v]) => [k, put(v)])) : undefined
  const out: Record<string, McpServerSettings> = {}
  for (const [name, server] of Object.entries(servers)) {
    if ('command' in server) {
      out[name] = {
        ...server,
        command: put(server.command),
        ...(server.args ? { args: server.args.map(put) } : {}),
        env: { ...putAll(server.env), CLAUDE_PLUGIN_ROOT: root },
      }
    } else {
      const headers = putAll(server.headers)
      out[name] = { ...server, url: put(server.url), ...(headers ? { headers } : {}) }
    }
  }
  return out
}

export { withPluginHooks } from './plugin-basics.js'

/**
 * `/plugin`: what this session loaded (enabled at its start) and what each brought, then the installed
 * plugins it did not load, and how to change that (in a shell; new sessions load the change).
 */
export function sessionPluginLines(paths: AppPaths, loaded: readonly EnabledPlugin[]): string[] {
  const lines: string[] = []
  if (loaded.length === 0) lines.push('No plugin is loaded in this session.')
  for (const plugin of loaded) {
    const version = plugin.manifest.version ? ` ${plugin.manifest.version}` : ''
    lines.push(`${plugin.name}${version}: ${plugin.manifest.description ?? plugin.root}`)
    lines.push(...describeComponents(plugin.name, plugin.components))
  }
  let others: string[] = []
  try {
    const registry = readRegistry(paths)
    others = Object.entries(registry.plugins)
      .filter(([name]) => !loaded.some((p) => p.name === name))
      .map(
        ([name, entry]) => `${name} (${entry.enabled ? 'enabled since this session started' : 'disabled'})`,
      )
  } catch (error) {
    others = [(error as Error).message]
  }
  if (others.length) lines.push('', `Installed, not loaded: ${others.join(', ')}`)
  lines.push(
    '',
    'Manage plugins in a shell: agent-tui plugin add <path | git-url | name@marketplace>, list, enable, disable, remove.',
    'New sessions load the change.',
  )
  return lines
}

/** Enables or disables an installed plugin for sessions started from now on; saying what it brings. */
export async function switchPlugin(paths: AppPaths, name: string, enabled: boolean): Promise<string[]> {
  try {
    setEnabled(paths, name, enabled)
    if (!enabled) return [`Disabled plugin ${name}: sessions started from now on do not load it.`]
    const installed = await readInstalled(paths, name)
    return [
      `Enabled plugin ${name}: sessions started from now on load what it brings:`,
      ...describeComponents(name, installed.components),
    ]
  } catch (error) {
    if (error instanceof PluginError) return [error.message]
    throw error
  }
}
