import {
  closeSync,
  constants,
  type FSWatcher,
  fstatSync,
  openSync,
  readSync,
  unwatchFile,
  watch,
  watchFile,
  writeSync,
} from 'node:fs'
import type { JobOutput, OutputSource } from './job-output.js'
import {
  type CutState,
  cutIfOver,
  fileOffset,
  firstKept,
  type LogCap,
  NO_CUT,
  streamOffset,
} from './log-cap.js'

/** Bytes read per system call; one scratch buffer per follower, reused for every read. */
const SCRATCH_BYTES = 64 * 1024
/** Poll interval when the platform cannot watch the file (inotify limits, some network filesystems). */
const FALLBACK_POLL_MS = 1000

/**
 * Follows a log file that a job writes into directly and feeds the new bytes to a JobOutput. Only the
 * head still missing and the last `tailBytes` are read, so a job printing gigabytes costs a few reads
 * per sync, and no Buffer is allocated per chunk. That is what keeps RSS flat: reading a pipe in Node
 * allocates a fresh 64 KiB Buffer per read, and the garbage piles up faster than GC returns it
 * (measured: ~50 MB RSS growth and ~5 s CPU per GB through a pipe, ~5 MB and ~40 ms this way).
 */
export interface FileFollower extends OutputSource {
  /** Reads whatever was appended since the last sync. Returns whether anything new arrived. */
  sync(): boolean
  /**
   * Calls `onChange` once when the file changes, then goes quiet until `rearm()`: a job printing
   * non-stop would otherwise fire an event per write. Call `rearm()` *before* `sync()`, so a write
   * landing between the two still raises the next event.
   */
  watch(onChange: () => void): void
}

/**
 * Follows the log through `fd` (a read-write description of it that the follower then owns: the task
 * manager makes one with safe-open.ts, never through the path, which a sandboxed command could have
 * swapped for a link since) and, with `cap`, cuts it back under the cap (see log-cap.ts). Without `fd`
 * it opens `path` itself (for logs nobody else can write); throws if it cannot be opened.
 */
export function createFileFollower(
  path: string,
  output: JobOutput,
  cap?: LogCap,
  fd = openSync(path, constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK),
): FileFollower {
  const scratch = Buffer.allocUnsafe(SCRATCH_BYTES)
  let cut: CutState = NO_CUT
  let closed = false
  let listener: (() => void) | undefined
  let watcher: FSWatcher | undefined
  let polling = false

  /** Appends output bytes [from, to) (output offsets, all still in the file) to the JobOutput. */
  const readRange = (from: number, to: number): void => {
    let at = from
    while (at < to) {
      const position = fileOffset(cut, at)
      if (position === undefined) return
      // Never across the end of the head: the cut marker follows it in the file.
      const stop = cut.markerBytes > 0 && at < cut.headEnd ? Math.min(to, cut.headEnd) : to
      const n = readSync(fd, scratch, 0, Math.min(SCRATCH_BYTES, stop - at), position)
      // Fewer bytes than fstat promised: the file was truncated under us; the rest will never come.
      if (n === 0) return
      output.append(scratch.subarray(0, n))
      at += n
    }
  }

  const readNew = (): boolean => {
    const end = streamOffset(cut, fstatSync(fd).size)
    let at = output.totalBytes
    if (end <= at) return false
    const headEnd = Math.min(end, at + output.headRoom)
    if (headEnd > at) {
      readRange(at, headEnd)
      if (output.totalBytes < headEnd) return true
      at = headEnd
    }
    const tailFrom = Math.max(firstKept(cut, at), end - output.tailBytes)
    if (tailFrom > at) output.skip(tailFrom - at)
    readRange(output.totalBytes, end)
    return true
  }

  const sync = (): boolean => {
    if (closed) return false
    const arrived = readNew()
    // Cut only what has been read (or skipped), so memory and the log agree on every offset.
    if (cap && arrived) cut = cutIfOver(fd, cap, cut, scratch)
    return arrived
  }

  const fire = (): void => {
    watcher?.close()
    watcher = undefined
    if (!closed) listener?.()
  }

  const arm = (): void => {
    if (closed || !listener || watcher || polling) return
    try {
      watcher = watch(path, { persistent: false }, fire)
      watcher.on('error', () => {
        watcher?.close()
        watcher = undefined
      })
    } catch {
      // Watching is unavailable here: fall back to stat polling for the rest of this job.
      polling = true
      watchFile(path, { persistent: false, interval: FALLBACK_POLL_MS }, () => {
        if (!closed) listener?.()
      })
    }
  }

  return {
    sync,
    get logDroppedBytes() {
      return cut.droppedBytes
    },
    refresh: () => {
      sync()
    },
    watch(onChange) {
      listener = onChange
      arm()
    },
    rearm: arm,
    // The job writes to the file itself: there is no channel to wait for or abandon.
    open: false,
    abandon() {},
    close(note, done) {
      if (closed) {
        done()
        return
      }
      let noteInFile = note === undefined
      try {
        // Through the descriptor: the path may lead elsewhere by now.
        if (note !== undefined) {
          const bytes = Buffer.from(note)
          let end = fstatSync(fd).size
          for (let at = 0; at < bytes.length; ) {
            const n = writeSync(fd, bytes, at, bytes.length - at, end)
            at += n
            end += n
          }
        }
        noteInFile = true
      } catch {
        // Kept in memory below, so the reason is not lost.
      }
      sync()
      closed = true
      watcher?.close()
      watcher = undefined
      if (polling) unwatchFile(path)
      closeSync(fd)
      if (!noteInFile && note !== undefined) output.append(Buffer.from(note))
      done()
    },
  }
}
