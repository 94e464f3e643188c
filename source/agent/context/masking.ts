import type { ChatMessage, ToolMessage } from '../../store/messages.js'

/** Results this short are cheaper to keep than to replace (docs/context.md#observation-masking). */
export const MASK_MIN_CHARS = 200
const FIRST_LINE_MAX = 80

/**
 * How many tool results, counted from the oldest, the requests show as placeholders. The boundary moves
 * in epochs: only when the unmasked tail reaches twice the window does it jump, leaving `window` results
 * whole — so between jumps every request extends the previous one byte for byte and provider caches
 * stay warm. A pure function of the count, so a resumed session masks exactly as before the restart.
 */
export function maskBoundary(toolResults: number, window: number): number {
  if (window <= 0) return toolResults
  if (toolResults < 2 * window) return 0
  return window * (Math.floor(toolResults / window) - 1)
}

export interface MaskPlan {
  /** Tool results in the history. */
  total: number
  boundary: number
  /** History indices of the tool messages to show as placeholders. */
  indices: number[]
}

/** Which tool messages of `messages` to mask: outside the window, long enough, and not pinned. */
export function planMasking(
  messages: readonly ChatMessage[],
  opts: { window: number; pinned(index: number): boolean },
): MaskPlan {
  let total = 0
  for (const message of messages) if (message.role === 'tool') total++
  const boundary = maskBoundary(total, opts.window)
  const indices: number[] = []
  let ordinal = 0
  for (let i = 0; i < messages.length && ordinal < boundary; i++) {
    const message = messages[i] as ChatMessage
    if (message.role !== 'tool') continue
    ordinal++
    if (message.content.length > MASK_MIN_CHARS && !opts.pinned(i)) indices.push(i)
  }
  return { total, boundary, indices }
}

/** The first line worth showing: Read's `cat -n` numbering removed, whitespace collapsed, capped. */
export function firstLine(text: string): string {
  const line =
    text
      .split('\n')
      .map((l) => l.replace(/^\s*\d+\t/, '').trim())
      .find((l) => l !== '') ?? ''
  const flat = line.replace(/\s+/g, ' ')
  return flat.length > FIRST_LINE_MAX ? `${flat.slice(0, FIRST_LINE_MAX - 1)}…` : flat
}

/** The text a masked result is sent as; `path` holds the full result, which `Read` restores. */
export function placeholderText(content: string, path: string): string {
  return `[Tool result masked: ${content.length} chars, first line: ${firstLine(content)}; full output: ${path}]`
}

export function placeholderMessage(original: ToolMessage, path: string): ToolMessage {
  return {
    role: 'tool',
    tool_call_id: original.tool_call_id,
    content: placeholderText(original.content, path),
  }
}

/** What the system prompt tells the model once, so it knows how to get a masked result back. */
export const MASKING_NOTE =
  '- To save context, older tool results may be replaced by `[Tool result masked: N chars, first line: …; full output: <path>]`. ' +
  'The full result is in that file: Read it (no permission needed) when you need it again.'
