import { useApp, usePaste } from 'ink'
import { useContext, useEffect, useRef, useState } from 'react'
import type { ImageAttachment } from '../../../agent/commands.js'
import { selectIsBusy } from '../../../store/selectors.js'
import { StoreContext, useCommands, useDispatch, useStore } from '../../hooks/use-store.js'
import { KEY_PRIORITY, type KeyEvent, useKeyHandler } from '../../keys/dispatcher.js'
import { useShell } from '../../shell-context.js'
import {
  expandPasteChips,
  findImagePaths,
  imageChip,
  imageChipNumbers,
  imagePathFrom,
  isLargePaste,
  pasteChip,
} from './chips.js'
import { type CompletionItem, completionItems } from './completion.js'
import {
  EMPTY_EDITOR,
  type EditorOp,
  type EditorState,
  editorReducer,
  isOnFirstLine,
  isOnLastLine,
} from './editor-state.js'
import { editInExternalEditor } from './external-editor.js'
import {
  EMPTY_HISTORY,
  type HistoryState,
  historyNext,
  historyPrev,
  pushHistory,
  searchHistory,
} from './history.js'
import { listPathCandidates, mentionAtCursor, type PathCandidate } from './path-complete.js'
import { parseSlash, runSlashCommand, type SlashContext } from './slash-commands.js'

export interface SearchState {
  query: string
  /** Index into history entries, -1 when nothing matches. */
  match: number
  saved: EditorState
}

interface Model {
  editor: EditorState
  history: HistoryState
  pastes: Map<number, string>
  images: Map<number, ImageAttachment>
  pasteCount: number
  imageCount: number
  search: SearchState | null
  popupIndex: number
  /** The popup stays closed after Esc until the text changes. */
  dismissedAt: string | null
}

function freshModel(history: HistoryState = EMPTY_HISTORY): Model {
  return {
    editor: EMPTY_EDITOR,
    history,
    pastes: new Map(),
    images: new Map(),
    pasteCount: 0,
    imageCount: 0,
    search: null,
    popupIndex: 0,
    dismissedAt: null,
  }
}

export interface PromptView {
  editor: EditorState
  search: SearchState | null
  searchMatch: string
  items: CompletionItem[]
  popupIndex: number
  busy: boolean
}

/**
 * All behaviour of the prompt: editing, history, Ctrl+R, paste chips, completion, slash commands,
 * `!cmd`, images and $EDITOR. State lives in a ref so several keys arriving between two renders
 * each see the result of the previous one.
 */
export function usePrompt({ active }: { active: boolean }): PromptView {
  const store = useContext(StoreContext)
  if (!store) throw new Error('StoreContext is missing: wrap the app in <StoreContext.Provider>')
  const commands = useCommands()
  const dispatch = useDispatch()
  const shell = useShell()
  const { suspendTerminal } = useApp()
  const busy = useStore(selectIsBusy)
  const cwd = useStore((s) => s.session.cwd)
  const model = useRef<Model>(freshModel())
  const rewindArmed = useRef(false)
  const [, setVersion] = useState(0)
  const [pathItems, setPathItems] = useState<{ query: string; items: PathCandidate[] }>({
    query: '',
    items: [],
  })

  const commit = (next: Partial<Model>) => {
    model.current = { ...model.current, ...next }
    setVersion((v) => v + 1)
  }
  const edit = (op: EditorOp) => commit({ editor: editorReducer(model.current.editor, op), popupIndex: 0 })

  const insertImage = (image: ImageAttachment) => {
    const n = model.current.imageCount + 1
    const images = new Map(model.current.images).set(n, image)
    commit({
      imageCount: n,
      images,
      editor: editorReducer(model.current.editor, { type: 'insert', text: imageChip(n) }),
    })
  }

  const handlePaste = (text: string) => {
    const imagePath = imagePathFrom(text, cwd)
    if (imagePath) {
      commands.loadImage(imagePath).then(insertImage, (error: unknown) => {
        shell.flash(`Image not attached: ${error instanceof Error ? error.message : String(error)}`, 'error')
        edit({ type: 'insert', text })
      })
      return
    }
    if (isLargePaste(text)) {
      const n = model.current.pasteCount + 1
      const clean = text.replace(/\r\n?/g, '\n')
      const pastes = new Map(model.current.pastes).set(n, clean)
      commit({
        pasteCount: n,
        pastes,
        editor: editorReducer(model.current.editor, { type: 'insert', text: pasteChip(n, clean) }),
      })
      return
    }
    edit({ type: 'insert', text })
  }

  usePaste(handlePaste, { isActive: active })

  // The directory listing for `@path` completion is read lazily, one readdir per typed directory prefix.
  const mention = mentionAtCursor(model.current.editor.text, model.current.editor.cursor)
  const mentionQuery = mention?.query ?? null
  useEffect(() => {
    if (mentionQuery === null) return
    let cancelled = false
    listPathCandidates(cwd, mentionQuery).then((items) => {
      if (!cancelled) setPathItems({ query: mentionQuery, items })
    })
    return () => {
      cancelled = true
    }
  }, [cwd, mentionQuery])

  const items = completionItems({
    editor: model.current.editor,
    searching: model.current.search !== null,
    dismissedAt: model.current.dismissedAt,
    mentionQuery,
    pathItems,
  })

  const slashContext = (): SlashContext => ({
    commands,
    getState: store.getState,
    contextLimit: shell.contextLimit,
    prices: shell.prices,
    flash: shell.flash,
    showHelp: shell.showHelp,
    showInfo: shell.showInfo,
    showSessions: shell.showSessions,
    resumeSession: shell.requestResume,
    toggleTodos: () => dispatch({ type: 'ui/todos-toggled' }),
    focusTasks: () => dispatch({ type: 'ui/focus', focus: 'tasks' }),
    openRewind: () => dispatch({ type: 'ui/rewind', open: true }),
    attachImage: insertImage,
    exit: shell.requestExit,
  })

  const submit = async (raw: string) => {
    const m = model.current
    if (!raw.trim() && m.images.size === 0) return
    const pastes = m.pastes
    const images = m.images
    commit({ ...freshModel(pushHistory(m.history, raw)) })
    shell.clearFlash()
    if (parseSlash(raw)) {
      await runSlashCommand(raw, slashContext())
      return
    }
    if (raw.startsWith('!') && raw.slice(1).trim()) {
      commands.runShell(raw.slice(1).trim()).catch((error: unknown) => {
        shell.flash(
          `Shell command failed: ${error instanceof Error ? error.message : String(error)}`,
          'error',
        )
      })
      return
    }
    // Typed or dropped image paths become attachments; a path that fails to load stays as text.
    let text = raw
    const attached = new Map(images)
    let count = m.imageCount
    for (const found of findImagePaths(raw, cwd)) {
      try {
        const image = await commands.loadImage(found.path)
        count += 1
        attached.set(count, image)
        text = text.replace(found.token, imageChip(count))
      } catch (error) {
        shell.flash(`Image not attached: ${error instanceof Error ? error.message : String(error)}`, 'warn')
      }
    }
    const chosen = imageChipNumbers(text)
      .map((n) => attached.get(n))
      .filter((img): img is ImageAttachment => img !== undefined)
    const expanded = expandPasteChips(text, pastes)
    commands.submit(chosen.length ? { text: expanded, images: chosen } : { text: expanded })
    if (busy) shell.flash('Queued — it will be sent at the next step')
  }

  const openEditor = () => {
    const before = model.current.editor.text
    let result: ReturnType<typeof editInExternalEditor> = { ok: false, error: 'editor did not run' }
    suspendTerminal(() => {
      result = editInExternalEditor(before)
    }).then(
      () => {
        if (result.ok) commit({ editor: editorReducer(EMPTY_EDITOR, { type: 'set', text: result.text }) })
        else shell.flash(`External editor: ${result.error}`, 'error')
      },
      (error: unknown) =>
        shell.flash(`External editor: ${error instanceof Error ? error.message : String(error)}`, 'error'),
    )
  }

  const onSearchKey = (ev: KeyEvent, search: SearchState): boolean => {
    const entries = model.current.history.entries
    const find = (query: string, before: number) => searchHistory(entries, query, before)
    if (ev.has('input.history.search')) {
      const match = find(search.query, search.match === -1 ? entries.length : search.match)
      commit({ search: { ...search, match: match === -1 ? search.match : match } })
    } else if (ev.key.escape || ev.has('app.ctrlC')) {
      commit({ search: null, editor: search.saved })
    } else if (ev.has('input.backspace')) {
      const query = search.query.slice(0, -1)
      commit({ search: { ...search, query, match: query ? find(query, entries.length) : -1 } })
    } else if (ev.input && !ev.key.ctrl && !ev.key.meta && !ev.key.return && !ev.key.tab) {
      const query = search.query + ev.input
      commit({ search: { ...search, query, match: find(query, entries.length) } })
    } else {
      // Enter or any movement accepts the match for editing (Enter does not send it yet).
      const text = search.match >= 0 ? (entries[search.match] ?? '') : search.saved.text
      commit({ search: null, editor: editorReducer(EMPTY_EDITOR, { type: 'set', text }) })
    }
    return true
  }

  const acceptCompletion = (item: CompletionItem, viaEnter: boolean) => {
    const { editor } = model.current
    if (item.kind === 'slash') {
      const text = `/${item.value}`
      if (viaEnter && item.runsOnEnter) {
        void submit(text)
        return
      }
      commit({ editor: editorReducer(EMPTY_EDITOR, { type: 'set', text: `${text} ` }), popupIndex: 0 })
      return
    }
    const at = mentionAtCursor(editor.text, editor.cursor)
    if (!at) return
    const insert = `@${item.value}${item.isDir ? '' : ' '}`
    const text = editor.text.slice(0, at.start) + insert + editor.text.slice(editor.cursor)
    commit({ editor: { text, cursor: at.start + insert.length }, popupIndex: 0 })
  }

  useKeyHandler(
    KEY_PRIORITY.input,
    (ev) => {
      const m = model.current
      const { editor } = m
      if (m.search) return onSearchKey(ev, m.search)
      const popupOpen = items.length > 0
      if (popupOpen) {
        const selected = items[Math.min(m.popupIndex, items.length - 1)]
        if (ev.has('input.history.prev')) {
          commit({ popupIndex: (m.popupIndex - 1 + items.length) % items.length })
          return true
        }
        if (ev.has('input.history.next')) {
          commit({ popupIndex: (m.popupIndex + 1) % items.length })
          return true
        }
        if (selected && (ev.has('input.complete') || ev.has('input.submit'))) {
          acceptCompletion(selected, ev.has('input.submit'))
          return true
        }
        if (ev.key.escape) {
          commit({ dismissedAt: editor.text })
          return true
        }
      }
      if (ev.has('app.ctrlC')) {
        if (busy || !editor.text) return false
        commit({ ...freshModel(m.history) })
        return true
      }
      if (ev.has('input.clear') && editor.text) {
        commit({ ...freshModel(m.history) })
        shell.clearFlash()
        return true
      }
      // Esc Esc on an empty, idle prompt opens /rewind; an Esc that interrupted the agent does not count.
      if (ev.armed.has('input.clear')) rewindArmed.current = !editor.text && !busy
      if (ev.armed.has('input.clear') && editor.text && !busy) {
        shell.hint('Press Esc again to clear the input')
        return true
      }
      if (ev.has('input.clear') && rewindArmed.current && !editor.text && !busy) {
        rewindArmed.current = false
        dispatch({ type: 'ui/rewind', open: true })
        return true
      }
      if (rewindArmed.current && ev.armed.has('input.clear') && store.getState().turns.length > 0) {
        shell.hint('Press Esc again to rewind to an earlier turn')
        return true
      }
      if (ev.has('input.submit')) {
        // A trailing backslash continues the line (works in every terminal).
        if (editor.text[editor.cursor - 1] === '\\') {
          commit({
            editor: editorReducer(editorReducer(editor, { type: 'backspace' }), { type: 'newline' }),
          })
        } else void submit(editor.text)
        return true
      }
      if (ev.has('input.newline')) {
        edit({ type: 'newline' })
        return true
      }
      if (ev.has('input.history.prev')) {
        if (!isOnFirstLine(editor)) edit({ type: 'up' })
        else {
          const prev = historyPrev(m.history, editor.text)
          if (prev)
            commit({
              history: prev.history,
              editor: editorReducer(EMPTY_EDITOR, { type: 'set', text: prev.text }),
            })
        }
        return true
      }
      if (ev.has('input.history.next')) {
        if (!isOnLastLine(editor)) edit({ type: 'down' })
        else {
          const next = historyNext(m.history)
          if (next)
            commit({
              history: next.history,
              editor: editorReducer(EMPTY_EDITOR, { type: 'set', text: next.text }),
            })
        }
        return true
      }
      if (ev.has('input.history.search')) {
        commit({ search: { query: '', match: -1, saved: editor } })
        return true
      }
      if (ev.has('input.editor')) {
        openEditor()
        return true
      }
      // On an empty prompt, Home/End/? belong to the transcript and the help overlay.
      if (!editor.text && (ev.has('help.show') || ev.has('transcript.home') || ev.has('transcript.end')))
        return false
      const op = editOp(ev)
      if (op) {
        edit(op)
        return true
      }
      if (ev.input && !ev.key.ctrl && !ev.key.meta && !ev.key.escape && !ev.key.tab && !ev.key.return) {
        // Typed text followed by Enter can reach us as one chunk (a busy machine, tmux send-keys): submit it.
        const typedThenEnter = /^[^\r\n]+\r$/.exec(ev.input)
        if (typedThenEnter && !editor.text.includes('\n')) {
          const text = editorReducer(editor, { type: 'insert', text: ev.input.slice(0, -1) }).text
          if (text.endsWith('\\')) edit({ type: 'insert', text: ev.input.slice(0, -1) })
          else void submit(text)
        }
        // Several characters with a newline in one chunk is a paste from a terminal without bracketed paste.
        else if (ev.input.length > 1 && /[\r\n]/.test(ev.input)) handlePaste(ev.input)
        else edit({ type: 'insert', text: ev.input })
        return true
      }
      return false
    },
    active,
  )

  const search = model.current.search
  const entries = model.current.history.entries
  return {
    editor: model.current.editor,
    search,
    searchMatch: search && search.match >= 0 ? (entries[search.match] ?? '') : '',
    items,
    popupIndex: Math.min(model.current.popupIndex, Math.max(0, items.length - 1)),
    busy,
  }
}

function editOp(ev: KeyEvent): EditorOp | null {
  if (ev.has('input.backspace')) return { type: 'backspace' }
  if (ev.has('input.delete')) return { type: 'delete' }
  if (ev.has('input.left')) return { type: 'left' }
  if (ev.has('input.right')) return { type: 'right' }
  if (ev.has('input.wordLeft')) return { type: 'wordLeft' }
  if (ev.has('input.wordRight')) return { type: 'wordRight' }
  if (ev.has('input.lineStart')) return { type: 'lineStart' }
  if (ev.has('input.lineEnd')) return { type: 'lineEnd' }
  if (ev.has('input.deleteWord')) return { type: 'deleteWord' }
  if (ev.has('input.killLineLeft')) return { type: 'killLineLeft' }
  if (ev.has('input.killLineRight')) return { type: 'killLineRight' }
  return null
}
