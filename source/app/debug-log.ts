import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { Action } from '../store/actions.js'

export interface DebugLog {
  readonly path: string
  write(action: Action): void
  close(): void
}

/** `--debug`: every action (including streaming deltas) as JSONL, for diagnosing a run. */
export function openDebugLog(dir: string, sessionHint: string): DebugLog {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${sessionHint}.jsonl`)
  const fd = openSync(path, 'a')
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
