/** Bounded text accumulator that keeps the start and the end of a stream and counts what it dropped. */
export interface HeadTailBuffer {
  append(chunk: string): void
  /** Everything kept; when something was dropped, head and tail around a marker that says how much. */
  text(): string
  /** The last `chars` characters received (for live progress). */
  tail(chars: number): string
  readonly totalChars: number
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
  let dropped = 0

  return {
    append(chunk) {
      total += chunk.length
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
      if (tail.length > tailMax * 2) {
        dropped += tail.length - tailMax
        tail = tail.slice(tail.length - tailMax)
      }
    },
    text() {
      if (!overflowing) return head
      if (tail.length > tailMax) {
        dropped += tail.length - tailMax
        tail = tail.slice(tail.length - tailMax)
      }
      return dropped === 0
        ? head + tail
        : `${head}\n… [${dropped} chars of output dropped from memory] …\n${tail}`
    },
    tail(chars) {
      const recent = overflowing ? tail : head
      return recent.length > chars ? recent.slice(recent.length - chars) : recent
    },
    get totalChars() {
      return total
    },
    get droppedChars() {
      return dropped
    },
  }
}
