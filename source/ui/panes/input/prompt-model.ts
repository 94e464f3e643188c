/**
 * The prompt as a pure state machine: `reducePrompt(state, event, env)` → the next state, the effects to
 * run, and whether a key was taken. Editing, history and Ctrl+R search, completion, paste and image chips,
 * submit and queueing all live here; no React, no I/O. Effects are plain data that the binding
 * (`use-prompt.ts`, through `prompt-effects.ts`) carries out, feeding results back as events.
 */
import type { ImageAttachment, SubmitInput } from '../../../agent/runtime/commands.js'
import { parseSlash } from '../../commands/command-table.js'
import type { CommandName } from '../../keys/bindings.js'
import { imageChip, isLargePaste, pasteChip } from './chips.js'
import { type CompletionItem, completionItems, type SlashCompleter } from './completion.js'
import {
  EMPTY_EDITOR,
  type EditorOp,
  type EditorState,
  editorReducer,
  isOnFirstLine,
  isOnLastLine,
} from './editor-state.js'
import {
  EMPTY_HISTORY,
  type HistoryState,
  historyNext,
  historyPrev,
  pushHistory,
  searchHistory,
} from './history.js'
import { mentionAtCursor, type PathCandidate, typedOut } from './path-complete.js'
import { restoreQueued } from './queue-restore.js'

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
  | { type: 'key'; key: PromptKey }
  /** `imagePath`: the pasted text names an existing image file (decided by the binding, which may read the disk). */
  | { type: 'paste'; text: string; imagePath: string | null }
  | { type: 'insert'; text: string }
  | { type: 'image-loaded'; image: ImageAttachment }
  | { type: 'editor-closed'; text: string }
  | { type: 'paths-listed'; query: string; items: readonly PathCandidate[] }
  /** Queued messages taken back out of the runtime's queue (oldest first): they go before the draft. */
  | { type: 'unqueued'; inputs: readonly SubmitInput[] }

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
  | { type: 'paste-image' } // Ctrl+V: an image from the clipboard, then `image-loaded` (or a notice why not)
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

export interface PromptEnv {
  /** A turn is running. */
  busy: boolean
  /** The conversation has turns to rewind to. */
  hasTurns?: boolean
  /** Messages waiting in the runtime's queue. */
  queued?: number
  /** Completion for text that starts with "/" (the command table). */
  slash: SlashCompleter
}

export interface PromptResult {
  state: PromptState
  effects: readonly PromptEffect[]
  /** For key events: the prompt took the key (false lets it go on to the global handlers). */
  handled: boolean
}

const NO_EFFECTS: readonly PromptEffect[] = []
const NO_PATHS: PromptState['paths'] = { query: '', items: [] }
const NO_PASTES: ReadonlyMap<number, string> = new Map()
const NO_IMAGES: ReadonlyMap<number, ImageAttachment> = new Map()

export function initialPrompt(
  history: HistoryState = EMPTY_HISTORY,
  paths: PromptState['paths'] = NO_PATHS,
): PromptState {
  return {
    editor: EMPTY_EDITOR,
    history,
    pastes: NO_PASTES,
    images: NO_IMAGES,
    pasteCount: 0,
    imageCount: 0,
    search: null,
    popupIndex: 0,
    dismissedAt: null,
    mentionQuery: null,
    paths,
    rewindArmed: false,
  }
}

/** The completion popup's entries for this state. */
export function promptItems(state: PromptState, env: Pick<PromptEnv, 'slash'>): readonly CompletionItem[] {
  return completionItems({
    editor: state.editor,
    searching: state.search !== null,
    dismissedAt: state.dismissedAt,
    mentionQuery: state.mentionQuery,
    paths: state.paths,
    slash: env.slash,
  })
}

/** The text Ctrl+R has found so far ('' while nothing matches). */
export function searchMatchText(state: PromptState): string {
  const { search } = state
  return search && search.match >= 0 ? (state.history.entries[search.match] ?? '') : ''
}

export function reducePrompt(state: PromptState, event: PromptEvent, env: PromptEnv): PromptResult {
  const result = reduce(state, event, env)
  // A new `@path` under the cursor asks for its directory listing (one readdir per typed prefix).
  if (result.state.editor === state.editor) return result
  const mentionQuery = mentionAtCursor(result.state.editor.text, result.state.editor.cursor)?.query ?? null
  if (mentionQuery === result.state.mentionQuery) return result
  const next = { ...result.state, mentionQuery }
  if (mentionQuery === null) return { ...result, state: next }
  return { ...result, state: next, effects: [...result.effects, { type: 'list-paths', query: mentionQuery }] }
}

function reduce(state: PromptState, event: PromptEvent, env: PromptEnv): PromptResult {
  switch (event.type) {
    case 'key':
      return state.search ? searchKey(state, state.search, event.key) : key(state, event.key, env)
    case 'paste':
      if (event.imagePath)
        return effect(state, { type: 'load-image', path: event.imagePath, text: event.text })
      return done(paste(state, event.text))
    case 'insert':
      return done(edit(state, { type: 'insert', text: event.text }))
    case 'image-loaded': {
      const n = state.imageCount + 1
      return done({
        ...state,
        imageCount: n,
        images: new Map(state.images).set(n, event.image),
        editor: editorReducer(state.editor, { type: 'insert', text: imageChip(n) }),
      })
    }
    case 'editor-closed':
      return done({ ...state, editor: editorReducer(EMPTY_EDITOR, { type: 'set', text: event.text }) })
    case 'unqueued':
      return done(restoreQueued(state, event.inputs))
    case 'paths-listed':
      // A listing for a mention typed meanwhile past is dropped.
      if (event.query !== state.mentionQuery) return done(state)
      return done({ ...state, paths: { query: event.query, items: event.items } })
  }
}

function done(state: PromptState, handled = true): PromptResult {
  return { state, effects: NO_EFFECTS, handled }
}

function effect(state: PromptState, ...effects: PromptEffect[]): PromptResult {
  return { state, effects, handled: true }
}

function edit(state: PromptState, op: EditorOp): PromptState {
  return { ...state, editor: editorReducer(state.editor, op), popupIndex: 0 }
}

function setText(state: PromptState, text: string): PromptState {
  return { ...state, editor: editorReducer(EMPTY_EDITOR, { type: 'set', text }) }
}

/** Large pastes become a chip so a 2,000-line log does not flood the editor; the rest is inserted. */
function paste(state: PromptState, text: string): PromptState {
  if (!isLargePaste(text)) return edit(state, { type: 'insert', text })
  const n = state.pasteCount + 1
  const clean = text.replace(/\r\n?/g, '\n')
  return {
    ...state,
    pasteCount: n,
    pastes: new Map(state.pastes).set(n, clean),
    editor: editorReducer(state.editor, { type: 'insert', text: pasteChip(n, clean) }),
  }
}

/** Enter: a command line, `!cmd`, or a message (queued by the runtime while a turn runs). */
function submit(state: PromptState, raw: string): PromptResult {
  if (!raw.trim() && state.images.size === 0) return done(state)
  const next = initialPrompt(pushHistory(state.history, raw), state.paths)
  const clear: PromptEffect = { type: 'clear-flash' }
  if (parseSlash(raw)) return effect(next, clear, { type: 'command', line: raw })
  if (raw.startsWith('!') && raw.slice(1).trim())
    return effect(next, clear, { type: 'shell', command: raw.slice(1).trim() })
  const { pastes, images, imageCount } = state
  return effect(next, clear, { type: 'send', text: raw, pastes, images, imageCount })
}

function searchKey(state: PromptState, search: SearchState, k: PromptKey): PromptResult {
  const entries = state.history.entries
  const find = (query: string, before: number) => searchHistory(entries, query, before)
  if (k.has('input.history.search')) {
    const match = find(search.query, search.match === -1 ? entries.length : search.match)
    return done({ ...state, search: { ...search, match: match === -1 ? search.match : match } })
  }
  if (k.key.escape || k.has('app.ctrlC')) return done({ ...state, search: null, editor: search.saved })
  if (k.has('input.backspace')) {
    const query = search.query.slice(0, -1)
    return done({ ...state, search: { ...search, query, match: query ? find(query, entries.length) : -1 } })
  }
  if (k.input && !k.key.ctrl && !k.key.meta && !k.key.return && !k.key.tab) {
    const query = search.query + k.input
    return done({ ...state, search: { ...search, query, match: find(query, entries.length) } })
  }
  // Enter or any movement accepts the match for editing (Enter does not send it yet).
  const text = search.match >= 0 ? (entries[search.match] ?? '') : search.saved.text
  return done(setText({ ...state, search: null }, text))
}

function accept(state: PromptState, item: CompletionItem, viaEnter: boolean): PromptResult {
  if (item.kind === 'slash' || item.kind === 'argument') {
    const text = item.kind === 'slash' ? `/${item.value}` : item.value
    if (viaEnter && item.runsOnEnter) return submit(state, text)
    const editor = editorReducer(EMPTY_EDITOR, {
      type: 'set',
      text: item.kind === 'slash' ? `${text} ` : text,
    })
    return done({ ...state, editor, popupIndex: 0 })
  }
  const { editor } = state
  const at = mentionAtCursor(editor.text, editor.cursor)
  if (!at) return done(state)
  const insert = `@${item.value}${item.isDir ? '' : ' '}`
  const text = editor.text.slice(0, at.start) + insert + editor.text.slice(editor.cursor)
  return done({ ...state, editor: { text, cursor: at.start + insert.length }, popupIndex: 0 })
}

/** Keys the open completion popup takes: ↑/↓ move, Tab/Enter accept, Esc closes. */
function popupKey(state: PromptState, k: PromptKey, env: PromptEnv): PromptResult | null {
  const items = promptItems(state, env)
  if (items.length === 0) return null
  if (k.has('input.history.prev'))
    return done({ ...state, popupIndex: (state.popupIndex - 1 + items.length) % items.length })
  if (k.has('input.history.next'))
    return done({ ...state, popupIndex: (state.popupIndex + 1) % items.length })
  const selected = items[Math.min(state.popupIndex, items.length - 1)]
  // Enter on a file path typed out in full sends the message: accepting would change nothing.
  if (k.has('input.submit') && selected && typedOut(selected, state.mentionQuery)) return null
  if (selected && (k.has('input.complete') || k.has('input.submit')))
    return accept(state, selected, k.has('input.submit'))
  if (k.key.escape) return done({ ...state, dismissedAt: state.editor.text })
  return null
}

function key(state: PromptState, k: PromptKey, env: PromptEnv): PromptResult {
  const { editor } = state
  // Only these keys mean something different while the popup is open; others skip computing it.
  if (
    k.key.escape ||
    k.has('input.history.prev') ||
    k.has('input.history.next') ||
    k.has('input.complete') ||
    k.has('input.submit')
  ) {
    const taken = popupKey(state, k, env)
    if (taken) return taken
  }
  const queued = env.queued ?? 0
  // Interrupting hands the queued messages back to the prompt, as Claude Code does: nothing is sent
  // behind the user's back. The key goes on to the global handler, which interrupts.
  if (env.busy && queued > 0 && (k.has('app.interrupt') || k.has('app.ctrlC')))
    return { state, effects: [{ type: 'unqueue', all: true }], handled: false }
  // ↑ on an empty prompt takes the last queued message back to edit (or drop) it.
  if (queued > 0 && !editor.text && k.has('input.history.prev'))
    return effect(state, { type: 'unqueue', all: false })
  if (k.has('app.ctrlC')) {
    if (env.busy || !editor.text) return done(state, false)
    return done(initialPrompt(state.history, state.paths))
  }
  if (k.has('input.clear') && editor.text)
    return effect(initialPrompt(state.history, state.paths), { type: 'clear-flash' })
  // Esc Esc on an empty, idle prompt opens /rewind; an Esc that interrupted the agent does not count.
  if (k.armed.has('input.clear')) {
    const armed = !editor.text && !env.busy
    if (armed !== state.rewindArmed) state = { ...state, rewindArmed: armed }
  }
  if (k.armed.has('input.clear') && editor.text && !env.busy)
    return effect(state, { type: 'hint', text: 'Press Esc again to clear the input' })
  if (k.has('input.clear') && state.rewindArmed && !editor.text && !env.busy)
    return effect({ ...state, rewindArmed: false }, { type: 'open-rewind' })
  if (state.rewindArmed && k.armed.has('input.clear') && env.hasTurns)
    return effect(state, { type: 'hint', text: 'Press Esc again to rewind to an earlier turn' })
  if (k.has('input.submit')) {
    // A trailing backslash continues the line (works in every terminal).
    if (editor.text[editor.cursor - 1] === '\\')
      return done({
        ...state,
        editor: editorReducer(editorReducer(editor, { type: 'backspace' }), { type: 'newline' }),
      })
    return submit(state, editor.text)
  }
  if (k.has('input.newline')) return done(edit(state, { type: 'newline' }))
  if (k.has('input.history.prev')) {
    if (!isOnFirstLine(editor)) return done(edit(state, { type: 'up' }))
    const prev = historyPrev(state.history, editor.text)
    return done(prev ? { ...setText(state, prev.text), history: prev.history } : state)
  }
  if (k.has('input.history.next')) {
    if (!isOnLastLine(editor)) return done(edit(state, { type: 'down' }))
    const next = historyNext(state.history)
    return done(next ? { ...setText(state, next.text), history: next.history } : state)
  }
  if (k.has('input.history.search'))
    return done({ ...state, search: { query: '', match: -1, saved: editor } })
  if (k.has('input.editor')) return effect(state, { type: 'open-editor', text: editor.text })
  if (k.has('input.pasteImage')) return effect(state, { type: 'paste-image' })
  // On an empty prompt, Home/End/? belong to the transcript and the help overlay.
  if (!editor.text && (k.has('help.show') || k.has('transcript.home') || k.has('transcript.end')))
    return done(state, false)
  const op = editOp(k)
  if (op) return done(edit(state, op))
  if (k.input && !k.key.ctrl && !k.key.meta && !k.key.escape && !k.key.tab && !k.key.return) {
    // Text and Enter typed in one read arrive as separate keys (keys/key-chunks.ts splits them), so only a
    // paste from a terminal without bracketed paste brings several characters with a newline.
    if (k.input.length > 1 && /[\r\n]/.test(k.input)) return effect(state, { type: 'paste', text: k.input })
    return done(edit(state, { type: 'insert', text: k.input }))
  }
  return done(state, false)
}

function editOp(k: PromptKey): EditorOp | null {
  if (k.has('input.backspace')) return { type: 'backspace' }
  if (k.has('input.delete')) return { type: 'delete' }
  if (k.has('input.left')) return { type: 'left' }
  if (k.has('input.right')) return { type: 'right' }
  if (k.has('input.wordLeft')) return { type: 'wordLeft' }
  if (k.has('input.wordRight')) return { type: 'wordRight' }
  if (k.has('input.lineStart')) return { type: 'lineStart' }
  if (k.has('input.lineEnd')) return { type: 'lineEnd' }
  if (k.has('input.deleteWord')) return { type: 'deleteWord' }
  if (k.has('input.killLineLeft')) return { type: 'killLineLeft' }
  if (k.has('input.killLineRight')) return { type: 'killLineRight' }
  return null
}
