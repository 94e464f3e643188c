import * as nodeModule from 'node:module'

/**
 * Writes the V8 code compiled so far to the compile cache the launcher enabled (a no-op when it is off).
 * Node only writes it when the process exits normally, so a session that ends by a closed terminal, a
 * crash or SIGKILL would leave the next start compiling every module again.
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
