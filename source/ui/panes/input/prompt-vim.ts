/**
 * Where a key goes while vim mode is on (docs/tui.md#vim-mode). Insert mode is the prompt as without vim,
 * but for Esc, which goes to normal mode (and so never also interrupts the agent or clears the prompt).
 * In normal mode typed characters are vim's commands; Enter sends; the keys vim has no use for (arrows,
 * Tab, Ctrl+…) keep their meaning. Pure; the engine itself is loaded only with vim mode on.
 */
import type { CommandName } from '../../keys/bindings.js'
import type { PromptKey } from './prompt-types.js'
import type { VimKey, VimState } from './vim/vim-types.js'

export type VimRoute =
  /** The prompt takes the key as without vim mode (possibly a changed key, see `firstPress`). */
  | { kind: 'prompt'; key: PromptKey }
  /** Esc in insert mode; `after`: keys for normal mode right after it (Esc typed fast before them). */
  | { kind: 'leave'; after?: readonly VimKey[] }
  /** Enter in normal mode. */
  | { kind: 'submit' }
  /** Keys for the engine, in order (several when typing outran rendering). */
  | { kind: 'keys'; keys: readonly VimKey[] }

export function routeVimKey(vim: VimState, k: PromptKey, text: string): VimRoute {
  if (vim.mode === 'insert') {
    if (k.key.escape) return { kind: 'leave' }
    // Esc then a key within a few milliseconds reaches us as Alt+key (the terminal's Esc prefix), as in vim.
    if (k.key.meta && !k.key.ctrl && k.input.length === 1 && !META_BOUND.some((c) => k.has(c)))
      return { kind: 'leave', after: [k.input] }
    return { kind: 'prompt', key: k }
  }
  if (k.key.escape) {
    if (vim.pending.length > 0) return { kind: 'keys', keys: ['<esc>'] }
    return { kind: 'prompt', key: vim.leftInsert ? firstPress(k) : k }
  }
  if (k.has('input.submit')) return { kind: 'submit' }
  if (k.has('input.history.search')) return { kind: 'keys', keys: ['<c-r>'] }
  const typed = k.input !== '' && !k.key.ctrl && !k.key.meta && !k.key.tab && !k.key.return
  if (!typed) return { kind: 'prompt', key: k }
  // `?` on an empty prompt opens the keys overlay, as it does without vim mode.
  if (k.input === '?' && text === '' && vim.pending.length === 0) return { kind: 'prompt', key: k }
  return { kind: 'keys', keys: [...k.input] }
}

/** The prompt's own Alt+ keys, which keep their meaning in insert mode. */
const META_BOUND: readonly CommandName[] = [
  'input.wordLeft',
  'input.wordRight',
  'input.newline',
  'input.deleteWord',
  'input.submit',
]

/**
 * The Esc right after the one that left insert mode: for the prompt it is a first press, not the second
 * of Esc Esc (which would clear what was just typed). It still interrupts a running turn.
 */
function firstPress(k: PromptKey): PromptKey {
  if (!k.has('input.clear')) return k
  return { ...k, has: (command) => command !== 'input.clear' && k.has(command) }
}

const NO_MODIFIERS: PromptKey['key'] = { ctrl: false, meta: false, escape: false, tab: false, return: false }

/** A key that fires just `command`: how `j`/`k` at the edges reach the prompt's ↑/↓. */
export function keyFor(command: CommandName): PromptKey {
  return { input: '', key: NO_MODIFIERS, has: (c) => c === command, armed: { has: () => false } }
}
