import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** V8's `gc` with its options (the `--expose-gc` extension's signature). */
export type GcFunction = (options?: { type?: 'major' | 'minor'; flavor?: 'regular' | 'last-resort' }) => void

/**
 * One memory-reducing collection once start-up is done and before the first turn: idle RSS otherwise
 * keeps what start-up grew.
 *
 * Why: start-up allocates in a burst that mostly lives on, so V8 grows its young generation to 4 MB
 * semi-spaces before the hold (`young-generation.ts`) can be taken, and a session that then sits idle
 * keeps those pages: 91-93 MB of RSS, over the 90 MB budget. A regular full or minor collection shrinks
 * the young generation but keeps its pages pooled (resident); only a memory-reducing one hands them back,
 * and V8's own memory reducer, which would run one, judges the process busy for 20 s and more after
 * start-up (its allocation rate is smoothed over the start-up burst). So the session runs V8's
 * "last resort" collection itself, once, when it costs nobody anything: the deferred modules are in, the
 * first frames are out, no turn runs. Measured: idle RSS 84-85 MB (docs/performance.md, "Idle RSS over
 * the #32-#36 wave").
 *
 * - Bytecode flushing is off for it: the last resort would flush every function's bytecode, and the first
 *   turn compile them again; flushed or not, idle RSS was the same.
 * - Incremental marking is off after it, until the first turn (call what this returns then): woken by
 *   the collection, V8's memory reducer would run two more ~8 s later while the session idles (35-170 ms
 *   of CPU inside the idle bench's window, measured); without incremental marking it keeps waiting.
 *
 * Returns null when V8 would not give its `gc`.
 */
export function collectSettled(gc: GcFunction | null = exposeGc()): (() => void) | null {
  if (!gc) return null
  reduceFootprint(gc)
  setFlagsFromString('--no-incremental-marking')
  let restored = false
  return () => {
    if (restored) return
    restored = true
    setFlagsFromString('--incremental-marking')
  }
}

/**
 * V8's memory-reducing ("last resort") collection with bytecode kept: unlike a regular one it hands back
 * the young generation's pooled pages and compacts old space, so RSS falls, not only the heap. It runs
 * several passes: 35-52 ms here on a session's ~25 MB heap, against 1-3 ms for a regular one.
 */
export function reduceFootprint(gc: GcFunction): void {
  setFlagsFromString('--no-flush-bytecode')
  try {
    gc({ type: 'major', flavor: 'last-resort' })
  } finally {
    setFlagsFromString('--flush-bytecode')
  }
}

export interface SettleOptions {
  /** How many parts of start-up must report done (the deferred modules, the command files). */
  parts: number
  /** True once a turn has run: the collection would take the main thread from it. */
  turnStarted: () => boolean
  collect: () => (() => void) | null
}

/**
 * Runs `collect` once, when the last of `parts` start-up parts is done and unless a turn has started.
 * `done()` reports one part; it returns true when the collection ran. `firstTurn()` undoes what the
 * collection left for the idle stretch (see `collectSettled`).
 */
export function settleOnce(opts: SettleOptions): { done(): boolean; firstTurn(): void; pending(): boolean } {
  let left = opts.parts
  let undo: (() => void) | null = null
  return {
    done() {
      left--
      if (left !== 0 || opts.turnStarted()) return false
      undo = opts.collect()
      return undo !== null
    },
    firstTurn() {
      undo?.()
      undo = null
    },
    pending: () => left > 0,
  }
}

/** True when node's own arguments tune the collector, which is then left alone. */
export function gcTunedByUser(execArgv: readonly string[]): boolean {
  return execArgv.some((arg) =>
    /^--(no-)?(flush[-_]bytecode|expose[-_]gc|incremental[-_]marking|(max[-_]|min[-_])?semi[-_]space)/.test(
      arg,
    ),
  )
}

/** V8's `gc`, from a context created while --expose-gc was on; null where the engine refuses. */
export function exposeGc(): GcFunction | null {
  try {
    setFlagsFromString('--expose-gc')
    const gc: unknown = runInNewContext('gc')
    return typeof gc === 'function' ? (gc as GcFunction) : null
  } catch {
    return null
  } finally {
    // Only that one context gets it.
    setFlagsFromString('--no-expose-gc')
  }
}
