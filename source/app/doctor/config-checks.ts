import { join, relative } from 'node:path'
import type { AppPaths } from '../../config/app-paths.js'
import { credentialsPath, storedKeyUrls } from '../../config/credentials.js'
import type { LoadedSettings } from '../../config/load.js'
import { type ProjectTrust, tildePath } from '../../config/project-trust.js'
import type { ResolvedConfig } from '../../config/resolve-config.js'
import { loadCommandDir } from '../../extensions/command-files.js'
import { describeProblem } from '../../extensions/problems.js'
import { loadSkillDir } from '../../extensions/skill-files.js'
import type { ExtensionProblem } from '../../extensions/types.js'
import { readMcpJson } from '../../mcp/server-specs.js'
import { boundaryReaders } from '../session/instruction-readers.js'
import type { Check } from './report.js'

/**
 * This folder's trust, and every configuration file and extension found, with counts and what their
 * loaders reported (docs/troubleshooting.md#doctor). What the repository brings is counted as it applies
 * now: an untrusted folder's own commands, skills and `.mcp.json` are named, not loaded.
 */
export function trustCheck(trust: ProjectTrust, brought: number): Check {
  const status = trust.status()
  const base = { id: 'trust', title: 'Folder trust', essential: false }
  const what =
    brought === 0
      ? 'it brings no configuration'
      : `it brings ${brought} item${brought === 1 ? '' : 's'} of configuration`
  if (status.trusted)
    return {
      ...base,
      status: 'ok',
      detail: `${trust.folder} is trusted (${status.source === 'flag' ? '--trust-project' : 'remembered'}); ${what}`,
    }
  if (status.source === 'changed')
    return {
      ...base,
      status: 'warn',
      detail: `${trust.folder} was trusted, but its configuration changed since: ${what}, off until asked again`,
      lines: status.changes ?? [],
      fix: 'start agent-tui here and answer the trust prompt',
    }
  return {
    ...base,
    status: brought === 0 ? 'ok' : 'warn',
    detail: `${trust.folder} is not trusted; ${what}${brought === 0 ? '' : ', off until you trust it'}`,
    ...(brought === 0
      ? {}
      : { fix: 'start agent-tui here and answer the trust prompt (or pass --trust-project)' }),
  }
}

export interface ConfigCheckInput {
  paths: AppPaths
  workspace: string
  home: string
  loaded: LoadedSettings
  config: ResolvedConfig
  trusted: boolean
}

export async function configChecks(input: ConfigCheckInput): Promise<Check[]> {
  const { loaded, config, home, workspace, paths } = input
  const show = (path: string) =>
    path.startsWith(`${workspace}/`) ? relative(workspace, path) : tildePath(path, home)
  const files = loaded.sources.map((s) => `${s.exists ? 'found  ' : 'absent '} ${show(s.path)} (${s.scope})`)
  // The keys themselves are never shown: only which base URLs have one.
  const keyed = storedKeyUrls(paths)
  if (keyed.length > 0) files.push(`found   ${show(credentialsPath(paths))} (keys for ${keyed.join(', ')})`)
  const settings: Check = {
    id: 'settings',
    title: 'Settings',
    status: config.warnings.length > 0 ? 'warn' : 'ok',
    detail: `${loaded.sources.filter((s) => s.exists).length} of ${loaded.sources.length} settings files found${config.warnings.length ? `, ${config.warnings.length} warning${config.warnings.length === 1 ? '' : 's'}` : ''}`,
    lines: [...files, ...config.warnings.map((w) => `warning: ${w}`)],
    essential: true,
  }
  const readers = boundaryReaders({
    workspace,
    home,
    additionalDirs: [],
    config,
    appDirs: [paths.configDir],
  })
  const problems: ExtensionProblem[] = []
  const scopes = input.trusted ? (['user', 'project'] as const) : (['user'] as const)
  let commands = 0
  let skills = 0
  for (const scope of scopes) {
    const root = scope === 'user' ? paths.configDir : join(workspace, '.agent-tui')
    const label = (p: string) => show(p)
    const loadedCommands = await loadCommandDir({
      dir: join(root, 'commands'),
      scope,
      label,
      read: readers[scope],
    })
    const loadedSkills = await loadSkillDir({ dir: join(root, 'skills'), scope, label, read: readers[scope] })
    commands += loadedCommands.commands.length
    skills += loadedSkills.skills.length
    problems.push(...loadedCommands.problems, ...loadedSkills.problems)
  }
  const mcpJson = input.trusted ? await readMcpJson(workspace) : { servers: {}, warnings: [] }
  const mcp = Object.keys(config.settings.mcpServers ?? {}).length + Object.keys(mcpJson.servers).length
  const hooks = config.hooks.hooks.length
  const notes = [...problems.map((p) => describeProblem(p)), ...mcpJson.warnings, ...config.hooks.warnings]
  const counts = `${commands} command${commands === 1 ? '' : 's'}, ${skills} skill${skills === 1 ? '' : 's'}, ${mcp} MCP server${mcp === 1 ? '' : 's'}, ${hooks} hook${hooks === 1 ? '' : 's'}${config.hooks.disabledBy ? ` (all off: ${config.hooks.disabledBy})` : ''}`
  const extensions: Check = {
    id: 'extensions',
    title: 'Extensions',
    status: notes.length > 0 ? 'warn' : 'ok',
    detail: `${counts}${input.trusted ? '' : " (the folder's own are not counted: it is not trusted)"}`,
    lines: notes,
    ...(notes.length > 0 ? { fix: 'each problem names its file: fix or remove it' } : {}),
    essential: false,
  }
  return [settings, extensions]
}
