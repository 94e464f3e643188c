import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import type { PersistedAction } from '../store/actions.js'

export const SESSION_FORMAT = 1

export interface SessionHeader {
  type: 'header'
  format: number
  id: string
  cwd: string
  createdAt: number
}

/**
 * Append-only JSONL log of persisted actions. Every event is written with one synchronous write so a
 * crash can lose at most the line being written (a torn tail, which the reader skips).
 */
export interface SessionLog {
  readonly path: string
  append(action: PersistedAction): void
  close(): void
}

export function openSessionLog(path: string, header?: SessionHeader): SessionLog {
  mkdirSync(dirname(path), { recursive: true })
  const fd = openSync(path, 'a')
  let closed = false
  const write = (value: unknown) => {
    if (closed) return
    writeSync(fd, `${JSON.stringify(value)}\n`)
  }
  if (header) write(header)
  return {
    path,
    append: (action) => write({ ...action, ts: Date.now() }),
    close() {
      if (closed) return
      closed = true
      closeSync(fd)
    },
  }
}
