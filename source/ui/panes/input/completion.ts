import type { State } from '../../../store/state.js'
import { argumentCompletions, type CommandTable, runsOnEnter } from '../../commands/command-table.js'
import type { EditorState } from './editor-state.js'
import type { PathCandidate } from './path-complete.js'

export interface CompletionItem {
  kind: 'slash' | 'argument' | 'path'
  /** What the popup shows. */
  label: string
  detail: string
  /** Slash: command name; argument: the whole command line it makes; path: the path after "@". */
  value: string
  /** Slash commands that take no required argument, and argument candidates, run on Enter. */
  runsOnEnter: boolean
  isDir: boolean
}

/** Completion entries for text that starts with "/": command names, or a command's argument candidates. */
export type SlashCompleter = (text: string) => readonly CompletionItem[]

const NONE: readonly CompletionItem[] = []

/** The command table's entries for the typed command name, or the typed command's argument candidates. */
export function slashCompleter(table: CommandTable, getState: () => State): SlashCompleter {
  return (text) => {
    const named = table.complete(text)
    if (named.length > 0) {
      const state = getState()
      return named.map((c) => ({
        kind: 'slash',
        label: `/${c.name}${c.aliases?.length ? ` (/${c.aliases.join(', /')})` : ''}`,
        detail: `${c.argumentHint ? `${c.argumentHint}  ` : ''}${c.description}${c.unavailable?.(state) ? ' (not available yet)' : ''}`,
        value: c.name,
        runsOnEnter: runsOnEnter(c),
        isDir: false,
      }))
    }
    const args = argumentCompletions(table, text, getState())
    if (!args) return NONE
    return args.candidates.map((a) => ({
      kind: 'argument',
      label: a.label ?? a.value,
      detail: a.detail ?? '',
      value: `/${args.command.name} ${a.value}`,
      runsOnEnter: true,
      isDir: false,
    }))
  }
}

/**
 * Popup entries for the prompt: slash commands (or their arguments) while a command is typed, else the
 * `@path` candidates once the listing for the current mention has arrived. Empty while searching or dismissed.
 */
export function completionItems(opts: {
  editor: EditorState
  searching: boolean
  dismissedAt: string | null
  mentionQuery: string | null
  paths: { query: string; items: readonly PathCandidate[] }
  slash: SlashCompleter
}): readonly CompletionItem[] {
  const { editor, mentionQuery, paths } = opts
  const { text, cursor } = editor
  if (opts.searching || opts.dismissedAt === text) return NONE
  if (text.startsWith('/') && cursor === text.length) return opts.slash(text)
  if (mentionQuery !== null && paths.query === mentionQuery) {
    return paths.items.map((p) => ({
      kind: 'path',
      label: `@${p.value}`,
      detail: p.isDir ? 'directory' : '',
      value: p.value,
      runsOnEnter: false,
      isDir: p.isDir,
    }))
  }
  return NONE
}
