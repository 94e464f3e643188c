import type { ChatMessage, ToolMessage } from '../../store/messages.js'
import type { Action } from '../../store/actions.js'
import type { State } from '../../store/state.js'
import type { Assembled } from './options.js'
import type { OutputSpiller } from '../../tools/types.js'
import { placeholderMessage } from './masking.js'

/**
 * The placeholders masked tool results are sent as (docs/context.md#observation-masking), per message
 * object (the store never mutates one): each result is saved to a file once, and one that could not be
 * saved — or whose placeholder would be no shorter — is marked to stay whole.
 */
export class Placeholders {
  readonly #saved = new WeakMap<ChatMessage, ToolMessage>()
  readonly #whole = new WeakSet<ChatMessage>()
  #warned = false

  get(message: ChatMessage): ToolMessage | undefined {
    return this.#saved.get(message)
  }

  /** Saves the results at `indices` of the history that have no placeholder yet. Never throws. */
  async save(
    state: State,
    indices: Iterable<number>,
    spill: OutputSpiller,
    warn: (text: string) => void,
  ): Promise<void> {
    for (const index of indices) {
      const original = state.messages[index] as ToolMessage
      if (this.#saved.has(original) || this.#whole.has(original)) continue
      const id = state.context.messageIds[index] ?? ''
      const item = state.transcript.items[id]
      const hint = item?.kind === 'tool' ? item.name : 'tool-result'
      try {
        const path = await spill.spill(original.content, hint)
        const placeholder = placeholderMessage(original, path)
        if (placeholder.content.length < original.content.length) this.#saved.set(original, placeholder)
        else this.#whole.add(original)
      } catch (error) {
        // Without a file to restore it from, a result must stay whole.
        this.#whole.add(original)
        if (!this.#warned) {
          this.#warned = true
          warn(
            `could not save a tool result for masking (${error instanceof Error ? error.message : String(error)}); such results stay in the context whole`,
          )
        }
      }
    }
  }
}

/**
 * Marks the transcript's tool cards the request shows as placeholders, and unmarks ones shown whole
 * again. `marked`: the cards marked so far (null: read them from the transcript). Returns the new set.
 */
export function syncMaskMarks(
  state: State,
  marked: Set<string> | null,
  assembled: Assembled,
  dispatch: (action: Action) => void,
): Set<string> {
  const set = marked ?? new Set<string>()
  if (!marked) {
    for (const id of state.transcript.order) {
      const item = state.transcript.items[id]
      if (item?.kind === 'tool' && item.masked) set.add(id)
    }
  }
  const ids = state.context.messageIds
  const masked: string[] = []
  const unmasked: string[] = []
  for (const entry of assembled.entries) {
    const id = entry.source >= 0 ? ids[entry.source] : undefined
    if (!id) continue
    if (entry.role === 'masked' && !set.has(id)) masked.push(id)
    else if (entry.role !== 'masked' && set.has(id)) unmasked.push(id)
  }
  if (masked.length === 0 && unmasked.length === 0) return set
  for (const id of masked) set.add(id)
  for (const id of unmasked) set.delete(id)
  dispatch({ type: 'context/masked', masked, unmasked })
  return set
}
