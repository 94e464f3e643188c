import type { Store } from '../store/create-store.js'
import { persistCompileCache } from './compile-cache.js'
import { tuneEngine } from './v8-flags.js'
import { keepLayoutWasmBaseline } from './layout-wasm.js'
import { collectIfGrown, heapBytes, reduceMemoryAfterTurns } from './memory-reducer.js'
import { collectSettled, gcTunedByUser, settleOnce } from './settled-collection.js'
import { youngGeneration } from './young-generation.js'

/**
 * The process tuning behind the start-up, memory and streaming budgets (README, Benchmarks), as the one
 * thing the wiring calls. Each measure lives in its own file with why it exists and what it measured:
 * V8 flags (`flags.ts`), the young generation held until the first turn (`young-generation.ts`), Yoga's
 * WebAssembly kept on baseline code (`layout-wasm.ts`), one memory-reducing collection once start-up is
 * done (`settled-collection.ts`), a collection after turns that left much garbage
 * (`memory-reducer.ts`), and the compile cache written once start-up's modules are loaded
 * (`compile-cache.ts`).
 */
export interface ProcessTuning {
  /** The full-screen UI is about to load (before Ink and Yoga). */
  beforeUi(): Promise<void>
  /**
   * Start-up's modules have loaded: their compiled code goes to the cache now, not only at a clean exit.
   * Once this and the loading below are both done, and unless a turn has started, one memory-reducing
   * collection hands back what start-up grew (`settled-collection.ts`).
   */
  startupLoaded(): void
  /** A turn is about to run (headless: the run itself): V8 sizes its young generation for the work again. */
  firstTurn(): void
  /** Follows one session's store: its first turn (above), and a collection after heavy turns. Returns stop. */
  followSession(store: Store): () => void
  /**
   * Around start-up work that reads many files (the user's and the project's commands): call before it,
   * and call what it returns once it is done — a collection runs if it left much garbage.
   */
  aroundLoading(): () => void
  /**
   * Around background work that allocates much for long (CodeSearch's index build): V8's young generation
   * keeps its size until the returned function is called (`young-generation.ts`).
   */
  holdYoungGeneration(): () => void
}

/** Applies the start-up settings at once (call it first thing) and returns the hooks for later. */
export function tuneProcess(execArgv: readonly string[] = process.execArgv): ProcessTuning {
  // Start-up from here on (settings, the early frame, the UI) would grow V8's young generation for good.
  const young = youngGeneration(execArgv)
  const releaseHold = young.hold()
  tuneEngine(execArgv)
  let turnStarted = false
  // Start-up is done once its deferred modules and the command files are both in.
  const settle = settleOnce({
    parts: 2,
    turnStarted: () => turnStarted,
    collect: () => (gcTunedByUser(execArgv) ? null : collectSettled()),
  })
  const releaseYoungGeneration = () => {
    turnStarted = true
    releaseHold()
    settle.firstTurn()
  }
  return {
    beforeUi: keepLayoutWasmBaseline,
    startupLoaded() {
      persistCompileCache()
      settle.done()
    },
    firstTurn: releaseYoungGeneration,
    holdYoungGeneration: () => young.hold(),
    aroundLoading() {
      const before = heapBytes()
      return () => {
        // Before start-up is done the settled collection takes this garbage back too.
        if (turnStarted || !settle.pending()) collectIfGrown(before)
        settle.done()
      }
    },
    followSession(store) {
      const stopReducing = reduceMemoryAfterTurns(store)
      const stopWaiting = onFirstTurn(store, releaseYoungGeneration)
      return () => {
        stopReducing()
        stopWaiting()
      }
    },
  }
}

/** Calls `then` once, when a turn first runs; returns a function that stops waiting. */
function onFirstTurn(store: Store, then: () => void): () => void {
  let unsubscribe: (() => void) | null = null
  const check = () => {
    if (store.getState().run.phase === 'idle') return
    unsubscribe?.()
    unsubscribe = () => {}
    then()
  }
  unsubscribe = store.subscribe(check)
  check()
  return () => unsubscribe?.()
}
