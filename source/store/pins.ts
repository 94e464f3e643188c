import type { State, TranscriptItem } from './state.js'

/** Items that can be pinned: messages and finished tool results (not notices, not compaction cards). */
export function isPinnable(item: TranscriptItem | undefined): boolean {
  if (!item || item.kind === 'notice') return false
  if (item.kind === 'assistant') return item.text.trim() !== ''
  if (item.kind === 'tool')
    return item.status !== 'running' && item.status !== 'pending' && item.name !== 'Compact'
  return true
}

/** Why an item cannot be pinned, or null when it can. */
export function pinRefusal(item: TranscriptItem | undefined): string | null {
  if (isPinnable(item) && item && item.kind !== 'notice' && item.kind !== 'hook') return null
  if (item?.kind === 'tool' && (item.status === 'running' || item.status === 'pending'))
    return 'the tool is still running: pin its result once it is done'
  if (item?.kind === 'tool') return 'a compaction summary is always kept'
  return 'only messages and tool results can be pinned'
}

/** Pinned items in transcript order. */
export function pinnedItems(state: State): TranscriptItem[] {
  const pins = state.context.pins
  return state.transcript.order
    .filter((id) => pins[id] === true)
    .map((id) => state.transcript.items[id])
    .filter((item): item is TranscriptItem => item !== undefined)
}

/** One line naming an item, as `/pin` lists it and confirmations quote it. */
export function itemLabel(item: TranscriptItem, max = 60): string {
  const short = (text: string) => {
    const flat = text.replace(/\s+/g, ' ').trim()
    return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
  }
  switch (item.kind) {
    case 'user':
      return `› ${short(item.text)}`
    case 'assistant':
      return `reply “${short(item.text)}”`
    case 'tool':
      return short(`${item.name} ${item.summary.replace(new RegExp(`^${escapeRegExp(item.name)}\\s*`), '')}`)
    case 'notice':
    case 'hook':
      return short(item.text)
  }
}

/**
 * The item `/pin <query>` means: `last` is the newest tool result; other text picks the newest message or
 * tool result that contains it (case-insensitive), in what the user typed, the reply, or the tool's
 * summary and output.
 */
export function findPinTarget(state: State, query: string): TranscriptItem | undefined {
  const order = state.transcript.order
  const wanted = query.trim().toLowerCase()
  for (let i = order.length - 1; i >= 0; i--) {
    const item = state.transcript.items[order[i] as string]
    if (!isPinnable(item) || !item) continue
    if (wanted === 'last') {
      if (item.kind === 'tool') return item
      continue
    }
    const haystack =
      item.kind === 'tool'
        ? `${item.name} ${item.summary} ${item.result}`
        : item.kind === 'notice'
          ? ''
          : item.text
    if (haystack.toLowerCase().includes(wanted)) return item
  }
  return undefined
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
