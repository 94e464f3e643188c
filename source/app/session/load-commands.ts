import { join, relative } from 'node:path'
import type { AppPaths } from '../../config/app-paths.js'
import { type ProjectTrust, tildePath } from '../../config/project-trust.js'
import { type LoadedCommands, loadCommandDir } from '../../extensions/command-files.js'
import { describeProblem } from '../../extensions/problems.js'
import type { SubmitInput } from '../../agent/runtime/commands.js'
import type {
  CommandDefinition,
  ExtensionProblem,
  ExtensionScope,
  SkillDefinition,
} from '../../extensions/types.js'
import type { AddedCommands, CommandTable } from '../../ui/commands/command-table.js'
import { skillCommandEntries, userCommandEntries } from '../../ui/commands/user-commands.js'
import type { InstructionReaders } from './instruction-readers.js'
import type { EnabledPlugin } from '../../plugins/session-plugins.js'
import { PLUGIN_ROOT_VAR } from '../../plugins/plugin-basics.js'

export interface UserCommandOptions {
  table: CommandTable
  paths: AppPaths
  workspace: string
  home: string
  /** The folder's trust: project commands load only while it is trusted (none without it). */
  trust?: ProjectTrust
  /** The read boundary for the user's and the project's command files. */
  read: InstructionReaders
  /** The session's skills, each runnable as `/name` unless a command has the name. */
  skills?: SkillCommands
  /** The enabled plugins: their commands come as `/plugin:name` (and `/name` when no other has it). */
  plugins?: readonly EnabledPlugin[]
  /** A file that could not be used, or a name taken by a built-in command (`file: field: message`). */
  report(text: string, level: 'warn' | 'info'): void
}

/** The session's skills for the command table (see `Session.skills`). */
export interface SkillCommands {
  list(): readonly SkillDefinition[]
  /** Called after skills came or went (a trust answer). Returns stop. */
  subscribe(listener: () => void): () => void
  /** What `/name args` sends: the skill's instructions, then the arguments. */
  prompt(name: string, args: string): Promise<SubmitInput>
}

/**
 * Puts the user's commands (`$XDG_CONFIG_HOME/agent-tui/commands/`) and, in a trusted folder, the
 * project's (`.agent-tui/commands/`) into the table; a project command hides the user's of the same name
 * (as in Claude Code). When the user answers the trust prompt, the project's appear or go at once.
 * Resolves once the first load is in the table; `stop()` takes them all out again.
 */
export async function installUserCommands(opts: UserCommandOptions): Promise<{ stop(): void }> {
  const user = await loadScope(opts, 'user')
  const plugins = await loadPluginCommands(opts.plugins ?? [], opts)
  let project: LoadedCommands | null = null
  let added: AddedCommands[] = []
  const reported = new Set<string>()
  const report = (text: string, level: 'warn' | 'info') => {
    // A reload after a trust answer reports a file's problem only once.
    if (reported.has(text)) return
    reported.add(text)
    opts.report(text, level)
  }
  const apply = () => {
    for (const entries of added) entries.remove()
    added = []
    for (const loaded of [project, user]) {
      if (!loaded) continue
      for (const problem of loaded.problems)
        report(describeProblem(problem), problem.skipped ? 'warn' : 'info')
      const result = opts.table.add(userCommandEntries(loaded.commands))
      added.push(result)
      for (const { command, clash } of result.skipped) {
        const definition = loaded.commands.find((c) => c.name === command.name)
        // The project's command of the same name is meant to win; a built-in one is worth saying.
        if (loaded === user && project?.commands.some((c) => c.name.toLowerCase() === clash)) continue
        report(
          `${definition?.file ?? command.name}: /${command.name} is a built-in command; this file is left out (rename it)`,
          'warn',
        )
      }
    }
    for (const problem of plugins.problems)
      report(describeProblem(problem), problem.skipped ? 'warn' : 'info')
    const bare = new Map<string, number>()
    for (const c of plugins.commands) bare.set(c.bare, (bare.get(c.bare) ?? 0) + 1)
    const entries = userCommandEntries(plugins.commands.map((c) => c.definition)).map((entry, i) => {
      const { bare: name, plugin, definition } = plugins.commands[i] as PluginCommand
      const shown = {
        ...entry,
        description: `${definition.description} (plugin ${plugin})`,
        source: `plugin:${plugin}`,
      }
      // The bare name too when no other plugin has it and nothing in the table (built-in, user, project) does.
      return bare.get(name) === 1 && !opts.table.find(name) ? { ...shown, aliases: [name] } : shown
    })
    added.push(opts.table.add(entries))
    const skills = opts.skills
    if (!skills) return
    // After the commands: a command of the same name keeps `/name` (the skill still loads with the Skill tool).
    const result = opts.table.add(skillCommandEntries(skills.list(), skills.prompt))
    added.push(result)
    for (const { command } of result.skipped) {
      const skill = skills.list().find((s) => s.name === command.name)
      report(
        `${skill?.file ?? command.name}: /${command.name} is taken by a command; the skill is not runnable as /${command.name} (the agent can still load it)`,
        'info',
      )
    }
  }
  if (opts.trust?.mayLoad('command')) project = await loadScope(opts, 'project')
  apply()
  const unsubscribe = opts.trust?.subscribe(async (status) => {
    project = status.trusted ? await loadScope(opts, 'project') : null
    apply()
  })
  const unsubscribeSkills = opts.skills?.subscribe(apply)
  return {
    stop() {
      unsubscribe?.()
      unsubscribeSkills?.()
      for (const entries of added) entries.remove()
      added = []
    },
  }
}

function loadScope(opts: UserCommandOptions, scope: ExtensionScope): Promise<LoadedCommands> {
  const dir =
    scope === 'user' ? join(opts.paths.configDir, 'commands') : join(opts.workspace, '.agent-tui', 'commands')
  const label = (path: string) =>
    scope === 'user' ? tildePath(path, opts.home) : relative(opts.workspace, path) || path
  return loadCommandDir({ dir, scope, label, read: opts.read[scope] })
}

interface PluginCommand {
  /** The command's own name, without the plugin's. */
  bare: string
  plugin: string
  definition: CommandDefinition
}

/** Each plugin's commands, named `plugin:name`, with `${CLAUDE_PLUGIN_ROOT}` put in. */
async function loadPluginCommands(
  plugins: readonly EnabledPlugin[],
  opts: UserCommandOptions,
): Promise<{ commands: PluginCommand[]; problems: ExtensionProblem[] }> {
  const commands: PluginCommand[] = []
  const problems: ExtensionProblem[] = []
  for (const plugin of plugins) {
    for (const dir of plugin.manifest.commands) {
      const loaded = await loadCommandDir({
        dir,
        scope: 'user',
        label: (path) => `plugin ${plugin.name}: ${relative(plugin.root, path)}`,
        read: opts.read.user,
        rewrite: (text) => text.replaceAll(PLUGIN_ROOT_VAR, plugin.root),
      })
      problems.push(...loaded.problems)
      for (const definition of loaded.commands) {
        if (commands.some((c) => c.definition.name === `${plugin.name}:${definition.name}`)) continue
        commands.push({
          bare: definition.name,
          plugin: plugin.name,
          definition: { ...definition, name: `${plugin.name}:${definition.name}`, namespace: [plugin.name] },
        })
      }
    }
  }
  return { commands, problems }
}
