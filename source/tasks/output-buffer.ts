/**
 * A bounded head + tail byte buffer for background job output. The first `headBytes` are kept for good
 * (the first error usually explains the rest), then the last `tailBytes` in a ring; whatever falls
 * between is dropped and counted. Memory never exceeds headBytes + tailBytes, and appending costs
 * O(chunk) however much has been written.
 *
 * Readers hold a cursor: an absolute byte offset into everything ever appended. `read(cursor)` returns
 * the text from there on, how many bytes in that range were dropped, and the next cursor.
 */

export const DEFAULT_HEAD_BYTES = 64 * 1024
export const DEFAULT_TAIL_BYTES = 1024 * 1024

export interface OutputBufferOptions {
  /** Bytes kept from the very start (default 64 KiB; may be 0). */
  headBytes?: number
  /** Bytes kept from the end (default 1 MiB; at least 1). */
  tailBytes?: number
}

export interface BufferRead {
  /** Decoded text from the cursor to the end of what is held (both sides of a gap, joined). */
  text: string
  /** Bytes after the cursor that were dropped before this read could see them. */
  droppedBytes: number
  /** Index in `text` where the dropped bytes used to be; null when nothing was dropped. */
  gapAt: number | null
  /** Pass to the next `read` to get only what arrives after this one. */
  cursor: number
}

export interface OutputBuffer {
  append(chunk: Uint8Array): void
  /**
   * Accounts for `n` bytes that were produced but never handed over (a reader of a log file jumping
   * to its last `tailBytes`). Only valid once the head is full; the tail restarts after the gap.
   */
  skip(n: number): void
  /** Bytes the head still takes before the tail starts. */
  readonly headRoom: number
  readonly tailBytes: number
  /** Every byte ever appended, kept or not. */
  readonly totalBytes: number
  /** Bytes dropped from the middle so far. */
  readonly droppedBytes: number
  /** Bytes of memory currently allocated for content; never above headBytes + tailBytes. */
  readonly allocatedBytes: number
  /**
   * Text from `cursor` (0 ≤ cursor ≤ totalBytes) to the end. Unless `final`, an incomplete UTF-8
   * sequence at the end is held back for the next read instead of being decoded as U+FFFD; pass
   * `final: true` once no more output can arrive.
   */
  read(cursor: number, opts?: { final?: boolean }): BufferRead
}

const EMPTY = Buffer.alloc(0)

/** Creates an empty buffer; throws a RangeError on nonsensical bounds. */
export function createOutputBuffer(opts: OutputBufferOptions = {}): OutputBuffer {
  const headLimit = opts.headBytes ?? DEFAULT_HEAD_BYTES
  const tailLimit = opts.tailBytes ?? DEFAULT_TAIL_BYTES
  if (!Number.isSafeInteger(headLimit) || headLimit < 0) {
    throw new RangeError(`headBytes must be a non-negative integer, got ${headLimit}`)
  }
  if (!Number.isSafeInteger(tailLimit) || tailLimit < 1) {
    throw new RangeError(`tailBytes must be a positive integer, got ${tailLimit}`)
  }

  // Both regions grow on demand, so a job that prints three lines costs kilobytes, not a megabyte.
  let head: Buffer = EMPTY
  let headLen = 0
  const tail = createRing(tailLimit)
  let total = 0

  const appendHead = (chunk: Uint8Array): Uint8Array => {
    if (headLen >= headLimit) return chunk
    const n = Math.min(headLimit - headLen, chunk.length)
    if (headLen + n > head.length) {
      const grown = Buffer.allocUnsafe(Math.min(headLimit, Math.max(headLen + n, head.length * 2, 4096)))
      head.copy(grown, 0, 0, headLen)
      head = grown
    }
    head.set(chunk.subarray(0, n), headLen)
    headLen += n
    return chunk.subarray(n)
  }

  return {
    append(chunk) {
      const rest = appendHead(chunk)
      if (rest.length > 0) tail.push(rest)
      total += chunk.length
    },
    skip(n) {
      if (n <= 0) return
      if (headLen < headLimit) {
        throw new RangeError(`skip needs a full head (${headLen} of ${headLimit} bytes held)`)
      }
      tail.clear()
      total += n
    },
    get headRoom() {
      return headLimit - headLen
    },
    tailBytes: tailLimit,
    get totalBytes() {
      return total
    },
    get droppedBytes() {
      return total - headLen - tail.length
    },
    get allocatedBytes() {
      return head.length + tail.capacity
    },
    read(cursor, readOpts = {}) {
      if (!Number.isSafeInteger(cursor) || cursor < 0 || cursor > total) {
        throw new RangeError(`cursor must be an integer between 0 and ${total}, got ${cursor}`)
      }
      const final = readOpts.final ?? false
      // Offsets: head holds [0, headLen), the ring holds [tailStart, total), the gap lies between.
      const tailStart = total - tail.length
      const before = cursor < headLen ? head.subarray(cursor, headLen) : EMPTY
      const from = Math.max(cursor, headLen)
      const gap = Math.max(0, tailStart - from)
      const tailFrom = Math.max(from, tailStart)
      const after = tail.slice(tailFrom - tailStart, tail.length)

      if (gap === 0) {
        const bytes =
          before.length === 0 ? after : after.length === 0 ? before : Buffer.concat([before, after])
        // A cursor from an earlier read always sits on a character boundary; one chosen by the caller
        // (e.g. "the last N bytes") may not, so skip a partial character rather than decode it as U+FFFD.
        const skip = cursor > 0 ? leadingContinuationBytes(bytes) : 0
        const end = final ? bytes.length : completeLength(bytes)
        const kept = bytes.subarray(skip, Math.max(skip, end))
        return {
          text: kept.toString('utf8'),
          droppedBytes: 0,
          gapAt: null,
          cursor: cursor + skip + kept.length,
        }
      }

      // Characters cut in half by the gap are dropped whole, so both sides decode cleanly.
      const beforeEnd = completeLength(before)
      const skip = leadingContinuationBytes(after)
      const rest = after.subarray(skip)
      const restEnd = final ? rest.length : completeLength(rest)
      const textBefore = before.subarray(0, beforeEnd).toString('utf8')
      return {
        text: textBefore + rest.subarray(0, restEnd).toString('utf8'),
        droppedBytes: gap + (before.length - beforeEnd) + skip,
        gapAt: textBefore.length,
        cursor: tailFrom + skip + restEnd,
      }
    },
  }
}

/** Length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence. */
function completeLength(bytes: Uint8Array): number {
  const len = bytes.length
  for (let i = len - 1; i >= Math.max(0, len - 4); i--) {
    const byte = bytes[i]!
    if ((byte & 0xc0) === 0x80) continue
    const needed = byte >= 0xf8 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
    return len - i < needed ? i : len
  }
  // Only continuation bytes at the end: not valid UTF-8 whatever follows, so decode as it is.
  return len
}

function leadingContinuationBytes(bytes: Uint8Array): number {
  let n = 0
  while (n < 3 && n < bytes.length && (bytes[n]! & 0xc0) === 0x80) n++
  return n
}

interface Ring {
  readonly length: number
  readonly capacity: number
  push(chunk: Uint8Array): void
  clear(): void
  /** Copies logical bytes [from, to) out of the ring. */
  slice(from: number, to: number): Buffer
}

/** A byte ring that keeps the last `limit` bytes pushed; grows by doubling up to `limit`. */
function createRing(limit: number): Ring {
  let buf: Buffer = EMPTY
  let start = 0
  let len = 0

  const copyOut = (from: number, to: number, target: Buffer, at: number): void => {
    const cap = buf.length
    const first = Math.min(to - from, cap - ((start + from) % cap))
    const begin = (start + from) % cap
    buf.copy(target, at, begin, begin + first)
    if (first < to - from) buf.copy(target, at + first, 0, to - from - first)
  }

  const grow = (capacity: number): void => {
    const grown = Buffer.allocUnsafe(capacity)
    if (len > 0) copyOut(0, len, grown, 0)
    buf = grown
    start = 0
  }

  return {
    get length() {
      return len
    },
    get capacity() {
      return buf.length
    },
    push(chunk) {
      if (chunk.length >= limit) {
        if (buf.length < limit) buf = Buffer.allocUnsafe(limit)
        buf.set(chunk.subarray(chunk.length - limit), 0)
        start = 0
        len = limit
        return
      }
      if (len + chunk.length > buf.length && buf.length < limit) {
        grow(Math.min(limit, Math.max(len + chunk.length, buf.length * 2, 4096)))
      }
      const cap = buf.length
      const writeAt = (start + len) % cap
      const first = Math.min(chunk.length, cap - writeAt)
      buf.set(chunk.subarray(0, first), writeAt)
      if (first < chunk.length) buf.set(chunk.subarray(first), 0)
      const overflow = len + chunk.length - cap
      if (overflow > 0) {
        start = (start + overflow) % cap
        len = cap
      } else {
        len += chunk.length
      }
    },
    clear() {
      start = 0
      len = 0
    },
    slice(from, to) {
      if (to <= from) return EMPTY
      const out = Buffer.allocUnsafe(to - from)
      copyOut(from, to, out, 0)
      return out
    },
  }
}
