import { useApp, usePaste } from 'ink'
import { useContext, useEffect, useLayoutEffect, useMemo, useState, useSyncExternalStore } from 'react'
import type { ImageAttachment } from '../../../agent/runtime/commands.js'
import { selectEditorMode, selectIsBusy, selectQueued } from '../../../store/selectors.js'
import type { QueuedMessage, State } from '../../../store/state.js'
import type { CommandContext } from '../../commands/command-context.js'
import { ClipboardContext } from '../../clipboard/clipboard-context.js'
import { runCommandLine } from '../../commands/command-table.js'
import { SaveThemeContext } from '../../components/theme-context.js'
import { useCommandList, useCommandTable } from '../../commands/use-command-table.js'
import { StoreContext, useCommands, useDispatch, useStore } from '../../hooks/use-store.js'
import { KEY_PRIORITY, useKeyHandler } from '../../keys/dispatcher.js'
import { useShell } from '../../shell-context.js'
import { type CompletionItem, slashCompleter } from './completion.js'
import type { EditorState } from './editor-state.js'
import type { VimEngine, VimMode } from './vim/vim-types.js'
import { type EditorResult, editInExternalEditor } from './external-editor.js'
import { type PromptEffectDeps, runPromptEffect } from './prompt-effects.js'
import {
  initialPrompt,
  type PromptEvent,
  type PromptState,
  promptItems,
  reducePrompt,
  type SearchState,
  searchMatchText,
} from './prompt-model.js'

export type { SearchState }

export interface PromptView {
  editor: EditorState
  search: SearchState | null
  searchMatch: string
  items: readonly CompletionItem[]
  popupIndex: number
  busy: boolean
  /** Messages waiting for the next step (the runtime's queue). */
  queued: readonly QueuedMessage[]
  /** Vim mode's mode and the command being typed; null with vim mode off. */
  vim: { mode: VimMode; pending: readonly string[] } | null
}

/** Holds the prompt's state outside React, so several keys arriving between two renders each see the last. */
function createPromptStore() {
  let state = initialPrompt()
  const listeners = new Set<() => void>()
  return {
    get: (): PromptState => state,
    set(next: PromptState) {
      if (next === state) return
      state = next
      for (const listener of [...listeners]) listener()
    },
    subscribe(listener: () => void) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}

const isBusy = (s: State) => s.run.phase !== 'idle'

/**
 * Binds the prompt model (`prompt-model.ts`) to the app: keys and pastes become events, the model's effects
 * run through `runPromptEffect`, and the state is read with `useSyncExternalStore`. No behaviour of its own.
 */
export function usePrompt({ active }: { active: boolean }): PromptView {
  const store = useContext(StoreContext)
  if (!store) throw new Error('StoreContext is missing: wrap the app in <StoreContext.Provider>')
  const commands = useCommands()
  const dispatch = useDispatch()
  const shell = useShell()
  const table = useCommandTable()
  // Re-renders when a loader adds or removes commands, so an open popup shows them.
  const entries = useCommandList()
  const { suspendTerminal } = useApp()
  const clipboard = useContext(ClipboardContext)
  const saveTheme = useContext(SaveThemeContext)
  const busy = useStore(selectIsBusy)
  const queued = useStore(selectQueued)
  const [prompt] = useState(createPromptStore)
  const state = useSyncExternalStore(prompt.subscribe, prompt.get)
  // Vim mode's engine is loaded the first time vim mode is on (never in a session without it).
  const editorMode = useStore(selectEditorMode)
  const [vimEngine, setVimEngine] = useState<VimEngine | null>(null)
  useEffect(() => {
    if (editorMode !== 'vim' || vimEngine) return
    let live = true
    import('./vim/vim-engine.js').then(
      (m) => live && setVimEngine(m.VIM_ENGINE),
      (err: unknown) => shell.flash(`Vim mode could not load: ${String(err)}`, 'error'),
    )
    return () => {
      live = false
    }
  }, [editorMode, vimEngine, shell])
  // biome-ignore lint/correctness/useExhaustiveDependencies: `entries` changes when the table does
  const slash = useMemo(() => slashCompleter(table, store.getState), [table, store, entries])

  const send = (event: PromptEvent): boolean => {
    const s = store.getState()
    const result = reducePrompt(prompt.get(), event, {
      busy: isBusy(s),
      hasTurns: s.turns.length > 0,
      queued: s.queued.length,
      slash,
      ...(vimEngine ? { vim: vimEngine } : {}),
    })
    prompt.set(result.state)
    for (const effect of result.effects) runPromptEffect(effect, deps)
    return result.handled
  }
  const commandContext = (): CommandContext => ({
    commands,
    getState: store.getState,
    contextLimit: shell.contextLimit,
    prices: shell.prices,
    flash: shell.flash,
    showHelp: shell.showHelp,
    showInfo: shell.showInfo,
    showConfirm: shell.showConfirm,
    showMcp: shell.showMcp,
    showSessions: shell.showSessions,
    showModels: shell.showModels,
    resumeSession: shell.requestResume,
    openSetup: shell.requestSetup,
    ...(shell.doctor ? { doctor: shell.doctor } : {}),
    toggleTodos: () => dispatch({ type: 'ui/todos-toggled' }),
    setEditorMode: (mode) => dispatch({ type: 'ui/editor-mode', mode }),
    focusTasks: () => dispatch({ type: 'ui/focus', focus: 'tasks' }),
    openRewind: () => dispatch({ type: 'ui/rewind', open: true }),
    attachImage: (image: ImageAttachment) => send({ type: 'image-loaded', image }),
    ...(clipboard ? { copyText: clipboard.copy } : {}),
    setTheme: (theme) => dispatch({ type: 'theme/chosen', theme }),
    ...(saveTheme ? { saveTheme } : {}),
    exit: shell.requestExit,
  })
  const deps: PromptEffectDeps = {
    commands,
    cwd: () => store.getState().session.cwd,
    model: () => store.getState().session.model,
    flash: shell.flash,
    hint: shell.hint,
    clearFlash: shell.clearFlash,
    runCommand: (line) => runCommandLine(table, line, commandContext()),
    editExternally: async (text) => {
      let result: EditorResult = { ok: false, error: 'editor did not run' }
      await suspendTerminal(() => {
        result = editInExternalEditor(text)
      })
      return result
    },
    send,
    openRewind: () => dispatch({ type: 'ui/rewind', open: true }),
    ...(clipboard ? { pasteImage: clipboard.pasteImage } : {}),
  }

  usePaste((text) => runPromptEffect({ type: 'paste', text }, deps), { isActive: active })
  useKeyHandler(KEY_PRIORITY.input, (ev) => send({ type: 'key', key: ev }), active)
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the mode or the engine changes, with that render's send
  useLayoutEffect(() => {
    send({ type: 'editor-mode', vim: editorMode === 'vim' && vimEngine !== null })
  }, [editorMode, vimEngine])
  // Keys a pane handed over when it gave the prompt the focus: typed in order, before any new key.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the prompt becomes active, with that render's send
  useLayoutEffect(() => {
    if (!active) return
    for (const ev of shell.typeAhead.take()) send({ type: 'key', key: ev, typedAhead: true })
  }, [active, shell])

  const items = useMemo(() => promptItems(state, { slash }), [state, slash])
  return {
    editor: state.editor,
    search: state.search,
    searchMatch: searchMatchText(state),
    items,
    popupIndex: Math.min(state.popupIndex, Math.max(0, items.length - 1)),
    vim: state.vim ? { mode: state.vim.mode, pending: state.vim.pending } : null,
    busy,
    queued,
  }
}
