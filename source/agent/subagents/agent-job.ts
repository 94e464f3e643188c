import { closeSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Store } from '../../store/create-store.js'
import type { AgentTaskInfo, TaskStatus, TaskSummary } from '../../store/domain.js'
import type { TaskReadResult } from '../../tasks/types.js'
import { PRIVATE_DIR, placeOf } from '../../util/safe-files.js'
import { createFresh } from '../../util/safe-open.js'

/**
 * A background subagent as a task: an id (`a1`…), a status, a progress log (in memory, bounded, and in a
 * file under the session's outputs) and its live store for the transcript view. The log holds one line
 * per tool call and notice, then the final answer, so TaskOutput returns progress and, once done, the
 * answer.
 */

/** Log text kept in memory; older text stays in the file. */
const MAX_HELD_CHARS = 1024 * 1024
const MAX_TIMER_MS = 2 ** 31 - 1

export interface AgentJobInit {
  id: string
  type: string
  description: string
  /** Where the log should go; a name taken already (something planted there) gives it a fresh one. */
  logPath: string
  /**
   * At or above the log's folder, the directory whose own path is trusted (default: the log's folder):
   * below it no link is followed, since sandboxed commands can write there (safe-open.ts).
   */
  privateRoot?: string
  startedAt: number
  /** Summaries for the store; called on every change of what the tasks pane shows. */
  onUpdate(summary: TaskSummary): void
  now(): number
}

export interface AgentJob {
  readonly id: string
  /** Aborted by `stop()`: the child's turn is interrupted. */
  readonly signal: AbortSignal
  /** Resolves once the job has ended (its child settled and its own jobs are stopped). */
  readonly done: Promise<void>
  summary(): TaskSummary
  /** The child's store, once it runs (the transcript view reads it live). */
  store(): Store | null
  attach(store: Store): void
  /** Updates what the row shows; `line` also goes to the log (and becomes the row's last line). */
  progress(update: Partial<Omit<AgentTaskInfo, 'type'>>, line?: string): void
  log(text: string): void
  finish(status: Exclude<TaskStatus, 'running'>, answer: string): void
  read(opts: { block: boolean; timeoutMs: number; signal?: AbortSignal }): Promise<TaskReadResult>
  /** Interrupts the child; resolves with the final summary once it has ended. */
  stop(): Promise<TaskSummary>
  /** Whether the model already read the final answer through TaskOutput (the announcement then says so). */
  answerRead(): boolean
}

/** Creates the log new (never through a planted link); its path, or why there is none. */
function openLog(init: AgentJobInit): { fd: number; path: string } | { error: string } {
  try {
    const { dir, name } = placeOf(init.privateRoot ?? dirname(init.logPath), init.logPath, {
      createDirs: PRIVATE_DIR,
    })
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

export function createAgentJob(init: AgentJobInit): AgentJob {
  const controller = new AbortController()
  const log = openLog(init)
  const logPath = 'path' in log ? log.path : init.logPath
  let fd = 'fd' in log ? log.fd : undefined
  const info: AgentTaskInfo = { type: init.type, tool: null, steps: 0, tokens: 0 }
  const summary: TaskSummary = {
    id: init.id,
    kind: 'agent',
    command: `${init.type} agent: ${init.description}`,
    description: init.description,
    status: 'running',
    exitCode: null,
    startedAt: init.startedAt,
    endedAt: null,
    lastLine: '',
    outputBytes: 0,
    logPath,
    agent: info,
  }
  let held = 'error' in log ? `[agent-tui] cannot write the log ${init.logPath}: ${log.error}\n` : ''
  let dropped = 0
  let cursor = 0
  let answerAt = -1
  let store: Store | null = null
  let resolveDone = () => {}
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve
  })
  // Synchronous appends through the descriptor, in order; a failed write closes the log and is noted
  // in memory, and never stops the job.
  const write = (text: string): void => {
    if (fd === undefined) return
    try {
      const bytes = Buffer.from(text)
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at)
    } catch (error) {
      closeLog()
      held += `[agent-tui] the log ${logPath} failed (${error instanceof Error ? error.message : String(error)}); the rest is in memory only\n`
    }
  }
  const closeLog = (): void => {
    if (fd === undefined) return
    try {
      closeSync(fd)
    } catch {
      // Every write was synchronous: nothing is lost.
    }
    fd = undefined
  }
  const total = () => dropped + held.length

  const snapshot = (): TaskSummary => ({ ...summary, agent: { ...info }, outputBytes: total() })
  const emit = () => init.onUpdate(snapshot())
  const append = (text: string) => {
    if (!text) return
    held += text
    if (held.length > MAX_HELD_CHARS) {
      const cut = held.length - MAX_HELD_CHARS
      held = held.slice(cut)
      dropped += cut
    }
    write(text)
  }

  return {
    id: init.id,
    signal: controller.signal,
    done,
    summary: snapshot,
    store: () => store,
    attach(next) {
      store = next
    },
    progress(update, line) {
      Object.assign(info, update)
      if (line !== undefined) {
        append(`${line}\n`)
        summary.lastLine = line
      }
      emit()
    },
    log: append,
    finish(status, answer) {
      if (summary.status !== 'running') return
      const label = status === 'completed' ? 'answer' : `${status}; what it had`
      answerAt = total()
      append(`── ${label} ──\n${answer.trim() || '(no answer)'}\n`)
      summary.status = status
      summary.endedAt = init.now()
      summary.lastLine = status === 'completed' ? 'done' : status
      info.tool = null
      closeLog()
      resolveDone()
      emit()
    },
    async read({ block, timeoutMs, signal }) {
      if (block && summary.status === 'running') await waitFor(done, timeoutMs, signal)
      const from = Math.max(cursor, dropped)
      const gap = cursor < dropped ? dropped - cursor : 0
      const text = held.slice(from - dropped)
      cursor = total()
      const output =
        gap > 0 ? `[… ${gap} characters not kept in memory; the full log is ${logPath} …]\n${text}` : text
      return { status: summary.status, exitCode: null, output, droppedBytes: gap, logPath }
    },
    async stop() {
      if (summary.status === 'running') controller.abort(new Error('stopped'))
      await done
      return snapshot()
    },
    answerRead: () => answerAt >= 0 && cursor > answerAt,
  }
}

function waitFor(done: Promise<void>, timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const settle = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', settle)
      resolve()
    }
    const timer = setTimeout(settle, Math.min(Math.max(0, timeoutMs), MAX_TIMER_MS))
    signal?.addEventListener('abort', settle, { once: true })
    void done.then(settle)
  })
}
