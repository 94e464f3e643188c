import type { Store } from '../../store/create-store.js'
import type { TaskSummary } from '../../store/domain.js'
import type { State } from '../../store/state.js'

/**
 * Finished background work the model has not been told about — a background shell job, a background
 * subagent — delivered to it as messages at its next step (appended, never an edit of the history, and only
 * between complete steps, so the pairing holds). The user sees a notice when it happens; while the agent is
 * idle the messages wait for the next turn, where they go just before the user's message. One mechanism for
 * all of it: pushed with `add` (background jobs, `watchFinishedTasks`), or pulled at delivery from a source
 * (`addSource`: the subagent manager builds its messages then, so an answer TaskOutput already gave is not
 * repeated).
 */
export interface Announcement {
  /** What the model is told. */
  content: string
  /** What the transcript shows when it is delivered; nothing when absent. */
  note?: string
  /** One pending announcement per key (`task:b1`): a later one replaces it. */
  key?: string
  /** Checked at delivery: the model already knows (it read the job's end itself), so nothing is sent. */
  known?: (state: State) => boolean
  /** The background task it reports: one started before a /clear belongs to the old conversation. */
  taskId?: string
  /** What the user is told when it is not delivered for that reason (`Background agent a1`). */
  label?: string
}

export class Announcements {
  private readonly pending = new Map<string, Announcement>()
  private readonly sources: Array<() => Announcement[]> = []
  private readonly store: Store
  private readonly notice: (text: string) => void
  private unwatch: () => void = () => undefined
  private counter = 0
  /** Tasks that existed at the last /clear: what they report is not the new conversation's. */
  private beforeClear = new Set<string>()

  constructor(store: Store, notice: (text: string) => void) {
    this.store = store
    this.notice = notice
  }

  /** Queues `announcement` for the model's next step; `notice` is shown to the user now. */
  add(announcement: Announcement, notice?: string): void {
    const key = announcement.key ?? `announcement-${++this.counter}`
    this.pending.delete(key)
    this.pending.set(key, announcement)
    if (notice) this.notice(notice)
  }

  /** Announcements built when they are delivered (`take` empties the source's own queue). */
  addSource(take: () => Announcement[]): void {
    this.sources.push(take)
  }

  /** Appends everything pending the model does not know yet to the history, one message each. */
  deliver(): void {
    const state = this.store.getState()
    const due = [...this.pending.values()].filter((a) => !a.known?.(state))
    this.pending.clear()
    for (const take of this.sources) due.push(...take())
    for (const a of due) {
      if (a.taskId !== undefined && this.beforeClear.has(a.taskId)) {
        this.notice(
          `${a.label ?? `Task ${a.taskId}`} was started before /clear, so the new conversation is not told of it; its result stays in the tasks pane.`,
        )
        continue
      }
      this.store.dispatch({
        type: 'history/appended',
        message: { role: 'user', content: a.content },
        ...(a.note ? { note: a.note } : {}),
      })
    }
  }

  /**
   * /clear: what is pending belonged to the old conversation, and so does what tasks running now report
   * when they end. What is not about a task (agents that came or went) still holds, and stays.
   */
  clear(): void {
    this.beforeClear = new Set([...this.beforeClear, ...Object.keys(this.store.getState().tasks.byId)])
    const kept = [...this.pending.entries()].filter(([, a]) => a.taskId === undefined)
    for (const take of this.sources)
      for (const a of take()) if (a.taskId === undefined) kept.push([`announcement-${++this.counter}`, a])
    this.pending.clear()
    for (const [key, a] of kept) this.pending.set(key, a)
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
 * Announces every background shell job that stops running (completed, failed, or stopped from the tasks
 * pane) through `announce`, with a notice for the user right away. Background subagents (tasks of kind
 * `agent`) are announced by the subagent manager, with their answer. Returns the unsubscribe function.
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
      if (task.kind !== 'bash' || task.status === 'running' || before[task.id]?.status !== 'running') continue
      const seen = endsSeen(state, task.id)
      const idle = state.run.phase === 'idle'
      announce(
        {
          key: `task:${task.id}`,
          taskId: task.id,
          label: what(task),
          content: announcementText(task),
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
