import { lstat, readFile, realpath } from 'node:fs/promises'
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path'

/**
 * A plugin in Claude Code's format (docs/plugins.md): a folder with `.claude-plugin/plugin.json` and any
 * of `commands/`, `agents/`, `skills/`, `hooks/hooks.json` and `.mcp.json` at its root. The manifest may
 * name more places for each (`"commands": ["./extra"]`, supplementing the defaults) and give `hooks` and
 * `mcpServers` inline. Every path stays inside the plugin's folder, symlinks resolved.
 */

/** Lower-case letters, digits, `-`, `_` and `.`; it names a folder, a command namespace and MCP servers. */
export const PLUGIN_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/

export const MANIFEST_PATH = join('.claude-plugin', 'plugin.json')

export { PLUGIN_ROOT_VAR } from './plugin-basics.js'

/** Where a kind of component is found: a folder or file of the plugin, or an inline value of the manifest. */
export type ComponentSource =
  | { kind: 'path'; path: string; shown: string }
  | { kind: 'inline'; value: unknown }

export interface PluginManifest {
  name: string
  version?: string
  description?: string
  author?: string
  /** Folders (or single `.md` files) of commands, agents, skills: the default one first. */
  commands: string[]
  agents: string[]
  skills: string[]
  hooks: ComponentSource[]
  mcpServers: ComponentSource[]
}

export type ManifestRead =
  | { ok: true; manifest: PluginManifest; warnings: string[] }
  | { ok: false; error: string }

const MAX_MANIFEST_BYTES = 256 * 1024

/**
 * Reads the plugin at `root` (a real path). Without a manifest the folder is still a plugin when it holds
 * one of the default component places; its name is then the folder's (as Claude Code does).
 */
export async function readPluginManifest(root: string): Promise<ManifestRead> {
  const warnings: string[] = []
  const file = join(root, MANIFEST_PATH)
  let json: Record<string, unknown> = {}
  const text = await readSmall(file)
  if (text === 'missing') {
    if (!(await hasDefaultComponents(root)))
      return {
        ok: false,
        error: `${root} is not a plugin: it has no ${MANIFEST_PATH} (nor commands/, agents/, skills/, hooks/hooks.json or .mcp.json)`,
      }
  } else if (text === 'too-large') return { ok: false, error: `${MANIFEST_PATH} is over 256 KB` }
  else {
    try {
      const parsed: unknown = JSON.parse(text.replace(/^\uFEFF/, ''))
      if (!isObject(parsed)) return { ok: false, error: `${MANIFEST_PATH}: expected a JSON object` }
      json = parsed
    } catch (error) {
      return { ok: false, error: `${MANIFEST_PATH}: invalid JSON (${(error as Error).message})` }
    }
  }
  const name = json.name === undefined ? basename(root).toLowerCase() : json.name
  if (typeof name !== 'string' || !PLUGIN_NAME.test(name))
    return {
      ok: false,
      error: `${MANIFEST_PATH}: "name" ${JSON.stringify(name)} is not a plugin name (lower-case letters, digits, "-", "_" and ".", at most 64)`,
    }
  const paths = async (key: 'commands' | 'agents' | 'skills', fallback: string) => {
    const out = [join(root, fallback)]
    for (const item of listOf(json[key], key, warnings)) {
      const at = await insidePath(root, item, `"${key}"`, warnings)
      if (at && !out.includes(at)) out.push(at)
    }
    return out
  }
  const sources = async (key: 'hooks' | 'mcpServers', fallback: string): Promise<ComponentSource[]> => {
    const out: ComponentSource[] = [{ kind: 'path', path: join(root, fallback), shown: fallback }]
    const value = json[key]
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      if (isObject(item)) out.push({ kind: 'inline', value: item })
      else if (typeof item === 'string') {
        const at = await insidePath(root, item, `"${key}"`, warnings)
        if (at && !out.some((s) => s.kind === 'path' && s.path === at))
          out.push({ kind: 'path', path: at, shown: relative(root, at) })
      } else warnings.push(`${MANIFEST_PATH}: "${key}": expected a path ("./…") or an object; ignored`)
    }
    return out
  }
  const author = json.author
  return {
    ok: true,
    manifest: {
      name,
      ...(typeof json.version === 'string' ? { version: json.version } : {}),
      ...(typeof json.description === 'string' ? { description: json.description } : {}),
      ...(typeof author === 'string'
        ? { author }
        : isObject(author) && typeof author.name === 'string'
          ? { author: author.name }
          : {}),
      commands: await paths('commands', 'commands'),
      agents: await paths('agents', 'agents'),
      skills: await paths('skills', 'skills'),
      hooks: await sources('hooks', join('hooks', 'hooks.json')),
      mcpServers: await sources('mcpServers', '.mcp.json'),
    },
    warnings,
  }
}

function listOf(value: unknown, key: string, warnings: string[]): string[] {
  if (value === undefined) return []
  const items = Array.isArray(value) ? value : [value]
  const strings = items.filter((v): v is string => typeof v === 'string')
  if (strings.length !== items.length)
    warnings.push(`${MANIFEST_PATH}: "${key}": expected paths ("./…"); others ignored`)
  return strings
}

/**
 * `./x` inside the plugin, symlinks resolved; undefined (with a warning) for an absolute path, one that
 * climbs out, or a link that leads out. A path that does not exist is simply nothing to load.
 */
async function insidePath(
  root: string,
  path: string,
  key: string,
  warnings: string[],
): Promise<string | undefined> {
  const refuse = (why: string) => {
    warnings.push(`${MANIFEST_PATH}: ${key} ${JSON.stringify(path)} ${why}; ignored`)
    return undefined
  }
  if (isAbsolute(path) || path.includes('\\')) return refuse('must be relative to the plugin ("./…")')
  const lexical = resolve(root, path)
  if (!within(root, lexical)) return refuse('leads out of the plugin')
  const real = await realpath(lexical).catch(() => undefined)
  if (real === undefined) return lexical
  return within(root, real) ? real : refuse('is a link out of the plugin')
}

export function within(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}

async function hasDefaultComponents(root: string): Promise<boolean> {
  for (const name of ['commands', 'agents', 'skills', join('hooks', 'hooks.json'), '.mcp.json']) {
    if (
      await lstat(join(root, name)).then(
        () => true,
        () => false,
      )
    )
      return true
  }
  return false
}

/** A small file's text; 'missing' when there is none (or it is not a regular file). */
export async function readSmall(
  path: string,
  max = MAX_MANIFEST_BYTES,
): Promise<string | 'missing' | 'too-large'> {
  const info = await lstat(path).catch(() => undefined)
  if (!info?.isFile()) return 'missing'
  if (info.size > max) return 'too-large'
  return readFile(path, 'utf8').catch(() => 'missing' as const)
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
