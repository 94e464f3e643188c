/**
 * The prompt as a pure state machine: `reducePrompt(state, event, env)` → the next state, the effects to
 * run, and whether a key was taken. Editing, history and Ctrl+R search, completion, paste and image chips,
 * submit and queueing all live here; no React, no I/O. Effects are plain data that the binding
 * (`use-prompt.ts`, through `prompt-effects.ts`) carries out, feeding results back as events.
 */
import type { ImageAttachment } from '../../../agent/runtime/commands.js'
import { parseSlash } from '../../commands/command-table.js'
import { imageChip, isLargePaste, pasteChip } from './chips.js'
import { type CompletionItem, completionItems } from './completion.js'
import { EMPTY_EDITOR, type EditorOp, editorReducer, isOnFirstLine, isOnLastLine } from './editor-state.js'
import {
  EMPTY_HISTORY,
  type HistoryState,
  historyNext,
  historyPrev,
  pushHistory,
  searchHistory,
} from './history.js'
import { mentionAtCursor, typedOut } from './path-complete.js'
import { restoreQueued } from './queue-restore.js'
import { keyFor, routeVimKey } from './prompt-vim.js'
import type {
  PromptEffect,
  PromptEnv,
  PromptEvent,
  PromptKey,
  PromptResult,
  PromptState,
  SearchState,
} from './prompt-types.js'
import type { VimEngine, VimKey, VimState } from './vim/vim-types.js'

export type {
  PromptEffect,
  PromptEnv,
  PromptEvent,
  PromptKey,
  PromptResult,
  PromptState,
  SearchState,
} from './prompt-types.js'

const NO_EFFECTS: readonly PromptEffect[] = []
const NO_PATHS: PromptState['paths'] = { query: '', items: [] }
const NO_PASTES: ReadonlyMap<number, string> = new Map()
const NO_IMAGES: ReadonlyMap<number, ImageAttachment> = new Map()

export function initialPrompt(
  history: HistoryState = EMPTY_HISTORY,
  paths: PromptState['paths'] = NO_PATHS,
  vim: VimState | null = null,
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
    vim,
  }
}

/** The completion popup's entries for this state. */
export function promptItems(state: PromptState, env: Pick<PromptEnv, 'slash'>): readonly CompletionItem[] {
  // Vim's normal mode types commands, not text to complete.
  if (state.vim?.mode === 'normal') return []
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
  let result = reduce(state, event, env)
  // In normal mode, a change the prompt made itself (a paste, text back from $EDITOR) is one step for `u`.
  if (event.type !== 'key' && env.vim) result = noted(result, state, env.vim)
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
      if (state.search) return searchKey(state, state.search, event.key)
      return key(event.typedAhead ? typingAhead(state, env) : state, event.key, env)
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
    case 'editor-mode':
      if (!event.vim) return done({ ...state, vim: null })
      return done({ ...state, vim: state.vim ?? env.vim?.initial(state.editor) ?? null })
  }
}

function noted(result: PromptResult, before: PromptState, engine: VimEngine): PromptResult {
  const { vim, editor } = result.state
  if (vim?.mode !== 'normal' || editor === before.editor) return result
  const step = engine.noteEdit(vim, before.editor, editor)
  return { ...result, state: { ...result.state, vim: step.vim, editor: step.editor } }
}

/** Keys for vim's normal mode; what follows a key that entered insert mode is typed as text. */
function vimKeys(
  state: PromptState,
  vim: VimState,
  keys: readonly VimKey[],
  env: PromptEnv & { vim: VimEngine },
): PromptResult {
  let { editor } = state
  for (let i = 0; i < keys.length; i++) {
    if (vim.mode === 'insert') {
      editor = editorReducer(editor, { type: 'insert', text: keys.slice(i).join('') })
      break
    }
    const step = env.vim.key(vim, editor, keys[i] as VimKey)
    ;({ vim, editor } = step)
    // `k` on the first line and `j` on the last are ↑ and ↓: the history, or a queued message back.
    if (step.pass) {
      const next = { ...state, vim, editor }
      return noted(
        plainKey(
          next,
          keyFor(step.pass === 'history-prev' ? 'input.history.prev' : 'input.history.next'),
          env,
        ),
        next,
        env.vim,
      )
    }
  }
  return done({ ...state, vim, editor, popupIndex: 0 })
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
  // Most terminals (xterm, tmux) send a paste's line breaks as CR: counted as lines all the same.
  const clean = text.replace(/\r\n?/g, '\n')
  if (!isLargePaste(clean)) return edit(state, { type: 'insert', text })
  const n = state.pasteCount + 1
  return {
    ...state,
    pasteCount: n,
    pastes: new Map(state.pastes).set(n, clean),
    editor: editorReducer(state.editor, { type: 'insert', text: pasteChip(n, clean) }),
  }
}

/** Enter: a command line, `!cmd`, or a message (queued by the runtime while a turn runs). */
function submit(state: PromptState, raw: string, env: PromptEnv): PromptResult {
  if (!raw.trim() && state.images.size === 0) return done(state)
  const next = initialPrompt(pushHistory(state.history, raw), state.paths, fresh(state, env, 'insert'))
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

/** Keys typed while a pane had the focus were meant as text: in vim's normal mode they append to the prompt. */
function typingAhead(state: PromptState, env: PromptEnv): PromptState {
  if (state.vim?.mode !== 'normal' || !env.vim) return state
  const end = { text: state.editor.text, cursor: state.editor.text.length }
  const step = env.vim.key({ ...state.vim, pending: [] }, end, 'a')
  return { ...state, vim: step.vim, editor: step.editor }
}

/** Vim's state for an empty prompt (after a send or a clear). */
function fresh(state: PromptState, env: PromptEnv, mode?: VimState['mode']): VimState | null {
  return state.vim && env.vim ? env.vim.fresh(state.vim, mode ?? state.vim.mode) : state.vim
}

function accept(state: PromptState, item: CompletionItem, viaEnter: boolean, env: PromptEnv): PromptResult {
  if (item.kind === 'slash' || item.kind === 'argument') {
    const text = item.kind === 'slash' ? `/${item.value}` : item.value
    if (viaEnter && item.runsOnEnter) return submit(state, text, env)
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
    return accept(state, selected, k.has('input.submit'), env)
  if (k.key.escape) return done({ ...state, dismissedAt: state.editor.text })
  return null
}

function key(state: PromptState, k: PromptKey, env: PromptEnv): PromptResult {
  const { editor } = state
  if (state.vim && env.vim) {
    const route = routeVimKey(state.vim, k, editor.text)
    if (route.kind === 'leave') {
      const step = env.vim.leaveInsert(state.vim, editor)
      const left = { ...state, vim: step.vim, editor: step.editor }
      return route.after ? vimKeys(left, step.vim, route.after, { ...env, vim: env.vim }) : done(left)
    }
    if (route.kind === 'submit') return submit(state, editor.text, env)
    if (route.kind === 'keys') return vimKeys(state, state.vim, route.keys, { ...env, vim: env.vim })
    if (state.vim.mode === 'normal') {
      // Keys vim leaves to the prompt (arrows, Backspace, Ctrl+…): what they change is one step for `u`.
      const next = { ...state, vim: { ...state.vim, leftInsert: false } }
      return noted(plainKey(next, route.key, env), state, env.vim)
    }
  }
  return plainKey(state, k, env)
}

/** A key as the prompt takes it without vim mode. */
function plainKey(state: PromptState, k: PromptKey, env: PromptEnv): PromptResult {
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
    return done(initialPrompt(state.history, state.paths, fresh(state, env)))
  }
  if (k.has('input.clear') && editor.text)
    return effect(initialPrompt(state.history, state.paths, fresh(state, env)), { type: 'clear-flash' })
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
    return submit(state, editor.text, env)
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
