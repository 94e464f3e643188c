/**
 * Vim mode's keys as the keys overlay lists them while vim mode is on (docs/tui.md#vim-mode). Loaded with
 * the engine, never in a session without vim mode.
 */
export interface VimHelpRow {
  keys: string
  description: string
}

export const VIM_HELP_TITLE = 'Vim mode (the prompt; /vim turns it off)'
/** The overlay's title while the section is in: where to find it. */
export const VIM_HELP_HEADING = 'Keys and commands · vim mode on: its keys follow Input'

export const VIM_HELP: readonly VimHelpRow[] = [
  {
    keys: 'Esc',
    description: 'Insert mode → normal mode (never interrupts); in normal mode, as without vim',
  },
  { keys: 'i a I A', description: 'Insert before / after the cursor, at the line start / end' },
  { keys: 'o O', description: 'Open a line below / above' },
  { keys: 'Enter', description: 'Send (in both modes)' },
  { keys: 'h l j k', description: 'Left, right, down, up (k on the first line, j on the last: history)' },
  { keys: 'w b e W B E', description: 'Next word, word back, end of word (W B E: blank-separated words)' },
  { keys: '0 ^ $', description: 'Line start, first non-blank, line end' },
  { keys: 'gg G', description: 'First line, last line (3G: line 3)' },
  { keys: 'f F t T ; ,', description: 'To (or before) a character on the line; ; repeats, , goes back' },
  {
    keys: 'd c y + motion',
    description: 'Delete, change, yank over a motion (dw, c$, y2e) or a text object',
  },
  {
    keys: 'iw aw i" a" i( a(',
    description: "Text objects: word, quotes (also ' `), brackets (also [ { <, b B)",
  },
  { keys: 'dd cc yy', description: 'Delete, change, yank whole lines (2dd)' },
  { keys: 'D C', description: 'Delete, change to the line end' },
  { keys: 'x X s S', description: 'Delete the character under / before the cursor; change it / the line' },
  { keys: 'r', description: 'Replace the character under the cursor (3rx: three)' },
  { keys: 'p P', description: 'Put what was deleted or yanked after / before the cursor' },
  { keys: 'u Ctrl+R', description: 'Undo, redo' },
  { keys: 'J ~', description: 'Join lines; toggle case' },
  { keys: '.', description: 'Repeat the last change (with what it typed: cw…Esc)' },
  { keys: '3w d2w 2dd', description: 'A count before a command or a motion repeats it' },
  {
    keys: '[Pasted text #1]',
    description: 'A chip is one character: motions step over it, a change takes it whole',
  },
]
