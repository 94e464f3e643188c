/**
 * `/vim [on|off]`: vim mode for the prompt (docs/tui.md#vim-mode). The mode changes at once; it is saved
 * as `editorMode` in the user's settings file, as Claude Code's `/vim` keeps it, so it holds for the next
 * sessions too. A save that fails says why, and the mode still holds for this session.
 */
import { homedir } from 'node:os'
import type { EditorMode } from '../../store/state.js'
import type { CommandContext } from './command-context.js'
import type { SlashCommand } from './command-table.js'

export const VIM_COMMAND: SlashCommand = {
  name: 'vim',
  argumentHint: '[on|off]',
  description: 'Vim mode for the prompt on or off (Esc: normal mode, i: insert); saved in your settings',
  completeArguments: (partial) =>
    [
      { value: 'on', detail: 'vim mode' },
      { value: 'off', detail: 'the plain prompt' },
    ].filter((c) => c.value.startsWith(partial)),
  run: vimCommand,
}

export async function vimCommand(ctx: CommandContext, args: string): Promise<void> {
  const arg = args.trim()
  const now = ctx.getState().ui.editorMode
  const mode: EditorMode | null =
    arg === 'on' ? 'vim' : arg === 'off' ? 'normal' : arg === '' ? (now === 'vim' ? 'normal' : 'vim') : null
  if (!mode) {
    ctx.flash('Usage: /vim [on|off] (no argument toggles it)', 'warn')
    return
  }
  ctx.setEditorMode(mode)
  const said =
    mode === 'vim'
      ? 'Vim mode on: Esc for normal mode, i to insert; Enter sends in both; ? lists the keys'
      : 'Vim mode off'
  try {
    const file = await ctx.commands.saveEditorMode(mode)
    ctx.flash(`${said} (saved in ${tilde(file)})`)
  } catch (err) {
    ctx.flash(`${said} for this session; not saved: ${(err as Error).message}`, 'warn')
  }
}

function tilde(path: string): string {
  const home = homedir()
  return home && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path
}
