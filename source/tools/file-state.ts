import type { FileStateTracker } from './types.js'

/**
 * Creates the per-session record of files the model has read or written. Write and Edit consult it
 * to refuse blind overwrites and writes over files that changed on disk since the model last saw them.
 * Keys are absolute paths as the tools resolve them (real paths for existing files).
 */
export function createFileStateTracker(
  opts: {
    /** Told of every write a file tool records (CodeSearch updates the file before its next query). */
    onWrite?: (absPath: string) => void
  } = {},
): FileStateTracker {
  const seen = new Map<string, { mtimeMs: number; size: number }>()
  const remember = (absPath: string, stat: { mtimeMs: number; size: number }): void => {
    seen.set(absPath, { mtimeMs: stat.mtimeMs, size: stat.size })
  }
  return {
    recordRead: remember,
    recordWrite(absPath, stat) {
      remember(absPath, stat)
      opts.onWrite?.(absPath)
    },
    get: (absPath) => seen.get(absPath),
    clear: () => seen.clear(),
  }
}
