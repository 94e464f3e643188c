import { closeSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { TaskStatus, TaskSummary } from '../store/domain.js'
import type { ServiceJob, TaskReadResult } from '../tasks/types.js'
import { PRIVATE_DIR, placeOf } from '../util/safe-files.js'
import { createFresh } from '../util/safe-open.js'

/**
 * The index build as a row of the tasks pane (`i1`): its progress line, a short log (start, every tenth
 * of the files, the end or the error) in the session's outputs and in memory for TaskOutput, and a stop
 * that aborts the build (what is indexed stays searchable).
 */

export interface IndexJob extends ServiceJob {
  readonly signal: AbortSignal
  progress(line: string, logged?: boolean): void
  finish(status: Exclude<TaskStatus, 'running'>, line: string): void
}

export function createIndexJob(init: {
  id: string
  logPath: string
  privateRoot: string
  now: () => number
  onUpdate(summary: TaskSummary): void
}): IndexJob {
  const controller = new AbortController()
  const log = openLog(init.logPath, init.privateRoot)
  let held = 'error' in log ? `[agent-tui] cannot write the log ${init.logPath}: ${log.error}\n` : ''
  let cursor = 0
  let fd = 'fd' in log ? log.fd : undefined
  let resolveDone = () => {}
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve
  })
  const summary: TaskSummary = {
    id: init.id,
    kind: 'index',
    command: 'CodeSearch index',
    description: 'CodeSearch index',
    status: 'running',
    exitCode: null,
    startedAt: init.now(),
    endedAt: null,
    lastLine: 'listing files',
    outputBytes: 0,
    logPath: 'path' in log ? log.path : init.logPath,
  }
  const append = (text: string) => {
    held += text
    if (fd === undefined) return
    try {
      const bytes = Buffer.from(text)
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at)
    } catch {
      close()
    }
  }
  const close = () => {
    if (fd === undefined) return
    try {
      closeSync(fd)
    } catch {
      // Every write was synchronous.
    }
    fd = undefined
  }
  const snapshot = (): TaskSummary => ({ ...summary, outputBytes: held.length })
  return {
    id: init.id,
    signal: controller.signal,
    summary: snapshot,
    progress(line, logged = false) {
      if (summary.status !== 'running') return
      summary.lastLine = line
      if (logged) append(`${line}\n`)
      init.onUpdate(snapshot())
    },
    finish(status, line) {
      if (summary.status !== 'running') return
      append(`${line}\n`)
      close()
      Object.assign(summary, {
        status,
        lastLine: line,
        endedAt: init.now(),
        exitCode: status === 'completed' ? 0 : null,
      })
      resolveDone()
      init.onUpdate(snapshot())
    },
    async read({ block, timeoutMs, signal }): Promise<TaskReadResult> {
      if (block && summary.status === 'running') await waitFor(done, timeoutMs, signal)
      const output = held.slice(cursor)
      cursor = held.length
      return {
        status: summary.status,
        exitCode: summary.exitCode,
        output,
        droppedBytes: 0,
        logPath: summary.logPath,
      }
    },
    async stop() {
      if (summary.status === 'running') controller.abort(new Error('stopped'))
      await done
      return snapshot()
    },
  }
}

function openLog(logPath: string, root: string): { fd: number; path: string } | { error: string } {
  try {
    const { dir, name } = placeOf(root, logPath, { createDirs: PRIVATE_DIR })
    try {
      const made = createFresh(dir, name, { mode: 0o600, append: true })
      return { fd: made.fd, path: join(dir.path, made.name) }
    } finally {
      dir.close()
    }
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) }
  }
}

function waitFor(done: Promise<void>, timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const settle = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', settle)
      resolve()
    }
    const timer = setTimeout(settle, Math.min(Math.max(0, timeoutMs), 2 ** 31 - 1))
    signal?.addEventListener('abort', settle, { once: true })
    void done.then(settle)
  })
}
