/**
 * Carries out the prompt model's effects (`prompt-model.ts`): the I/O the model leaves out — the runtime
 * commands, the disk, $EDITOR, messages above the prompt. Results go back to the model as events. Plain
 * functions over injected dependencies, so they are tested without a renderer.
 */
import type { ImageAttachment, RuntimeCommands, SubmitInput } from '../../../agent/runtime/commands.js'
import { noVision } from '../../commands/builtin-commands.js'
import type { FlashLevel } from '../../commands/command-context.js'
import { expandPasteChips, findImagePaths, imageChip, imageChipNumbers, imagePathFrom } from './chips.js'
import type { ClipboardImage } from '../../clipboard/clipboard-image.js'
import type { EditorResult } from './external-editor.js'
import { listPathCandidates } from './path-complete.js'
import type { PromptEffect, PromptEvent } from './prompt-model.js'

export interface PromptEffectDeps {
  commands: RuntimeCommands
  /** The session's directory: `@path` listings and relative image paths start there. */
  cwd(): string
  /** The session's model (for messages). */
  model(): string
  flash(text: string, level?: FlashLevel): void
  hint(text: string): void
  clearFlash(): void
  /** Runs a slash command line (the command table's dispatch); never rejects. */
  runCommand(line: string): Promise<void>
  /** Hands the terminal to `edit` (which blocks in $EDITOR) and takes it back. */
  editExternally(text: string): Promise<EditorResult>
  /** Feeds a result back into the prompt model. */
  send(event: PromptEvent): void
  /** Opens the /rewind dialog. */
  openRewind(): void
  /** Ctrl+V: the clipboard's image (absent where there is no terminal). */
  pasteImage?: () => Promise<ClipboardImage>
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

export function runPromptEffect(effect: PromptEffect, deps: PromptEffectDeps): void {
  switch (effect.type) {
    case 'command':
      void deps.runCommand(effect.line)
      return
    case 'shell':
      deps.commands.runShell(effect.command).catch((error: unknown) => {
        deps.flash(`Shell command failed: ${message(error)}`, 'error')
      })
      return
    case 'send':
      void sendMessage(effect, deps)
      return
    case 'paste':
      deps.send({ type: 'paste', text: effect.text, imagePath: imagePathFrom(effect.text, deps.cwd()) })
      return
    case 'load-image':
      deps.commands.loadImage(effect.path).then(
        (image) => {
          deps.send({ type: 'image-loaded', image })
          if (!deps.commands.supportsVision()) deps.flash(noVision(deps.model()), 'warn')
        },
        (error: unknown) => {
          deps.flash(`Image not attached: ${message(error)}`, 'error')
          deps.send({ type: 'insert', text: effect.text })
        },
      )
      return
    case 'paste-image':
      void pasteClipboardImage(deps)
      return
    case 'open-editor':
      deps.editExternally(effect.text).then(
        (result) => {
          if (result.ok) deps.send({ type: 'editor-closed', text: result.text })
          else deps.flash(`External editor: ${result.error}`, 'error')
        },
        (error: unknown) => deps.flash(`External editor: ${message(error)}`, 'error'),
      )
      return
    case 'list-paths': {
      const { query } = effect
      void listPathCandidates(deps.cwd(), query).then((items) =>
        deps.send({ type: 'paths-listed', query, items }),
      )
      return
    }
    case 'hint':
      deps.hint(effect.text)
      return
    case 'clear-flash':
      deps.clearFlash()
      return
    case 'open-rewind':
      deps.openRewind()
      return
    case 'unqueue': {
      const inputs: SubmitInput[] = []
      for (let input = deps.commands.unqueue(); input; input = effect.all ? deps.commands.unqueue() : null)
        inputs.unshift(input)
      if (inputs.length === 0) return
      deps.send({ type: 'unqueued', inputs })
      if (effect.all)
        deps.flash(
          `${inputs.length === 1 ? 'Your queued message is' : `${inputs.length} queued messages are`} back in the prompt: Enter sends, Esc Esc clears`,
        )
      return
    }
  }
}

/**
 * Sends a message: typed or dropped image paths become attachments (a path that fails to load stays as
 * text), `[Image #N]` chips pick their images, paste chips are expanded.
 */
async function sendMessage(
  effect: Extract<PromptEffect, { type: 'send' }>,
  deps: PromptEffectDeps,
): Promise<void> {
  let text = effect.text
  const attached = new Map(effect.images)
  let count = effect.imageCount
  for (const found of findImagePaths(effect.text, deps.cwd())) {
    try {
      const image = await deps.commands.loadImage(found.path)
      count += 1
      attached.set(count, image)
      text = text.replace(found.token, imageChip(count))
    } catch (error) {
      deps.flash(`Image not attached: ${message(error)}`, 'warn')
    }
  }
  const chosen = imageChipNumbers(text)
    .map((n) => attached.get(n))
    .filter((img): img is ImageAttachment => img !== undefined)
  const expanded = expandPasteChips(text, effect.pastes)
  deps.commands.submit(chosen.length ? { text: expanded, images: chosen } : { text: expanded })
}

/**
 * Ctrl+V: an image on the clipboard becomes an `[Image #N]` chip like a pasted image path; text there is
 * left to the terminal's own paste (a hint says so); a missing program or a failure says what to do.
 */
export async function pasteClipboardImage(deps: PromptEffectDeps): Promise<void> {
  if (!deps.pasteImage) return deps.flash('No clipboard to read images from in this session', 'warn')
  let got: ClipboardImage
  try {
    got = await deps.pasteImage()
  } catch (error) {
    got = { kind: 'failed', message: message(error) }
  }
  if (got.kind === 'none')
    return deps.hint("No image on the clipboard (text pastes with your terminal's paste key)")
  if (got.kind === 'failed') return deps.flash(`Image not pasted: ${got.message}`, 'error')
  const kb = Math.max(1, Math.round(got.bytes.length / 1024))
  const image = {
    path: `clipboard (${got.mime}, ${kb} kB)`,
    url: `data:${got.mime};base64,${got.bytes.toString('base64')}`,
  }
  deps.send({ type: 'image-loaded', image })
  if (!deps.commands.supportsVision()) deps.flash(noVision(deps.model()), 'warn')
}
