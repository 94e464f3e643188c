import { useMemo, useSyncExternalStore } from 'react'
import type { TranscriptView } from './transcript-view.js'

export interface TranscriptScroll {
  /** True while the view sticks to the bottom (false once the user scrolled up). */
  following: boolean
  /** Scrolls by lines; negative is up (mouse wheel: ±3). */
  scrollBy(delta: number): void
  pageUp(): void
  pageDown(): void
  home(): void
  end(): void
  /** The id Ctrl+O should toggle (`ui/expand-toggled`), if an expandable item is on screen. */
  expandTarget(): string | undefined
  /** The id Ctrl+P should pin or unpin, if a message or finished tool card is on screen. */
  pinTarget(): string | undefined
}

/**
 * Scroll commands for the key dispatcher plus the `following` flag (e.g. for a status hint). The
 * functions are stable for a given view, so handlers built from them never need re-subscribing.
 */
export function useTranscriptScroll(view: TranscriptView): TranscriptScroll {
  const following = useSyncExternalStore(view.subscribe, view.isFollowing)
  const commands = useMemo(
    () => ({
      scrollBy: (delta: number) => view.scrollBy(delta),
      pageUp: () => view.pageUp(),
      pageDown: () => view.pageDown(),
      home: () => view.home(),
      end: () => view.end(),
      expandTarget: () => view.expandTarget(),
      pinTarget: () => view.pinTarget(),
    }),
    [view],
  )
  return useMemo(() => ({ following, ...commands }), [following, commands])
}
