import { stat } from 'node:fs/promises'

const CONCURRENCY = 64

/**
 * Sorts absolute paths newest-modified first (ties by path, so the order is stable). Paths that
 * vanished meanwhile sort last. Stats run with bounded concurrency.
 */
export async function sortByMtime(paths: readonly string[], signal?: AbortSignal): Promise<string[]> {
  const mtimes = new Array<number>(paths.length).fill(-1)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < paths.length && !signal?.aborted) {
      const i = next++
      mtimes[i] = await stat(paths[i] ?? '').then(
        (s) => s.mtimeMs,
        () => -1,
      )
    }
  }
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, paths.length) }, worker))
  return paths
    .map((path, i) => ({ path, mtime: mtimes[i] ?? -1 }))
    .sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((e) => e.path)
}
