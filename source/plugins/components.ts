import { readdir } from 'node:fs/promises'
import { basename, join, relative } from 'node:path'
import { type McpServerSettings, mcpServerSchema } from '../config/schema.js'
import { type HooksSettings, hooksSettingsSchema } from '../user-hooks/hook-settings.js'
import { type ComponentSource, isObject, type PluginManifest, readSmall } from './manifest.js'

/**
 * What one plugin brings, read from its folder: the names of its commands, agents and skills, and its
 * hooks and MCP servers as settings (still with `${CLAUDE_PLUGIN_ROOT}` in them). Used both to say what
 * a plugin brings before it is enabled and to load an enabled one into a session.
 */

export interface PluginComponents {
  /** Command names (the file names below each commands folder, without `.md`). */
  commands: string[]
  agents: string[]
  skills: string[]
  hooks: HooksSettings
  mcpServers: Record<string, McpServerSettings>
  /** `file: message` for what could not be used. */
  problems: string[]
}

const MAX_FILES = 200

export async function readComponents(root: string, manifest: PluginManifest): Promise<PluginComponents> {
  const problems: string[] = []
  const commands: string[] = []
  for (const dir of manifest.commands) commands.push(...(await markdownNames(dir)))
  const agents: string[] = []
  for (const dir of manifest.agents) agents.push(...(await markdownNames(dir)))
  const skills: string[] = []
  for (const dir of manifest.skills) {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
    for (const entry of entries.slice(0, MAX_FILES))
      if (entry.isDirectory() && (await readSmall(join(dir, entry.name, 'SKILL.md'))) !== 'missing')
        skills.push(entry.name)
  }
  const hooks: HooksSettings = {}
  for (const source of manifest.hooks) {
    const value = await componentValue(root, source, problems)
    if (value === undefined) continue
    // hooks/hooks.json wraps the events in "hooks" (beside a "description"); inline ones may not.
    const events = isObject(value) && isObject(value.hooks) ? value.hooks : value
    const parsed = hooksSettingsSchema.safeParse(events)
    if (!parsed.success) {
      problems.push(
        `${shown(source)}: not hooks in Claude Code's format (${parsed.error.issues[0]?.message ?? 'invalid'})`,
      )
      continue
    }
    for (const [event, groups] of Object.entries(parsed.data))
      hooks[event] = [...(hooks[event] ?? []), ...groups]
  }
  const mcpServers: Record<string, McpServerSettings> = {}
  for (const source of manifest.mcpServers) {
    const value = await componentValue(root, source, problems)
    if (value === undefined) continue
    const servers = isObject(value) && isObject(value.mcpServers) ? value.mcpServers : value
    if (!isObject(servers)) {
      problems.push(`${shown(source)}: expected {"mcpServers": {name: server}}`)
      continue
    }
    for (const [name, server] of Object.entries(servers)) {
      const parsed = mcpServerSchema.safeParse(server)
      if (parsed.success) mcpServers[name] = parsed.data
      else
        problems.push(
          `${shown(source)}: server ${name}: ${parsed.error.issues[0]?.message ?? 'invalid'}; left out`,
        )
    }
  }
  return { commands, agents, skills, hooks, mcpServers, problems }
}

function shown(source: ComponentSource): string {
  return source.kind === 'path' ? source.shown : '.claude-plugin/plugin.json'
}

async function componentValue(root: string, source: ComponentSource, problems: string[]): Promise<unknown> {
  if (source.kind === 'inline') return source.value
  const text = await readSmall(source.path)
  if (text === 'missing') return undefined
  if (text === 'too-large') {
    problems.push(`${relative(root, source.path)}: over 256 KB; ignored`)
    return undefined
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    problems.push(`${relative(root, source.path)}: invalid JSON (${(error as Error).message}); ignored`)
    return undefined
  }
}

/** `*.md` names below `dir` (subfolders group them), or the file itself when `dir` is one `.md` file. */
async function markdownNames(dir: string): Promise<string[]> {
  if (dir.endsWith('.md')) return (await readSmall(dir)) === 'missing' ? [] : [basename(dir, '.md')]
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.md') && e.name.toLowerCase() !== 'readme.md')
    .slice(0, MAX_FILES)
    .map((e) => basename(e.name, '.md'))
    .sort()
}

/** Lines saying what a plugin brings, for `plugin add`, `plugin enable` and `plugin list`. */
export function describeComponents(name: string, c: PluginComponents): string[] {
  const lines: string[] = []
  const list = (label: string, items: string[]) => {
    if (items.length) lines.push(`  ${label}: ${items.join(', ')}`)
  }
  list(
    'commands',
    c.commands.map((command) => `/${name}:${command}`),
  )
  list('agents', c.agents)
  list(
    'skills',
    c.skills.map((skill) => `${name}:${skill}`),
  )
  for (const [event, groups] of Object.entries(c.hooks))
    for (const group of groups)
      for (const hook of group.hooks)
        if (hook.command)
          lines.push(
            `  hook ${event}${group.matcher ? ` (${group.matcher})` : ''}: ${hook.command} — runs outside the sandbox`,
          )
  for (const [server, settings] of Object.entries(c.mcpServers))
    lines.push(
      `  MCP server ${server}: ${'command' in settings ? [settings.command, ...(settings.args ?? [])].join(' ') : settings.url}`,
    )
  for (const problem of c.problems) lines.push(`  problem: ${problem}`)
  if (lines.length === 0)
    lines.push('  nothing agent-tui loads (no commands, agents, skills, hooks or MCP servers)')
  return lines
}
