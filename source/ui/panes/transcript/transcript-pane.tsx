import { memo, useContext, useMemo } from 'react'
import type { State } from '../../../store/state.js'
import type { Theme } from '../../components/theme.js'
import { StoreContext } from '../../hooks/use-store.js'
import { type RowSource, useRowSurface } from '../../terminal/row-surface.js'
import type { TranscriptSnapshot, TranscriptView } from './transcript-view.js'
import type { SearchSlot } from './use-transcript-search.js'

export interface TranscriptPaneProps {
  /** Owns the line cache and the scroll state; created once by the app (`createTranscriptView`). */
  view: TranscriptView
  theme: Theme
  width: number
  /**
   * Rows to fill, exactly: a taller frame would make Ink redraw the whole screen. Undefined before the
   * parent has been measured: the pane then grows into the space it is given.
   */
  height: number | undefined
  /** The transcript search once loaded (Ctrl+F): while open, its highlights and its row under the transcript. */
  search?: SearchSlot
}

const snapshotOf = (s: State): TranscriptSnapshot => ({
  order: s.transcript.order,
  items: s.transcript.items,
  expanded: s.ui.expanded,
})

/**
 * The virtualised transcript: exactly `height` rows of pre-rendered lines, drawn through `useRowSurface`
 * (painted beside Ink in a real terminal, so streaming text never costs an Ink frame; rendered by Ink
 * elsewhere — the same rows either way).
 */
export const TranscriptPane = memo(function TranscriptPane({
  view,
  theme,
  width,
  height,
  search,
}: TranscriptPaneProps) {
  const store = useContext(StoreContext)
  if (!store) throw new Error('StoreContext is missing: render the transcript inside <TuiRoot>')
  const source = useMemo((): RowSource => {
    const hint = newOutputHint(theme)
    return {
      rows: (size) => {
        const open = search?.search
        if (open?.isOpen() && size.height > 1) {
          // The search's row takes the last one: the view scrolls in the rows above it.
          const rows = size.height - 1
          const shown = open.frame(snapshotOf(store.getState()), size.width, rows)
          return [...view.layout(shown.snapshot, size.width, rows, shown.decorate).rows, shown.bar]
        }
        const frame = view.layout(snapshotOf(store.getState()), size.width, size.height)
        if (!frame.newOutput || frame.rows.length === 0) return frame.rows
        return [...frame.rows.slice(0, -1), hint]
      },
      subscribe: (changed) => {
        let seen = snapshotOf(store.getState())
        const unsubscribeStore = store.subscribe(() => {
          const now = store.getState()
          if (
            now.transcript.order === seen.order &&
            now.transcript.items === seen.items &&
            now.ui.expanded === seen.expanded
          )
            return
          seen = snapshotOf(now)
          changed(false)
        })
        // Scrolling is the user's own action: it answers at once.
        const unsubscribeView = view.subscribe(() => changed(true))
        const unsubscribeSearch = search?.subscribe(() => changed(true))
        return () => {
          unsubscribeStore()
          unsubscribeView()
          unsubscribeSearch?.()
        }
      },
    }
  }, [store, view, theme, search])
  return useRowSurface(source, height === undefined ? { width, grow: true } : { width, height, grow: true })
})

const HINT_LABEL = ' ↓ new output '
const HINT_TAIL = ' End to follow'

function newOutputHint(theme: Theme): string {
  return theme.hint(HINT_LABEL) + theme.dim(HINT_TAIL)
}
