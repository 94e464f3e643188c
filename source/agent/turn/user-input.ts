import type { ContentPart } from '../../store/messages.js'
import type { AttachmentNote } from '../../store/domain.js'
import type { SubmitInput } from '../runtime/commands.js'

/** A user message as a turn takes it: what the model gets (`content`), and what the transcript shows. */
export interface UserInput {
  content: string | ContentPart[]
  text: string
  /** `@path` mentions and what became of them (the content carries what was attached). */
  attachments?: AttachmentNote[]
  /**
   * Runs first, inside the turn (a user command's shell commands and file reads): the content to send
   * instead, or why the turn ends before any request.
   */
  prepare?(signal: AbortSignal): Promise<{ content: string } | { error: string }>
}

/** A submitted message as a user message: text, then its images as image parts. */
export function toUserInput(input: SubmitInput): UserInput {
  if (!input.images?.length) return { content: input.text, text: input.text }
  const parts: ContentPart[] = [{ type: 'text', text: input.text }]
  for (const image of input.images) parts.push({ type: 'image_url', image_url: { url: image.url } })
  return { content: parts, text: input.text }
}

/**
 * The message for a model that may have no vision. Such a model never gets image parts (it would fail the
 * request, or guess): they are left out, the model is told so in the message, and `warning` says so to the
 * user.
 */
export function userInputFor(
  input: SubmitInput,
  vision: boolean,
  model: string,
): { user: UserInput; warning: string | null } {
  const images = input.images?.length ?? 0
  if (images === 0 || vision) return { user: toUserInput(input), warning: null }
  const what = images === 1 ? 'the image was' : `the ${images} images were`
  const warning = `${model} cannot see images (its model profile has no vision): ${what} not sent, only your text. /model picks another model; a profile's "supportsVision" in settings "models" corrects it.`
  const note = `[${images === 1 ? 'An image' : `${images} images`} attached by the user ${images === 1 ? 'was' : 'were'} not sent: this model cannot see images.]`
  const text = input.text.trim() ? `${input.text}\n\n${note}` : note
  return { user: { content: text, text: input.text }, warning }
}

/** The notice of an interrupted turn; `held` messages are still queued (nothing queued is sent after one). */
export function interruptedText(held: number): string {
  const next =
    held === 0
      ? 'Send a message to continue.'
      : `${held === 1 ? 'Your queued message waits' : `${held} queued messages wait`}: ${held === 1 ? 'it goes' : 'they go'} before your next message (↑ on the empty prompt takes ${held === 1 ? 'it' : 'the last'} back to edit).`
  return `Interrupted — what arrived so far is kept. ${next}`
}
