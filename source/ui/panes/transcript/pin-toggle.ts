import type { RuntimeCommands } from '../../../agent/runtime/commands.js'
import { itemLabel } from '../../../store/pins.js'
import type { TranscriptItem } from '../../../store/state.js'
import type { Flash } from '../../shell-context.js'

/** Ctrl+P: pins (or unpins) the lowest message or tool card on screen; the line to show says what happened. */
export function togglePin(
  item: TranscriptItem | undefined,
  commands: Pick<RuntimeCommands, 'setPinned'>,
): Flash {
  if (!item || item.kind === 'notice' || item.kind === 'hook')
    return { text: 'Nothing to pin on screen: scroll to a message or tool card', level: 'info' }
  const pinned = !item.pinned
  const why = commands.setPinned(item.id, pinned)
  return why
    ? { text: `Cannot pin: ${why}`, level: 'warn' }
    : {
        text: `${pinned ? 'Pinned' : 'Unpinned'}: ${itemLabel(item, 40)}${pinned ? ' — kept verbatim in the context' : ''}`,
        level: 'info',
      }
}
