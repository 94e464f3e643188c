import { getHeapStatistics } from 'node:v8'
import type { Store } from '../store/create-store.js'
import { exposeGc, reduceFootprint } from './settled-collection.js'

export interface MemoryReducerOptions {
  /** Runs one full garbage collection; by default V8's own `gc`, made available for this alone. */
  collect?: () => void
  /** How long after a turn ends: its last frames are out by then (two of Ink's 33 ms frame windows). */
  delayMs?: number
  /** Bytes on V8's heap, live or garbage. */
  heapUsed?: () => number
  /** Collect once the heap holds this many bytes more than it kept after the last collection. */
  slackBytes?: number
}

/**
 * Collects garbage after a turn when the turn has left a lot of it, while the user reads the reply.
 *
 * Why: a turn allocates briskly (stream chunks, Markdown, frames), so V8 grows its young generation and
 * lets old-space garbage pile up rather than collect; its memory reducer hands that back only after ~8 s
 * of quiet, so a session of quick turns keeps growing. Measured over 40 turns of 500 tokens: RSS grew
 * 45-46 MB, while the live heap grew ~3 MB. So a collection runs once the heap holds `slackBytes` more
 * than the last one kept, and it is the memory-reducing kind (`reduceFootprint`): a regular one took
 * 1-3 ms but left the young generation's pages resident, and RSS still grew 30-32 MB (over the 30 MB
 * budget once the settled collection had lowered the start); the memory-reducing one takes 35-52 ms, runs
 * 5 times over the 40 turns, and RSS grew 15.6-18.3 MB. A new turn cancels a pending collection, so it
 * never runs while a reply streams. Returns a function that stops it.
 *
 * Getting `gc` from a new `vm` context matters: creating a context wakes V8's own memory reducer, which
 * runs two more collections once the session has been quiet ~8 s and hands committed pages back. Measured
 * with V8's runtime function instead (no context): RSS 15 s after the 40th turn was 29-30 MB above the
 * start rather than 7-8 MB.
 */
export function reduceMemoryAfterTurns(store: Store, options: MemoryReducerOptions = {}): () => void {
  const delayMs = options.delayMs ?? 100
  const heapUsed = options.heapUsed ?? (() => getHeapStatistics().used_heap_size)
  const slack = options.slackBytes ?? 8 * MB
  // Undefined until first needed; null when the engine would not give its `gc`.
  let collect: (() => void) | null | undefined = options.collect
  let kept = heapUsed()
  let busy = store.getState().run.phase !== 'idle'
  let timer: NodeJS.Timeout | null = null
  const cancel = () => {
    if (timer) clearTimeout(timer)
    timer = null
  }
  const unsubscribe = store.subscribe(() => {
    const idle = store.getState().run.phase === 'idle'
    if (!idle) {
      busy = true
      cancel()
      return
    }
    if (!busy) return
    busy = false
    cancel()
    timer = setTimeout(() => {
      timer = null
      if (heapUsed() - kept < slack) return
      if (collect === undefined) collect = fullCollection()
      collect?.()
      kept = heapUsed()
    }, delayMs)
    // Never what keeps the process alive at exit.
    timer.unref()
  })
  return () => {
    cancel()
    unsubscribe()
  }
}

const MB = 1024 * 1024

/**
 * One full collection now if the heap holds `slackBytes` more than `since` (bytes on the heap before some
 * work): for start-up's reading of many files (a Claude Code collection of hundreds of agents, skills and
 * commands), whose garbage idle RSS would otherwise carry. Also wakes V8's memory reducer (see above).
 */
export function collectIfGrown(since: number, slackBytes = 8 * MB): boolean {
  if (getHeapStatistics().used_heap_size - since < slackBytes) return false
  const collect = fullCollection()
  collect?.()
  return collect !== null
}

export function heapBytes(): number {
  return getHeapStatistics().used_heap_size
}

/** V8's `gc` as a plain full collection; null where the engine refuses. */
function fullCollection(): (() => void) | null {
  const gc = exposeGc()
  return gc ? () => reduceFootprint(gc) : null
}
