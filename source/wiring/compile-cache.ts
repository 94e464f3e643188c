import * as nodeModule from 'node:module'
import type { Store } from '../store/create-store.js'

/**
 * Writes the V8 code compiled so far to the compile cache the launcher enabled (a no-op when it is off).
 * Node writes it by itself only when the process exits normally, so a session that ends by a closed
 * terminal, a crash or SIGKILL would leave the next start compiling every module again.
 */
export function persistCompileCache(): void {
  // Read off the namespace: Node 22 before 22.10 has no flushCompileCache, and a named import of a
  // missing builtin export would fail at link time.
  const flush = (nodeModule as { flushCompileCache?: () => void }).flushCompileCache
  try {
    flush?.()
  } catch {
    // Best effort: a cache directory that cannot be written only costs the next start its speed.
  }
}

/**
 * Persists the compile cache once the first turn has finished. A module's cache is written once, with
 * the functions compiled by then: after a turn it also holds the streaming and Markdown code, which a
 * flush right after the first frame would leave to be compiled again during every session's first turn.
 * Returns a function that stops watching.
 */
export function persistCompileCacheAfterFirstTurn(store: Store): () => void {
  let unsubscribe: (() => void) | null = null
  unsubscribe = store.subscribe(() => {
    const { run } = store.getState()
    if (run.phase !== 'idle' || run.lastResult === null) return
    unsubscribe?.()
    unsubscribe = null
    persistCompileCache()
  })
  return () => unsubscribe?.()
}
