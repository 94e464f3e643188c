import type { Store } from '../store/create-store.js'
import type { TaskSummary } from '../store/domain.js'
import type { State } from '../store/state.js'

/**
 * Finished background work the model has not been told about — a background shell job, a background
 * subagent — delivered to it as one message at its next step (appended, never an edit of the history). The
 * user sees a notice at once (see `watchFinishedTasks`); while the agent is idle the message waits for the
 * next turn, where it goes just before the user's message.
 */
export interface Announcement {
  /** One pending announcement per key (`task:b1`): a later one replaces it. */
  key: string
  /** What the model is told: one line. */
  text: string
  /** Checked at delivery: the model already knows (it read the job's end itself), so nothing is sent. */
  known?: (state: State) => boolean
}

export class Announcements {
  private readonly pending = new Map<string, Announcement>()
  private readonly store: Store
  private readonly notice: (text: string) => void
  private unwatch: () => void = () => undefined

  constructor(store: Store, notice: (text: string) => void) {
    this.store = store
    this.notice = notice
  }

  /** Queues `announcement` for the model's next step; `notice` is shown to the user now. */
  add(announcement: Announcement, notice?: string): void {
    this.pending.delete(announcement.key)
    this.pending.set(announcement.key, announcement)
    if (notice) this.notice(notice)
  }

  /** The message for everything pending the model does not know yet (null: nothing), and forgets it all. */
  take(state: State): string | null {
    const lines = [...this.pending.values()].filter((a) => !a.known?.(state)).map((a) => a.text)
    this.pending.clear()
    return lines.length > 0 ? lines.join('\n') : null
  }

  /** Appends what is pending to the history, as one message. */
  deliver(): void {
    const text = this.take(this.store.getState())
    if (text) this.store.dispatch({ type: 'history/appended', message: { role: 'user', content: text } })
  }

  clear(): void {
    this.pending.clear()
  }

  /** Announces background jobs as they end (`watchFinishedTasks`) until `stop`. */
  watchTasks(): void {
    this.unwatch = watchFinishedTasks(this.store, (announcement, notice) => this.add(announcement, notice))
  }

  stop(): void {
    this.unwatch()
  }
}

/**
 * Announces every background job that stops running (completed, failed, or stopped from the tasks pane)
 * through `announce`, with a notice for the user right away. Jobs of kind `agent` (background subagents
 * reported as tasks) are announced the same way. Returns the unsubscribe function.
 */
export function watchFinishedTasks(
  store: Store,
  announce: (announcement: Announcement, notice: string) => void,
): () => void {
  let previous = store.getState().tasks.byId
  return store.subscribe(() => {
    const state = store.getState()
    const tasks = state.tasks.byId
    if (tasks === previous) return
    const before = previous
    previous = tasks
    for (const task of Object.values(tasks)) {
      if (task.status === 'running' || before[task.id]?.status !== 'running') continue
      const seen = endsSeen(state, task.id)
      const idle = state.run.phase === 'idle'
      announce(
        {
          key: `task:${task.id}`,
          text: announcementText(task),
          known: (now) => endsSeen(now, task.id) > seen,
        },
        `${what(task)} finished (${outcome(task)}): ${oneLine(task.description ?? task.command)} — the agent is told ${idle ? 'with your next message' : 'at its next step'}.`,
      )
    }
  })
}

function what(task: TaskSummary): string {
  return task.kind === 'agent' ? `Background agent ${task.id}` : `Background task ${task.id}`
}

function outcome(task: TaskSummary): string {
  return task.exitCode === null ? task.status : `${task.status}, exit code ${task.exitCode}`
}

function announcementText(task: TaskSummary): string {
  const last = task.lastLine.trim()
  const tail = last ? ` Last output line: ${JSON.stringify(oneLine(last, 200))}.` : ''
  return (
    `[${what(task)} finished: \`${oneLine(task.description ?? task.command)}\` — ${outcome(task)}.${tail} ` +
    `Read its output with TaskOutput (task_id "${task.id}"); full log: ${task.logPath}]`
  )
}

/**
 * How many TaskOutput/TaskStop results so far told the model that job `id` ended: one more at delivery than
 * when the job ended means the model read it itself (a TaskOutput that waited for the end).
 */
function endsSeen(state: State, id: string): number {
  let count = 0
  for (const item of Object.values(state.transcript.items)) {
    if (item.kind !== 'tool' || item.display?.kind !== 'task') continue
    if (item.display.taskId === id && item.display.status !== 'running') count++
  }
  return count
}

function oneLine(text: string, max = 80): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}
