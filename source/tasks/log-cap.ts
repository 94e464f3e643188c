import { fstatSync, ftruncateSync, readSync, writeSync } from 'node:fs'

/**
 * A size cap for output logs on disk (background job logs, spilled command output). Once a log passes
 * `capBytes`, its middle is cut out: the first `headBytes` stay where they are, a one-line marker saying
 * how many bytes were cut follows, then the latest `keepBytes` of output, and the log grows from there
 * until it passes the cap again. So the log holds the first part and at least the latest `keepBytes`, and
 * never (after a cut) more than `capBytes`.
 */
export interface LogCap {
  capBytes: number
  headBytes: number
  keepBytes: number
}

export const DEFAULT_LOG_CAP_BYTES = 64 * 1024 * 1024
/** Too small a cap leaves no room for the head, the marker and the tail. */
export const MIN_LOG_CAP_BYTES = 4096

/** The cap for `capBytes`: an eighth kept from the start, an eighth (at least) from the end. */
export function logCap(capBytes = DEFAULT_LOG_CAP_BYTES): LogCap {
  if (!Number.isSafeInteger(capBytes) || capBytes < MIN_LOG_CAP_BYTES) {
    throw new RangeError(
      `a log cap must be an integer of at least ${MIN_LOG_CAP_BYTES} bytes, got ${capBytes}`,
    )
  }
  const eighth = Math.floor(capBytes / 8)
  return { capBytes, headBytes: eighth, keepBytes: eighth }
}

/** "64 MiB", "512 KiB", "4096 bytes": sizes in notes the user and the model read. */
export function formatBytes(bytes: number): string {
  const mib = 1024 * 1024
  if (bytes >= mib && bytes % mib === 0) return `${bytes / mib} MiB`
  if (bytes >= mib) return `${(bytes / mib).toFixed(1)} MiB`
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} bytes`
}

/**
 * Where the output's bytes sit in a capped log file. Offsets in the output ("stream offsets") and in
 * the file agree up to the first cut; after it, output bytes from `headEnd + droppedBytes` on sit at
 * `headEnd + markerBytes` on in the file.
 */
export interface CutState {
  /** End of the head region (a character boundary at or before `headBytes`); 0 before the first cut. */
  headEnd: number
  /** Output bytes cut out of the log so far. */
  droppedBytes: number
  /** Length of the marker line after the head; 0 before the first cut. */
  markerBytes: number
}

export const NO_CUT: CutState = { headEnd: 0, droppedBytes: 0, markerBytes: 0 }

/** The output offset of file offset `at` (which must not point into the marker). */
export function streamOffset(state: CutState, at: number): number {
  return state.markerBytes === 0 || at < state.headEnd ? at : at - state.markerBytes + state.droppedBytes
}

/** The file offset of output offset `at`, or undefined when that byte was cut out. */
export function fileOffset(state: CutState, at: number): number | undefined {
  if (state.markerBytes === 0 || at < state.headEnd) return at
  if (at < state.headEnd + state.droppedBytes) return undefined
  return at - state.droppedBytes + state.markerBytes
}

/** The first output offset at or after `at` that the log still holds. */
export function firstKept(state: CutState, at: number): number {
  if (state.markerBytes === 0 || at < state.headEnd) return at
  return Math.max(at, state.headEnd + state.droppedBytes)
}

export function cutMarker(droppedBytes: number, cap: LogCap): string {
  return `\n[agent-tui: ${droppedBytes} bytes of output cut here; logs are capped at ${formatBytes(cap.capBytes)}, keeping the first ${formatBytes(cap.headBytes)} and the latest output]\n`
}

/** How many tries to catch up with a writer that keeps appending while the tail is moved. */
const MAX_CATCH_UP = 16

/**
 * Cuts the log open on `fd` (read-write, without O_APPEND) back under the cap when it is over it;
 * returns the new state, or `state` unchanged. Synchronous: the copy is at most `keepBytes` plus what
 * arrives meanwhile.
 *
 * A process may be appending to the file (O_APPEND) at the same time: what it writes while the tail is
 * moved is moved too, up to the final size check; a write landing between that check and the truncate
 * (a few microseconds) is lost. Where this process is the only writer, nothing is ever lost.
 */
export function cutIfOver(fd: number, cap: LogCap, state: CutState, scratch: Buffer): CutState {
  const size = fstatSync(fd).size
  if (size <= cap.capBytes) return state
  const headEnd = state.markerBytes === 0 ? charStartAtOrBefore(fd, cap.headBytes, scratch) : state.headEnd
  const keepFrom = charStartAtOrAfter(fd, size - cap.keepBytes, size, scratch)
  const droppedBytes = streamOffset(state, keepFrom) - headEnd
  const marker = Buffer.from(cutMarker(droppedBytes, cap))
  writeSync(fd, marker, 0, marker.length, headEnd)
  let from = keepFrom
  let to = headEnd + marker.length
  let end = size
  for (let round = 0; round < MAX_CATCH_UP; round++) {
    while (from < end) {
      const n = readSync(fd, scratch, 0, Math.min(scratch.length, end - from), from)
      if (n === 0) break
      writeSync(fd, scratch, 0, n, to)
      from += n
      to += n
    }
    const now = fstatSync(fd).size
    if (now === end) break
    end = now
  }
  ftruncateSync(fd, to)
  return { headEnd, droppedBytes, markerBytes: marker.length }
}

const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80

/** The start of the UTF-8 character holding byte `at` (at most 3 bytes back), so a cut splits no character. */
function charStartAtOrBefore(fd: number, at: number, scratch: Buffer): number {
  const from = Math.max(0, at - 3)
  const n = readSync(fd, scratch, 0, at - from + 1, from)
  for (let i = Math.min(n, at - from + 1) - 1; i >= 0; i--) {
    if (!isContinuation(scratch[i] ?? 0)) return from + i
  }
  return at
}

function charStartAtOrAfter(fd: number, at: number, size: number, scratch: Buffer): number {
  const n = readSync(fd, scratch, 0, Math.min(4, size - at), at)
  for (let i = 0; i < n; i++) if (!isContinuation(scratch[i] ?? 0)) return at + i
  return at
}
