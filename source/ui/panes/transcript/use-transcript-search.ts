import { usePaste } from 'ink'
import { useContext, useEffect, useMemo, useRef, useSyncExternalStore } from 'react'
import type { Theme } from '../../components/theme.js'
import { StoreContext, useDispatch } from '../../hooks/use-store.js'
import { KEY_PRIORITY, type KeyEvent, useKeyHandler } from '../../keys/dispatcher.js'
import type { TypeAhead } from '../../shell-context.js'
import type { TranscriptSearch } from './transcript-search.js'
import type { TranscriptView } from './transcript-view.js'

/**
 * Where the pane finds the search: one per view, there before the search is loaded, so the pane subscribes
 * once and hears the search from its first key on.
 */
export interface SearchSlot {
  readonly search: TranscriptSearch | null
  subscribe(listener: () => void): () => void
}

export function createSearchSlot(): SearchSlot & { fill(search: TranscriptSearch): void } {
  let current: TranscriptSearch | null = null
  const listeners = new Set<() => void>()
  const notify = () => {
    for (const listener of [...listeners]) listener()
  }
  return {
    get search() {
      return current
    },
    fill(search) {
      current = search
      search.subscribe(notify)
      notify()
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}

/** What the empty prompt says while the search has the keys. */
export const SEARCH_AWAY_HINT = 'the search has the keys · Esc back to the prompt'

/**
 * The keys of the transcript search (Ctrl+F; `/`, n and N with the transcript focused). The search itself
 * (`transcript-search.ts`) is imported at the first Ctrl+F, so a session that never searches never loads it;
 * what is typed while it loads is kept for its field. While it is open the store's focus is `transcript`
 * and the prompt is inactive; Esc closes it and gives the focus back to the prompt, whose draft is untouched.
 * With the keys on the transcript, a printable key that is not n, N or `/` closes the search and goes to
 * the prompt (`typeAhead`), so nothing typed is dropped.
 */
export function useTranscriptSearch(
  view: TranscriptView,
  theme: Theme,
  typeAhead: TypeAhead,
  shown: boolean,
): SearchSlot {
  const store = useContext(StoreContext)
  const dispatch = useDispatch()
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new view (a theme change) starts without a search
  const slot = useMemo(() => createSearchSlot(), [view])
  // What is typed while the module loads, for its field; null when not loading.
  const pending = useRef<string | null>(null)

  // Keys arrive faster than renders, and the search loads between them: read the slot at key time.
  const close = () => {
    pending.current = null
    slot.search?.send({ type: 'close' })
    dispatch({ type: 'ui/focus', focus: 'input' })
  }
  const open = () => {
    dispatch({ type: 'ui/focus', focus: 'transcript' })
    if (slot.search) return slot.search.send({ type: 'open' })
    if (pending.current !== null) return
    pending.current = ''
    void import('./transcript-search.js').then(({ createTranscriptSearch }) => {
      const typed = pending.current
      if (typed === null) return
      pending.current = null
      const made = createTranscriptSearch(view, theme)
      made.send({ type: 'open' })
      if (typed !== '') made.send({ type: 'input', text: typed })
      slot.fill(made)
    })
  }

  const focused = () => store?.getState().ui.focus === 'transcript'
  useKeyHandler(KEY_PRIORITY.pane, (ev) => {
    const live = slot.search
    const phase = live?.state.phase ?? (pending.current !== null ? 'field' : 'closed')
    if (phase === 'closed' || !focused()) {
      if (!ev.has('search.open') || !shown) return false
      open()
      return true
    }
    if (ev.has('search.close')) close()
    else if (ev.has('search.open')) open()
    else if (!live) {
      // Still loading: keep what is typed for the field.
      if (isTyping(ev)) pending.current += ev.input
      else return false
    } else if (ev.has('search.focus')) live.send({ type: 'toggle-focus' })
    else if (phase === 'field') {
      if (ev.has('search.next')) live.step(1)
      else if (ev.has('search.previous')) live.step(-1)
      else if (ev.has('input.backspace')) live.send({ type: 'backspace' })
      else if (ev.has('input.killLineLeft')) live.send({ type: 'clear' })
      else if (isTyping(ev)) live.send({ type: 'input', text: ev.input })
      else return false
    } else if (ev.has('search.nextMatch') || ev.has('search.next')) live.step(1)
    else if (ev.has('search.previousMatch') || ev.has('search.previous')) live.step(-1)
    else if (ev.has('search.edit')) live.send({ type: 'open' })
    else if (isTyping(ev)) {
      // Not one of the transcript's keys: meant for the prompt, which gets the focus and the key.
      close()
      typeAhead.push(ev)
    } else return false
    return true
  })
  // Re-renders on a change of phase only (not per key in the field): for the paste target and the effect below.
  const phase = useSyncExternalStore(slot.subscribe, () => slot.search?.state.phase ?? 'closed')
  const live = slot.search
  usePaste((text) => slot.search?.send({ type: 'input', text }), { isActive: phase === 'field' })

  // The transcript gone from the screen (an overlay, a job's output), the focus taken elsewhere, or a new
  // view (a theme change) without its search: close, and never leave the focus where no one takes the keys.
  const isOpen = phase !== 'closed'
  const focus = store?.getState().ui.focus
  useEffect(() => {
    if (focus !== 'transcript') {
      if (isOpen) live?.send({ type: 'close' })
    } else if (!shown || (!isOpen && pending.current === null)) {
      pending.current = null
      live?.send({ type: 'close' })
      dispatch({ type: 'ui/focus', focus: 'input' })
    }
  }, [isOpen, shown, focus, live, dispatch])
  return slot
}

/** A printable key without Ctrl or Meta: text typed, not a command. */
function isTyping(ev: KeyEvent): boolean {
  return ev.input !== '' && !ev.key.ctrl && !ev.key.meta && !/[\x00-\x1f\x7f]/.test(ev.input)
}
