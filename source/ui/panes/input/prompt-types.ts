/**
 * The prompt model's shapes: its state, the events it takes, the effects it asks for and the environment
 * it reads (`prompt-model.ts` reduces them).
 */
import type { ImageAttachment, SubmitInput } from '../../../agent/runtime/commands.js'
import type { CommandName } from '../../keys/bindings.js'
import type { SlashCompleter } from './completion.js'
import type { EditorState } from './editor-state.js'
import type { HistoryState } from './history.js'
import type { PathCandidate } from './path-complete.js'
import type { VimEngine, VimState } from './vim/vim-types.js'

export interface SearchState {
  query: string
  /** Index into history entries, -1 when nothing matches. */
  match: number
  /** The draft to go back to when the search is cancelled. */
  saved: EditorState
}

export interface PromptState {
  readonly editor: EditorState
  readonly history: HistoryState
  /** Contents of `[Pasted text #N …]` chips, by N; expanded on submit. */
  readonly pastes: ReadonlyMap<number, string>
  /** Images of `[Image #N]` chips, by N. */
  readonly images: ReadonlyMap<number, ImageAttachment>
  readonly pasteCount: number
  readonly imageCount: number
  /** Ctrl+R in progress. */
  readonly search: SearchState | null
  readonly popupIndex: number
  /** The popup stays closed after Esc until the text changes. */
  readonly dismissedAt: string | null
  /** The `@path` typed at the cursor, null when the cursor is not in a mention. */
  readonly mentionQuery: string | null
  /** The latest directory listing for a mention, with the query it answers. */
  readonly paths: { readonly query: string; readonly items: readonly PathCandidate[] }
  /** The first Esc of a double press fell on an empty prompt with the agent idle: a second opens /rewind. */
  readonly rewindArmed: boolean
  /** Vim mode's state (docs/tui.md#vim-mode); null with vim mode off. */
  readonly vim: VimState | null
}

/** A key as the prompt sees it; the key dispatcher's `KeyEvent` is one. */
export interface PromptKey {
  /** Typed text (several characters when typing outruns rendering, or a chunk without paste mode). */
  input: string
  key: { ctrl: boolean; meta: boolean; escape: boolean; tab: boolean; return: boolean }
  /** The key fires this command (bindings table). */
  has(command: CommandName): boolean
  /** The key armed this double-press command (one more press fires it). */
  armed: { has(command: CommandName): boolean }
}

export type PromptEvent =
  /** `typedAhead`: typed while another pane had the keys, handed over with the focus: text, even in vim's normal mode. */
  | { type: 'key'; key: PromptKey; typedAhead?: boolean }
  /** `imagePath`: the pasted text names an existing image file (decided by the binding, which may read the disk). */
  | { type: 'paste'; text: string; imagePath: string | null }
  | { type: 'insert'; text: string }
  | { type: 'image-loaded'; image: ImageAttachment }
  | { type: 'editor-closed'; text: string }
  | { type: 'paths-listed'; query: string; items: readonly PathCandidate[] }
  /** Queued messages taken back out of the runtime's queue (oldest first): they go before the draft. */
  | { type: 'unqueued'; inputs: readonly SubmitInput[] }
  /** `/vim` or the `editorMode` setting turned vim mode on or off (on needs `env.vim`). */
  | { type: 'editor-mode'; vim: boolean }

export type PromptEffect =
  /** A slash command line, for the command table. */
  | { type: 'command'; line: string }
  /** `!cmd`. */
  | { type: 'shell'; command: string }
  /** A message: image paths in it become attachments, paste chips are expanded, then it is submitted. */
  | {
      type: 'send'
      text: string
      pastes: ReadonlyMap<number, string>
      images: ReadonlyMap<number, ImageAttachment>
      imageCount: number
    }
  /** Text that arrived as a paste; the binding decides whether it is an image path, then sends `paste`. */
  | { type: 'paste'; text: string }
  /** A pasted image path: load it and send `image-loaded`, or on failure say why and send `insert` of `text`. */
  | { type: 'load-image'; path: string; text: string }
  /** Ctrl+G: edit `text` in $EDITOR, then send `editor-closed`. */
  | { type: 'open-editor'; text: string }
  /** List the directory of an `@path` being typed, then send `paths-listed`. */
  | { type: 'list-paths'; query: string }
  | { type: 'hint'; text: string }
  | { type: 'clear-flash' }
  /** Esc Esc on an empty, idle prompt. */
  | { type: 'open-rewind' }
  /** Take the newest queued message (or all of them) back from the runtime, then send `unqueued`. */
  | { type: 'unqueue'; all: boolean }
  /** Ctrl+V: an image from the clipboard, then `image-loaded` (or a notice why not). */
  | { type: 'paste-image' }

export interface PromptEnv {
  /** A turn is running. */
  busy: boolean
  /** The conversation has turns to rewind to. */
  hasTurns?: boolean
  /** Messages waiting in the runtime's queue. */
  queued?: number
  /** Completion for text that starts with "/" (the command table). */
  slash: SlashCompleter
  /** Vim mode's engine, once loaded (only while vim mode is on). */
  vim?: VimEngine
}

export interface PromptResult {
  state: PromptState
  effects: readonly PromptEffect[]
  /** For key events: the prompt took the key (false lets it go on to the global handlers). */
  handled: boolean
}
