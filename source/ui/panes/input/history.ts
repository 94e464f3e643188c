/**
 * Prompt history as a pure value. `index` is null while editing a fresh draft; browsing keeps the
 * draft so ↓ past the newest entry brings it back.
 */
export interface HistoryState {
  /** Oldest first. */
  entries: readonly string[]
  index: number | null
  draft: string
}

export const EMPTY_HISTORY: HistoryState = { entries: [], index: null, draft: '' }

const MAX_ENTRIES = 500

export function pushHistory(history: HistoryState, text: string): HistoryState {
  const trimmed = text.trim()
  if (!trimmed) return { ...history, index: null, draft: '' }
  const entries = history.entries.at(-1) === text ? history.entries : [...history.entries, text]
  return { entries: entries.slice(-MAX_ENTRIES), index: null, draft: '' }
}

/** Older entry; null when there is none (the caller keeps the text as is). */
export function historyPrev(
  history: HistoryState,
  current: string,
): { history: HistoryState; text: string } | null {
  const { entries, index } = history
  if (entries.length === 0) return null
  const next = index === null ? entries.length - 1 : index - 1
  if (next < 0) return null
  const draft = index === null ? current : history.draft
  return { history: { entries, index: next, draft }, text: entries[next] ?? '' }
}

/** Newer entry, or the saved draft after the newest; null when not browsing. */
export function historyNext(history: HistoryState): { history: HistoryState; text: string } | null {
  const { entries, index } = history
  if (index === null) return null
  if (index + 1 >= entries.length)
    return { history: { entries, index: null, draft: '' }, text: history.draft }
  return { history: { ...history, index: index + 1 }, text: entries[index + 1] ?? '' }
}

/**
 * Ctrl+R: newest entry strictly older than `before` (exclusive index; pass entries.length to start)
 * that contains `query`, case-insensitively. -1 when nothing matches.
 */
export function searchHistory(entries: readonly string[], query: string, before: number): number {
  const needle = query.toLowerCase()
  for (let i = Math.min(before, entries.length) - 1; i >= 0; i--) {
    if ((entries[i] ?? '').toLowerCase().includes(needle)) return i
  }
  return -1
}
