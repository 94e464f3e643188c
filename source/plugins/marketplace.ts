import { join } from 'node:path'
import { isObject, PLUGIN_NAME, readSmall } from './manifest.js'
import type { GitPick } from './fetch.js'
import { PluginError } from './registry.js'

/**
 * A marketplace in Claude Code's format: `.claude-plugin/marketplace.json` names plugins, each with a
 * `source` — a folder of the marketplace (`"./plugins/x"`), or `{"source": "url", "url": "…git"}`,
 * `{"source": "github", "repo": "owner/name"}`, or `{"source": "git-subdir", "url", "path"}` (one folder
 * of a repository); a git source may name a `ref` and pin a `sha`.
 */

export type MarketplaceEntry =
  | { name: string; description?: string; installable: true; source: string; pick?: GitPick }
  | { name: string; description?: string; installable: false; why: string }

export interface Marketplace {
  name: string
  plugins: MarketplaceEntry[]
}

export const MARKETPLACE_PATH = join('.claude-plugin', 'marketplace.json')

export async function readMarketplace(root: string): Promise<Marketplace> {
  const file = join(root, MARKETPLACE_PATH)
  const text = await readSmall(file, 8 * 1024 * 1024)
  if (text === 'missing') throw new PluginError(`${root} is not a marketplace: it has no ${MARKETPLACE_PATH}`)
  if (text === 'too-large') throw new PluginError(`${file} is over 8 MB`)
  let json: unknown
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    throw new PluginError(`${file}: invalid JSON (${(error as Error).message})`)
  }
  if (!isObject(json) || typeof json.name !== 'string' || !PLUGIN_NAME.test(json.name))
    throw new PluginError(`${file}: expected {"name": "…", "plugins": […]} with a lower-case name`)
  const pluginRoot =
    isObject(json.metadata) && typeof json.metadata.pluginRoot === 'string' ? json.metadata.pluginRoot : '.'
  const plugins: MarketplaceEntry[] = []
  for (const item of Array.isArray(json.plugins) ? json.plugins : []) {
    if (!isObject(item) || typeof item.name !== 'string') continue
    const base = {
      name: item.name,
      ...(typeof item.description === 'string' ? { description: item.description } : {}),
    }
    const source = item.source
    if (typeof source === 'string')
      plugins.push({
        ...base,
        installable: true,
        source: source.startsWith('./') || source.startsWith('../') ? source : join(pluginRoot, source),
      })
    else if (isObject(source) && source.source === 'url' && typeof source.url === 'string')
      plugins.push({ ...base, installable: true, source: source.url, pick: pickOf(source) })
    else if (isObject(source) && source.source === 'github' && typeof source.repo === 'string')
      plugins.push({
        ...base,
        installable: true,
        source: `https://github.com/${source.repo}.git`,
        pick: pickOf(source),
      })
    else if (
      isObject(source) &&
      source.source === 'git-subdir' &&
      typeof source.url === 'string' &&
      typeof source.path === 'string'
    )
      plugins.push({
        ...base,
        installable: true,
        source: source.url,
        pick: { ...pickOf(source), path: source.path },
      })
    else
      plugins.push({
        ...base,
        installable: false,
        why: `its source (${isObject(source) ? String(source.source) : typeof source}) is not one agent-tui installs; install it from its folder or git URL`,
      })
  }
  return { name: json.name, plugins }
}

/** A source's `ref` (branch or tag) and `sha` (the commit it pins). */
function pickOf(source: Record<string, unknown>): GitPick {
  return {
    ...(typeof source.ref === 'string' ? { ref: source.ref } : {}),
    ...(typeof source.sha === 'string' ? { sha: source.sha } : {}),
  }
}
