import { openOwnForReading } from '../util/safe-files.js'

/**
 * The `/resume` picker's content search: which sessions' conversations mention a text. Bounded so that
 * thousands of sessions never slow the picker: each log is read only up to `maxBytesPerSession` from its
 * start, at most `maxSessions` logs (newest first, as listed), one at a time, and an abort (the next
 * keystroke) stops it between reads. Only what was said counts (prompts, answers, titles), not the log's
 * JSON keys or tool output.
 */
export interface ContentSearchOptions {
  maxBytesPerSession?: number
  maxSessions?: number
  signal?: AbortSignal
  /** Each match as it is found, so the list can grow while the search goes on. */
  onMatch?(id: string): void
}

export const CONTENT_SEARCH_LIMITS = { maxBytesPerSession: 1024 * 1024, maxSessions: 500 }

export async function searchSessionContent(
  sessions: ReadonlyArray<{ id: string; path?: string }>,
  query: string,
  opts: ContentSearchOptions = {},
): Promise<Set<string>> {
  const needle = query.trim().toLowerCase()
  const found = new Set<string>()
  if (!needle) return found
  const maxBytes = opts.maxBytesPerSession ?? CONTENT_SEARCH_LIMITS.maxBytesPerSession
  const maxSessions = opts.maxSessions ?? CONTENT_SEARCH_LIMITS.maxSessions
  for (const session of sessions.slice(0, maxSessions)) {
    if (opts.signal?.aborted) break
    if (!session.path) continue
    const head = await readHead(session.path, maxBytes)
    if (opts.signal?.aborted) break
    if (head !== undefined && logMentions(head, needle)) {
      found.add(session.id)
      opts.onMatch?.(session.id)
    }
  }
  return found
}

async function readHead(path: string, maxBytes: number): Promise<string | undefined> {
  try {
    const handle = await openOwnForReading(path)
    try {
      const buffer = Buffer.alloc(Math.min(maxBytes, (await handle.stat()).size))
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
      return buffer.subarray(0, bytesRead).toString('utf8')
    } finally {
      await handle.close()
    }
  } catch {
    return undefined
  }
}

/** Whether any event of a log's text says `needle` (lower case) in what a user or the model wrote. */
export function logMentions(text: string, needle: string): boolean {
  // JSON escapes quotes, backslashes and control characters: only a needle without them can be looked
  // for in the raw line first, which skips parsing every line that cannot match.
  const rawCheck = !/["\\\u0000-\u001f]/.test(needle)
  for (const line of text.split('\n')) {
    if (!line) continue
    if (rawCheck && !line.toLowerCase().includes(needle)) continue
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      continue // A line cut by the read's end, or torn.
    }
    if (eventText(value).toLowerCase().includes(needle)) return true
  }
  return false
}

/** The said text of one log event ('' for events that carry none). */
export function eventText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return ''
  const event = value as Record<string, unknown>
  switch (event.type) {
    case 'user/submitted':
      return contentText(event.content)
    case 'assistant/settled': {
      const message = event.message as Record<string, unknown> | undefined
      return typeof message?.content === 'string' ? message.content : ''
    }
    case 'session/titled':
    case 'session/renamed':
      return typeof event.title === 'string' ? event.title : ''
    default:
      return ''
  }
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((part) => (part && typeof part === 'object' && part.type === 'text' ? String(part.text ?? '') : ''))
    .join('\n')
}

/**
 * The picker's list for a query: sessions whose title or id holds it (case-insensitive), then those only
 * the content search found, each group in the listed (newest first) order. An empty query lists all.
 */
export function filterSessions<T extends { id: string; title: string }>(
  sessions: readonly T[],
  query: string,
  contentMatches: ReadonlySet<string> = new Set(),
): T[] {
  const needle = query.trim().toLowerCase()
  if (!needle) return [...sessions]
  const byTitle = sessions.filter(
    (s) => s.title.toLowerCase().includes(needle) || s.id.toLowerCase().includes(needle),
  )
  const titled = new Set(byTitle.map((s) => s.id))
  return [...byTitle, ...sessions.filter((s) => !titled.has(s.id) && contentMatches.has(s.id))]
}
