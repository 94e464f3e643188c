import type { ChatMessage, UserMessage } from '../../store/messages.js'
import type { CompactionRecord } from '../../store/domain.js'

/** One message of a request being assembled, with the history index it came from (-1: made up here). */
export interface Entry {
  message: ChatMessage
  source: number
  /** What the entry is in the request, for the breakdown and the transcript marks. */
  role?: 'summary' | 'masked'
}

/** min(5 % of the window, 2,000) tokens, but at least 500. */
export function summaryBudget(contextLimit: number): number {
  return Math.max(500, Math.min(2000, Math.floor(contextLimit * 0.05)))
}

/** Recent messages kept verbatim: about one per 4,000 tokens of window, at least 6 (docs/context.md#compaction). */
export function recentCount(contextLimit: number): number {
  return Math.max(6, Math.floor(contextLimit / 4000))
}

/**
 * Where the recent part starts: `recentCount` messages from the end, moved back so it never starts with
 * a tool result (a call and its results stay together), then forward past groups while the recent part
 * alone would take more than `recentTokenBudget` — but never past `latest`, where the latest assistant
 * step starts (it is always kept whole). Null when nothing after `start` could be summarised.
 */
export function chooseCut(
  messages: readonly ChatMessage[],
  opts: {
    start: number
    keep: number
    tokens(index: number): number
    recentTokenBudget: number
    latest?: number
  },
): number | null {
  const n = messages.length
  const latest = Math.min(opts.latest ?? n, n)
  const safe = (i: number) => i >= n || messages[i]?.role !== 'tool'
  let cut = Math.min(Math.max(opts.start, n - opts.keep), latest)
  while (cut > opts.start && !safe(cut)) cut--
  let recent = 0
  for (let i = cut; i < n; i++) recent += opts.tokens(i)
  while (recent > opts.recentTokenBudget) {
    let next = cut + 1
    while (next < n && !safe(next)) next++
    if (next >= n - 1 || next > latest) break
    for (let i = cut; i < next; i++) recent -= opts.tokens(i)
    cut = next
  }
  return cut - opts.start >= 2 ? cut : null
}

/**
 * History indices before `cut` that the request keeps verbatim: the latest user request and pinned
 * messages — a pinned call or result brings its whole group (the call and every result), so the
 * tool_calls ↔ tool pairing holds.
 */
export function keptBefore(
  messages: readonly ChatMessage[],
  cut: number,
  opts: { pinned(index: number): boolean; latestUserRequest: number },
): number[] {
  const kept = new Set<number>()
  const addGroup = (assistant: number) => {
    kept.add(assistant)
    for (let j = assistant + 1; j < cut && messages[j]?.role === 'tool'; j++) kept.add(j)
  }
  for (let i = 0; i < cut; i++) {
    const message = messages[i] as ChatMessage
    if (i === opts.latestUserRequest) kept.add(i)
    if (!opts.pinned(i)) continue
    if (message.role === 'tool') {
      let a = i - 1
      while (a >= 0 && messages[a]?.role === 'tool') a--
      if (a >= 0 && messages[a]?.role === 'assistant') addGroup(a)
    } else if (message.role === 'assistant' && message.tool_calls?.length) addGroup(i)
    else kept.add(i)
  }
  return [...kept].sort((a, b) => a - b)
}

export function summaryMessage(record: CompactionRecord): UserMessage {
  return {
    role: 'user',
    content:
      `[Summary of the conversation so far: ${record.summarised} earlier messages were compacted to save context. ` +
      `Pinned messages and the latest request follow verbatim.]\n\n${record.summary}`,
  }
}

/**
 * The request's messages before masking: with a compaction in effect, its summary, then the kept
 * messages from before the cut, then everything from the cut on.
 */
export function compactedEntries(
  messages: readonly ChatMessage[],
  compaction: { record: CompactionRecord; summary: ChatMessage } | null,
  kept: readonly number[],
): Entry[] {
  if (!compaction) return messages.map((message, source) => ({ message, source }))
  const cut = Math.min(compaction.record.cut, messages.length)
  const entries: Entry[] = [{ message: compaction.summary, source: -1, role: 'summary' }]
  for (const i of kept) entries.push({ message: messages[i] as ChatMessage, source: i })
  for (let i = cut; i < messages.length; i++) entries.push({ message: messages[i] as ChatMessage, source: i })
  return entries
}

/** The summariser's instructions, appended after the history it summarises. */
export function summariserPrompt(opts: {
  budget: number
  focus?: string
  hasEarlierSummary: boolean
}): string {
  const lines = [
    'Stop here and write a summary of the conversation above; it will replace these messages, so anything',
    'it leaves out is lost to you. Do not call tools. Use exact file paths, names, commands and error texts.',
    'Use these sections:',
    '',
    'FILES MODIFIED: every file created, edited or deleted, and what changed in it.',
    'DECISIONS MADE: what was decided and why, and approaches ruled out.',
    'ERRORS ENCOUNTERED: errors, failing commands and tests, and whether and how each was resolved.',
    'CURRENT STATE: what is done, what is in progress, what the user asked for last, what remains.',
    'KEY CODE PATTERNS: conventions, APIs, signatures and short snippets the remaining work depends on.',
  ]
  if (opts.hasEarlierSummary) {
    lines.push(
      '',
      'The conversation starts with an earlier summary: fold everything still relevant in it into yours.',
    )
  }
  if (opts.focus) {
    lines.push(
      '',
      `FOCUS: the user asked the summary to concentrate on: ${opts.focus}`,
      'Give that the most room and detail, and add a FOCUS section for it.',
    )
  }
  lines.push('', `Stay under ${opts.budget} tokens. Reply with the summary only.`)
  return lines.join('\n')
}
