import type { AppPaths } from '../../config/app-paths.js'
import type { ProjectTrust } from '../../config/project-trust.js'
import { type ClaudeCodePaths, extensionLayers, pickByName } from '../../config/claude-code.js'
import { loadCommandDir } from '../../extensions/command-files.js'
import { describeProblem } from '../../extensions/problems.js'
import type { CommandDefinition } from '../../extensions/types.js'
import type { StatusEntry } from '../../agent/runtime/commands.js'
import type { AddedCommands, CommandTable } from '../../ui/commands/command-table.js'
import { userCommandEntries } from '../../ui/commands/user-commands.js'
import type { InstructionReaders } from './instruction-readers.js'
import { type LayerLoad, layerEntries, layerLabel, loadLayers } from './extension-layers.js'

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
  /** A file that could not be used, or a name taken by a built-in command (`file: field: message`). */
  report(text: string, level: 'warn' | 'info'): void
  /** Where each folder stands, for `/status` (again after a trust answer). */
  record?(entries: StatusEntry[]): void
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
    const result = opts.table.add(userCommandEntries(current))
    added.push(result)
    for (const { command } of result.skipped) {
      const definition = current.find((c) => c.name === command.name)
      report(
        `${definition?.file ?? command.name}: /${command.name} is a built-in command; this file is left out (rename it)`,
        'warn',
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
  // Subscribed first: an answer given while the first load reads the folders is not missed.
  const unsubscribe = opts.trust?.subscribe((status) => load(status.trusted))
  await load(opts.trust?.mayLoad('command') === true)
  return {
    stop() {
      unsubscribe?.()
      for (const entries of added) entries.remove()
      added = []
    },
  }
}
