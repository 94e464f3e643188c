/**
 * What an index update has to do, from the files on disk and the files the index holds. Pure. A file
 * whose mtime and size are the ones recorded is left alone without being read; a changed one is read
 * and hashed, and re-embedded only when its hash changed too (`needsEmbedding`).
 */

export interface FileState {
  mtimeMs: number
  size: number
  /** sha1 of the content, hex; '' while not read yet. */
  hash: string
}

export interface IndexPlan {
  /** New files, or files whose mtime or size changed: read, hash, maybe embed. */
  check: string[]
  /** In the index but no longer listed (deleted, now ignored, now denied). */
  remove: string[]
  unchanged: number
}

export function planIndex(
  onDisk: ReadonlyMap<string, Pick<FileState, 'mtimeMs' | 'size'>>,
  indexed: ReadonlyMap<string, FileState>,
): IndexPlan {
  const check: string[] = []
  let unchanged = 0
  for (const [path, state] of onDisk) {
    const known = indexed.get(path)
    if (known && known.mtimeMs === state.mtimeMs && known.size === state.size) unchanged++
    else check.push(path)
  }
  const remove = [...indexed.keys()].filter((path) => !onDisk.has(path))
  return { check, remove, unchanged }
}

/** Whether a file that was read must be embedded again: new, or its content differs from what is indexed. */
export function needsEmbedding(indexed: FileState | undefined, hash: string): boolean {
  return indexed === undefined || indexed.hash !== hash
}
