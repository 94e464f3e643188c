/**
 * Slash commands as one table: each command is one entry, and completion, `/help` and dispatch all read
 * the same entries. Built-in commands come first; loaders add theirs at runtime (user and project commands,
 * an MCP server's prompts) and remove them again. The table is created per app, never module state.
 */
import type { SubmitInput } from '../../agent/runtime/commands.js'
import type { State } from '../../store/state.js'
import type { CommandContext } from './command-context.js'

/** A candidate for the argument being typed, offered in the completion popup. */
export interface ArgumentCompletion {
  /** The whole argument text that accepting it puts after the command name. */
  value: string
  /** What the popup shows; defaults to `value`. */
  label?: string
  detail?: string
}

export interface SlashCommand {
  /** Lower-case, without the slash: a letter, then letters, digits, `-` and `_` (`mcp__github__review`). */
  name: string
  aliases?: readonly string[]
  /** Shown after the name in completion and `/help`: `<path> [question]`; `<…>` marks a required argument. */
  argumentHint?: string
  /** One line for completion and `/help`. */
  description: string
  /** Where the entry comes from, e.g. `user`, `project`, `mcp:github`; absent for built-in commands. */
  source?: string
  /**
   * Why the command cannot run now (a feature not built yet, no MCP connection…); null or absent when it
   * can. Shown instead of running it, and marked in completion and `/help`.
   */
  unavailable?(state: State): string | null
  /**
   * Candidates for the argument while it is typed (`partial`: the text after the name and one space).
   * Tab puts the candidate in; Enter puts it in and runs the command.
   */
  completeArguments?(partial: string, state: State): readonly ArgumentCompletion[]
  /**
   * For a command whose whole work is a message to the agent (`/init`, a user command): that message. The
   * TUI sends it; headless runs it as its prompt (`-p "/review src"`). May throw, like `run`.
   */
  prompt?(args: string): SubmitInput | Promise<SubmitInput>
  /**
   * Runs the command against the runtime commands and UI actions in `ctx`. `args` is the trimmed text
   * after the name. May throw: the table turns a failure into an error message above the prompt. A
   * command with only a `prompt` needs none: its message is sent.
   */
  run?(ctx: CommandContext, args: string): void | Promise<void>
}

export interface AddedCommands {
  /** Takes the entries out of the table again (a reloaded folder, a disconnected server). */
  remove(): void
  /** Entries not added because their name or an alias was already taken, with the name that clashed. */
  skipped: Array<{ command: SlashCommand; clash: string }>
}

export interface CommandTable {
  /** Every entry, in listing order: built-in first, then added ones in the order they were added. */
  list(): readonly SlashCommand[]
  /** The entry called `name` or with `name` as an alias (case-insensitive). */
  find(name: string): SlashCommand | undefined
  /** Entries whose name or an alias starts with the command name typed so far (`/co`); [] after a space. */
  complete(text: string): SlashCommand[]
  /** Adds entries at runtime; a name or alias already in the table keeps its first owner. */
  add(entries: readonly SlashCommand[]): AddedCommands
  /** Called whenever entries are added or removed (for `/help` and completion to re-read). */
  subscribe(listener: () => void): () => void
}

/** The most commands an "unknown command" message names. */
const MAX_NAMED = 30

export function createCommandTable(builtin: readonly SlashCommand[]): CommandTable {
  let entries: readonly SlashCommand[] = [...builtin]
  const byName = new Map<string, SlashCommand>()
  const listeners = new Set<() => void>()
  const namesOf = (c: SlashCommand) => [c.name, ...(c.aliases ?? [])].map((n) => n.toLowerCase())
  const changed = () => {
    for (const listener of [...listeners]) listener()
  }
  for (const command of entries)
    for (const name of namesOf(command)) if (!byName.has(name)) byName.set(name, command)
  return {
    list: () => entries,
    find: (name) => byName.get(name.toLowerCase()),
    complete(text) {
      // A plugin's commands are `plugin:name`, and plugin names may hold dots.
      const m = /^\/([\w.:-]*)$/.exec(text)
      if (!m) return []
      const prefix = (m[1] ?? '').toLowerCase()
      return entries.filter((c) => namesOf(c).some((n) => n.startsWith(prefix)))
    },
    add(added) {
      const accepted: SlashCommand[] = []
      const skipped: AddedCommands['skipped'] = []
      for (const command of added) {
        const clash = namesOf(command).find((n) => byName.has(n))
        if (clash !== undefined) {
          skipped.push({ command, clash })
          continue
        }
        for (const name of namesOf(command)) byName.set(name, command)
        accepted.push(command)
      }
      if (accepted.length > 0) {
        entries = [...entries, ...accepted]
        changed()
      }
      let removed = false
      return {
        skipped,
        remove() {
          if (removed || accepted.length === 0) return
          removed = true
          entries = entries.filter((c) => !accepted.includes(c))
          for (const command of accepted) for (const name of namesOf(command)) byName.delete(name)
          changed()
        },
      }
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}

/** "/mode auto" → {name: 'mode', args: 'auto'}; null for text that is not a command ("/usr/bin/env …"). */
export function parseSlash(text: string): { name: string; args: string } | null {
  // `plugin:name` is a plugin's command (docs/plugins.md).
  const m = /^\/((?:[a-z0-9][\w.-]*:)?[a-zA-Z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text.trim())
  if (!m) return null
  return { name: m[1] ?? '', args: (m[2] ?? '').trim() }
}

/** The usage line of `/help`: `/image <path> [question]`. */
export function commandUsage(command: SlashCommand): string {
  return `/${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ''}`
}

/** Whether Enter on the command's completion runs it at once: it needs no argument. */
export function runsOnEnter(command: SlashCommand): boolean {
  return !command.argumentHint?.startsWith('<')
}

/** Runs one slash command line against the table; never throws (failures become an error message). */
export async function runCommandLine(table: CommandTable, line: string, ctx: CommandContext): Promise<void> {
  const parsed = parseSlash(line)
  const command = parsed ? table.find(parsed.name) : undefined
  if (!parsed || !command) {
    const several = parsed ? namespacedAs(table, parsed.name) : []
    ctx.flash(
      several.length > 1
        ? `/${parsed?.name} is a command of more than one plugin: ${several.join(', ')}`
        : `Unknown command ${line.trim().split(/\s/)[0]} — type / to list commands`,
      'warn',
    )
    return
  }
  const unavailable = command.unavailable?.(ctx.getState())
  if (unavailable) {
    ctx.flash(`not available yet: /${command.name} — ${unavailable}`, 'warn')
    return
  }
  try {
    if (command.run) await command.run(ctx, parsed.args)
    else if (command.prompt) ctx.commands.submit(await command.prompt(parsed.args))
  } catch (error) {
    ctx.flash(`/${command.name} failed: ${error instanceof Error ? error.message : String(error)}`, 'error')
  }
}

/**
 * The argument candidates while `/name partial` is typed (cursor at the end), for commands that offer
 * them; null when the text is not that or the command offers none.
 */
export function argumentCompletions(
  table: CommandTable,
  text: string,
  state: State,
): { command: SlashCommand; candidates: readonly ArgumentCompletion[] } | null {
  const m = /^\/((?:[a-z0-9][\w.-]*:)?[a-zA-Z][\w-]*) ([^\n]*)$/.exec(text)
  const command = m ? table.find(m[1] ?? '') : undefined
  if (!command?.completeArguments) return null
  return { command, candidates: command.completeArguments(m?.[2] ?? '', state) }
}

/**
 * A slash line where no one can open the UI's overlays (headless `-p "/review src"`, a prompt given on the
 * command line): the message its command sends; an error for an unknown command or one that needs the
 * full-screen session; null when the line is no slash command at all (`/usr/bin/env …` is text).
 */
export async function promptOfLine(
  table: CommandTable,
  line: string,
  state: State,
): Promise<{ ok: true; input: SubmitInput } | { ok: false; message: string } | null> {
  const parsed = parseSlash(line)
  if (!parsed) return null
  const command = table.find(parsed.name)
  if (!command) {
    const several = namespacedAs(table, parsed.name)
    if (several.length > 1)
      return {
        ok: false,
        message: `/${parsed.name} is a command of more than one plugin: ${several.join(', ')}`,
      }
    const prompts = table
      .list()
      .filter((c) => c.prompt)
      .map((c) => `/${c.name}`)
    // A Claude Code collection brings hundreds: the start of the list, and how many more.
    const shown =
      prompts.length > MAX_NAMED
        ? [...prompts.slice(0, MAX_NAMED), `and ${prompts.length - MAX_NAMED} more`]
        : prompts
    return {
      ok: false,
      message: `unknown command /${parsed.name}; commands that run here: ${shown.join(', ')}`,
    }
  }
  const unavailable = command.unavailable?.(state)
  if (unavailable) return { ok: false, message: `/${command.name} is not available: ${unavailable}` }
  if (!command.prompt) {
    return {
      ok: false,
      message: `/${command.name} works in the full-screen session only; here give a prompt or a prompt command`,
    }
  }
  try {
    return { ok: true, input: await command.prompt(parsed.args) }
  } catch (error) {
    return {
      ok: false,
      message: `/${command.name} failed: ${error instanceof Error ? error.message : String(error)}`,
    }
  }
}

/** `/plugin:name` for each plugin with a command `name`: a bare name two plugins share is neither's. */
function namespacedAs(table: CommandTable, name: string): string[] {
  const suffix = `:${name.toLowerCase()}`
  return table
    .list()
    .filter((c) => c.name.toLowerCase().endsWith(suffix))
    .map((c) => `/${c.name}`)
}
