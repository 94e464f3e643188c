import { relative } from 'node:path'
import type { AppPaths } from '../../config/app-paths.js'
import type { ProjectTrust } from '../../config/project-trust.js'
import { type ClaudeCodePaths, extensionLayers, pickByName } from '../../config/claude-code.js'
import { loadCommandDir } from '../../extensions/command-files.js'
import { describeProblem } from '../../extensions/problems.js'
import type { StatusEntry, SubmitInput } from '../../agent/runtime/commands.js'
import type { CommandDefinition, ExtensionProblem, SkillDefinition } from '../../extensions/types.js'
import type { AddedCommands, CommandTable } from '../../ui/commands/command-table.js'
import { skillCommandEntries, userCommandEntries } from '../../ui/commands/user-commands.js'
import type { InstructionReaders } from './instruction-readers.js'
import { type LayerLoad, layerEntries, layerLabel, loadLayers } from './extension-layers.js'
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
  /** Claude Code's places (`.claude/commands`, `~/.claude/commands`), or null when they are not read. */
  claude?: ClaudeCodePaths | null
  /** The session's skills, each runnable as `/name` unless a command has the name. */
  skills?: SkillCommands
  /** The enabled plugins: their commands come as `/plugin:name` (and `/name` when no other has it). */
  plugins?: readonly EnabledPlugin[]
  /** A file that could not be used, or a name taken by a built-in command (`file: field: message`). */
  report(text: string, level: 'warn' | 'info'): void
  /** Where each folder stands, for `/status` (again after a trust answer). */
  record?(entries: StatusEntry[]): void
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
 * Puts the commands of every folder into the table: agent-tui's (`.agent-tui/commands/`, the user's
 * `$XDG_CONFIG_HOME/agent-tui/commands/`) and Claude Code's (`.claude/commands/`, `~/.claude/commands/`),
 * the project's only in a trusted folder. One command per name, the first folder's
 * (config/claude-code.ts extensionLayers). When the user answers the trust prompt, the project's appear
 * or go at once. Resolves once the first load is in the table; `stop()` takes them all out again.
 */
export async function installUserCommands(opts: UserCommandOptions): Promise<{ stop(): void }> {
  const layers = extensionLayers('commands', {
    workspace: opts.workspace,
    configDir: opts.paths.configDir,
    claude: opts.claude ?? null,
  })
  /** The commands in use now: one per name, the first folder's. */
  let current: CommandDefinition[] = []
  const plugins = await loadPluginCommands(opts.plugins ?? [], opts)
  let added: AddedCommands[] = []
  const reported = new Set<string>()
  const report = (text: string, level: 'warn' | 'info') => {
    // A reload after a trust answer reports a file's problem only once.
    if (reported.has(text)) return
    reported.add(text)
    opts.report(text, level)
  }
  /** Puts `current` into the table again (after a trust answer changed it). */
  const apply = () => {
    for (const entries of added) entries.remove()
    added = []
    const own = opts.table.add(userCommandEntries(current))
    added.push(own)
    for (const { command } of own.skipped) {
      const definition = current.find((c) => c.name === command.name)
      report(
        `${definition?.file ?? command.name}: /${command.name} is a built-in command; this file is left out (rename it)`,
        'warn',
      )
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
  /** Bumped on every load: a slow load for an older trust answer is dropped. */
  let generation = 0
  const load = async (trusted: boolean) => {
    const mine = ++generation
    const loads: Array<LayerLoad<CommandDefinition>> = await loadLayers(layers, trusted, async (layer) => {
      const loaded = await loadCommandDir({
        dir: layer.dir,
        scope: layer.scope,
        label: (path) => layerLabel(path, opts.workspace, opts.home),
        read: opts.read[layer.scope],
      })
      return { items: loaded.commands, problems: loaded.problems }
    })
    if (mine !== generation) return
    for (const problem of loads.flatMap((l) => l.problems))
      report(describeProblem(problem), problem.skipped ? 'warn' : 'info')
    const { kept, hidden } = pickByName(
      loads.flatMap((l) => l.items.map((item) => ({ item, layer: l.layer, file: item.file }))),
      (name) => `/${name}`,
    )
    for (const h of hidden) report(`${h.file}: ${h.message}`, 'info')
    current = kept
    apply()
    opts.record?.(layerEntries(loads, 'command', opts.workspace, opts.home))
  }
  const unsubscribeSkills = opts.skills?.subscribe(apply)
  // Subscribed first: an answer given while the first load reads the folders is not missed.
  const unsubscribe = opts.trust?.subscribe((status) => load(status.trusted))
  await load(opts.trust?.mayLoad('command') === true)
  return {
    stop() {
      unsubscribe?.()
      unsubscribeSkills?.()
      for (const entries of added) entries.remove()
      added = []
    },
  }
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
