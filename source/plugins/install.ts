import { access, mkdir, mkdtemp, realpath, rename, rm } from 'node:fs/promises'
import { basename, join, resolve } from 'node:path'
import type { AppPaths } from '../config/app-paths.js'
import { PRIVATE_DIR } from '../util/safe-files.js'
import { type PluginComponents, readComponents } from './components.js'
import { fetchFolder, type GitPick, isGitSource } from './fetch.js'
import { type MarketplaceEntry, readMarketplace } from './marketplace.js'
import { type PluginManifest, readPluginManifest, within } from './manifest.js'
import { PluginError, readRegistry, writeRegistry } from './registry.js'

/**
 * Installing, removing, enabling and disabling plugins, and adding marketplaces: the explicit user
 * actions behind `agent-tui plugin …`. A plugin is fetched into a fresh folder beside the installed
 * ones, checked (a manifest agent-tui can read, no link out), and only then renamed into place; it is
 * installed disabled unless asked otherwise, so what it brings is shown before anything of it runs.
 */

export interface Installed {
  name: string
  root: string
  manifest: PluginManifest
  components: PluginComponents
  warnings: string[]
}

export async function installPlugin(
  paths: AppPaths,
  source: string,
  opts: { cwd: string; enable?: boolean },
): Promise<Installed> {
  const registry = readRegistry(paths)
  const at = source.lastIndexOf('@')
  const fromMarket = at > 0 && !isGitSource(source) && registry.marketplaces[source.slice(at + 1)]
  if (at > 0 && !fromMarket && !isGitSource(source) && !(await exists(resolve(opts.cwd, source)))) {
    const added = Object.keys(registry.marketplaces)
    throw new PluginError(
      `no marketplace named ${source.slice(at + 1)} is added (${added.length ? `added: ${added.join(', ')}` : 'agent-tui plugin marketplace add <path | git-url>'})`,
    )
  }
  let from = source
  let pick: GitPick = {}
  if (fromMarket) {
    const entry = await marketplaceEntry(fromMarket.root, source.slice(0, at), source.slice(at + 1))
    from = entry.source
    pick = entry.pick ?? {}
  }
  await mkdir(paths.pluginsDir, { recursive: true, mode: PRIVATE_DIR })
  const incoming = await mkdtemp(join(paths.pluginsDir, '.incoming-'))
  try {
    // Named as its source: a plugin without a manifest is named after its folder (as in Claude Code).
    const folder = basename(
      pick.path ?? (isGitSource(from) ? from.replace(/\/+$/, '') : resolve(opts.cwd, from)),
    )
    const staged = join(incoming, folder.replace(/\.git$/, '').replace(/^\.*$/, '') || 'plugin')
    await fetchFolder(from, staged, opts.cwd, pick)
    const read = await readPluginManifest(staged)
    if (!read.ok) throw new PluginError(read.error)
    const { name } = read.manifest
    if (registry.plugins[name])
      throw new PluginError(
        `a plugin named ${name} is installed already (agent-tui plugin remove ${name} first)`,
      )
    const root = join(paths.pluginsDir, name)
    // A folder left by a crash between the rename and the registry write is replaced.
    await rm(root, { recursive: true, force: true })
    await rename(staged, root)
    // Read again where it now lies: its paths are the installed folder's.
    const manifest = await readPluginManifest(root)
    if (!manifest.ok) throw new PluginError(manifest.error)
    registry.plugins[name] = {
      source: fromMarket || isGitSource(source) ? source : resolve(opts.cwd, source),
      enabled: opts.enable === true,
      installedAt: new Date().toISOString(),
      ...(read.manifest.version ? { version: read.manifest.version } : {}),
    }
    writeRegistry(paths, registry)
    return {
      name,
      root,
      manifest: manifest.manifest,
      components: await readComponents(root, manifest.manifest),
      warnings: read.warnings,
    }
  } finally {
    await rm(incoming, { recursive: true, force: true })
  }
}

async function marketplaceEntry(
  root: string,
  plugin: string,
  market: string,
): Promise<Extract<MarketplaceEntry, { installable: true }>> {
  const listed = await readMarketplace(root)
  const entry = listed.plugins.find((p) => p.name === plugin)
  if (!entry)
    throw new PluginError(
      `marketplace ${market} lists no plugin named ${plugin} (agent-tui plugin marketplace list ${market})`,
    )
  if (!entry.installable) throw new PluginError(`${plugin}@${market}: ${entry.why}`)
  if (isGitSource(entry.source)) return entry
  const leadsOut = new PluginError(
    `${plugin}@${market}: its source ${entry.source} leads out of the marketplace`,
  )
  if (!within(root, resolve(root, entry.source))) throw leadsOut
  // Judged where it leads: a link inside the marketplace folder may point anywhere. The copy is made from
  // the resolved folder, so what was judged is what is copied.
  const [realRoot, realSource] = await Promise.all([
    realpath(root),
    realpath(resolve(root, entry.source)),
  ]).catch((error: NodeJS.ErrnoException) => {
    throw new PluginError(
      `${plugin}@${market}: its source ${entry.source} cannot be read (${error.code ?? error.message})`,
    )
  })
  if (!within(realRoot, realSource)) throw leadsOut
  return { ...entry, source: realSource }
}

/** The installed plugin `name`, read from its folder. */
export async function readInstalled(paths: AppPaths, name: string): Promise<Installed> {
  const root = join(paths.pluginsDir, name)
  const read = await readPluginManifest(root)
  if (!read.ok) throw new PluginError(`plugin ${name}: ${read.error}`)
  return {
    name,
    root,
    manifest: read.manifest,
    components: await readComponents(root, read.manifest),
    warnings: read.warnings,
  }
}

export async function removePlugin(paths: AppPaths, name: string): Promise<void> {
  const registry = readRegistry(paths)
  if (!registry.plugins[name]) throw new PluginError(notInstalled(name, registry))
  delete registry.plugins[name]
  // Out of the registry first: a folder left by a failure is never loaded.
  writeRegistry(paths, registry)
  await rm(join(paths.pluginsDir, name), { recursive: true, force: true })
}

export function setEnabled(paths: AppPaths, name: string, enabled: boolean): void {
  const registry = readRegistry(paths)
  const entry = registry.plugins[name]
  if (!entry) throw new PluginError(notInstalled(name, registry))
  entry.enabled = enabled
  writeRegistry(paths, registry)
}

function notInstalled(name: string, registry: ReturnType<typeof readRegistry>): string {
  const names = Object.keys(registry.plugins)
  return `no plugin named ${name} is installed${names.length ? ` (installed: ${names.join(', ')})` : ''}`
}

/** Adds a marketplace: a local folder is read where it is, a git URL cloned into the data dir. */
export async function addMarketplace(
  paths: AppPaths,
  source: string,
  opts: { cwd: string },
): Promise<{ name: string; plugins: number }> {
  const registry = readRegistry(paths)
  if (!isGitSource(source)) {
    const root = resolve(opts.cwd, source)
    const listed = await readMarketplace(root)
    if (registry.marketplaces[listed.name])
      throw new PluginError(`a marketplace named ${listed.name} is added already`)
    registry.marketplaces[listed.name] = { source: root, root }
    writeRegistry(paths, registry)
    return { name: listed.name, plugins: listed.plugins.length }
  }
  await mkdir(paths.marketplacesDir, { recursive: true, mode: PRIVATE_DIR })
  const incoming = await mkdtemp(join(paths.marketplacesDir, '.incoming-'))
  try {
    const staged = join(incoming, 'marketplace')
    await fetchFolder(source, staged, opts.cwd)
    const listed = await readMarketplace(staged)
    if (registry.marketplaces[listed.name])
      throw new PluginError(`a marketplace named ${listed.name} is added already`)
    const root = join(paths.marketplacesDir, listed.name)
    await rm(root, { recursive: true, force: true })
    await rename(staged, root)
    registry.marketplaces[listed.name] = { source, root }
    writeRegistry(paths, registry)
    return { name: listed.name, plugins: listed.plugins.length }
  } finally {
    await rm(incoming, { recursive: true, force: true })
  }
}

function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  )
}
