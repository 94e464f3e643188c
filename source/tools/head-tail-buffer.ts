/** Bounded text accumulator that keeps the start and the end of a stream and counts what it dropped. */
export interface HeadTailBuffer {
  append(chunk: string): void
  /**
   * Everything kept; when something was dropped, head and tail around a marker that says how much
   * (and `where`, if given, the place that holds all of it).
   */
  text(where?: string): string
  /** The first `chars` characters received (at most what the head keeps: half of `maxChars`). */
  head(chars: number): string
  /** The last `chars` characters received (at most what the tail keeps: half of `maxChars`). */
  tail(chars: number): string
  readonly totalChars: number
  /** Line breaks ("\n") received. */
  readonly totalNewlines: number
  readonly droppedChars: number
}

/**
 * Creates a buffer holding at most about `maxChars` characters: everything while it fits, then the
 * first half and a rolling last half. A command printing gigabytes costs constant memory, and the
 * first error and the latest lines both survive.
 */
export function createHeadTailBuffer(maxChars: number): HeadTailBuffer {
  const headMax = Math.floor(maxChars / 2)
  const tailMax = maxChars - headMax
  let head = ''
  let tail = ''
  let overflowing = false
  let total = 0
  let newlines = 0
  let dropped = 0

  const trimTail = (): void => {
    if (tail.length <= tailMax) return
    dropped += tail.length - tailMax
    tail = tail.slice(tail.length - tailMax)
  }

  return {
    append(chunk) {
      total += chunk.length
      newlines += countNewlines(chunk)
      if (!overflowing) {
        head += chunk
        if (head.length <= maxChars) return
        overflowing = true
        tail = head.slice(headMax)
        head = head.slice(0, headMax)
      } else {
        tail += chunk
      }
      // Trim in batches so appending stays amortised O(n).
      if (tail.length > tailMax * 2) trimTail()
    },
    text(where) {
      if (!overflowing) return head
      trimTail()
      if (dropped === 0) return head + tail
      return `${head}\n… [${dropped} chars of output dropped from memory${where ? `; ${where}` : ''}] …\n${tail}`
    },
    head(chars) {
      return head.slice(0, chars)
    },
    tail(chars) {
      const recent = overflowing ? tail : head
      return recent.length > chars ? recent.slice(recent.length - chars) : recent
    },
    get totalChars() {
      return total
    },
    get totalNewlines() {
      return newlines
    },
    get droppedChars() {
      trimTail()
      return dropped
    },
  }
}

export function countNewlines(text: string): number {
  let n = 0
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) n++
  return n
}
