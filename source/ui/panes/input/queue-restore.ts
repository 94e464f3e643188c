/**
 * Queued messages taken back into the prompt (↑ on an empty prompt, or an interrupt): their text goes
 * before the draft, their images become `[Image #N]` chips of this prompt again. Pure.
 */
import type { SubmitInput } from '../../../agent/runtime/commands.js'
import type { ImageAttachment } from '../../../agent/runtime/commands.js'
import { imageChip } from './chips.js'
import { editorReducer, EMPTY_EDITOR } from './editor-state.js'

export interface RestorableState {
  readonly editor: { readonly text: string }
  readonly images: ReadonlyMap<number, ImageAttachment>
  readonly imageCount: number
}

const IMAGE_CHIP = /\[Image #\d+\]/g

/** `inputs` oldest first. The chips a message was sent with are renumbered in the order they appear. */
export function restoreQueued<S extends RestorableState>(state: S, inputs: readonly SubmitInput[]): S {
  if (inputs.length === 0) return state
  let count = state.imageCount
  const images = new Map(state.images)
  const texts: string[] = []
  for (const input of inputs) {
    const pending = [...(input.images ?? [])]
    let text = input.text.replace(IMAGE_CHIP, (chip) => {
      const image = pending.shift()
      if (!image) return chip
      count += 1
      images.set(count, image)
      return imageChip(count)
    })
    // Images whose chip was edited away before sending still belong to the message.
    for (const image of pending) {
      count += 1
      images.set(count, image)
      text = `${text} ${imageChip(count)}`
    }
    texts.push(text)
  }
  const joined = [...texts, state.editor.text].filter((t) => t.trim() !== '').join('\n')
  return {
    ...state,
    imageCount: count,
    images,
    editor: editorReducer(EMPTY_EDITOR, { type: 'set', text: joined }),
  }
}
