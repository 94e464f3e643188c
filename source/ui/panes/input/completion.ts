import type { EditorState } from './editor-state.js'
import type { PathCandidate } from './path-complete.js'
import { completeSlash } from './slash-commands.js'

export interface CompletionItem {
  kind: 'slash' | 'path'
  /** What the popup shows. */
  label: string
  detail: string
  /** Slash: command name; path: the path after "@". */
  value: string
  /** Slash commands that take no required argument run on Enter. */
  runsOnEnter: boolean
  isDir: boolean
}

/**
 * Popup entries for the prompt: slash commands while the command name is typed, else the `@path`
 * candidates once the listing for the current mention has arrived. Empty while searching or dismissed.
 */
export function completionItems(opts: {
  editor: EditorState
  searching: boolean
  dismissedAt: string | null
  mentionQuery: string | null
  pathItems: { query: string; items: PathCandidate[] }
}): CompletionItem[] {
  const { editor, mentionQuery, pathItems } = opts
  const { text, cursor } = editor
  if (opts.searching || opts.dismissedAt === text) return []
  if (text.startsWith('/') && cursor === text.length) {
    return completeSlash(text).map((c) => ({
      kind: 'slash',
      label: `/${c.name}${c.aliases.length ? ` (/${c.aliases.join(', /')})` : ''}`,
      detail: `${c.args ? `${c.args}  ` : ''}${c.description}${c.unavailable ? ' (not available yet)' : ''}`,
      value: c.name,
      runsOnEnter: !c.args.startsWith('<') && !c.args.startsWith('add'),
      isDir: false,
    }))
  }
  if (mentionQuery !== null && pathItems.query === mentionQuery) {
    return pathItems.items.map((p) => ({
      kind: 'path',
      label: `@${p.value}`,
      detail: p.isDir ? 'directory' : '',
      value: p.value,
      runsOnEnter: false,
      isDir: p.isDir,
    }))
  }
  return []
}
