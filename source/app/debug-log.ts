import { closeSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Action } from '../store/actions.js'
import { PRIVATE_DIR } from '../util/safe-files.js'
import { createFresh, openSafeDir } from '../util/safe-open.js'

export interface DebugLog {
  readonly path: string
  write(action: Action): void
  close(): void
}

/**
 * `--debug`: every action (including streaming deltas) as JSONL, for diagnosing a run. The file is new
 * (O_EXCL; a fresh name if the name is taken) in a folder below `root` (default: the folder's parent,
 * the state dir) reached without following a link (util/safe-open.ts).
 */
export function openDebugLog(dir: string, sessionHint: string, root: string = dirname(dir)): DebugLog {
  const at = openSafeDir(root, dir, { create: PRIVATE_DIR })
  let made: { fd: number; name: string }
  try {
    made = createFresh(at, `${new Date().toISOString().replace(/[:.]/g, '-')}-${sessionHint}.jsonl`, {
      mode: 0o600,
      append: true,
    })
  } finally {
    at.close()
  }
  const { fd } = made
  const path = join(at.path, made.name)
  let open = true
  return {
    path,
    write(action) {
      if (open) writeSync(fd, `${JSON.stringify({ ts: Date.now(), ...action })}\n`)
    },
    close() {
      if (!open) return
      open = false
      closeSync(fd)
    },
  }
}
