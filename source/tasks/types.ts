import type { TaskStatus, TaskSummary } from '../store/domain.js'

export interface LaunchOptions {
  command: string
  cwd: string
  description?: string
}

export interface TaskReadResult {
  status: TaskStatus
  exitCode: number | null
  /** Output since the previous read of this task (bounded; the log file holds everything). */
  output: string
  /** Bytes dropped from the in-memory buffer before this read could see them. */
  droppedBytes: number
  logPath: string
}

/** Seam for background jobs; implemented by the TaskManager (issue 3). */
export interface TaskManagerApi {
  launch(opts: LaunchOptions): TaskSummary
  get(id: string): TaskSummary | undefined
  list(): TaskSummary[]
  read(id: string, opts: { block: boolean; timeoutMs: number; signal?: AbortSignal }): Promise<TaskReadResult>
  stop(id: string): Promise<TaskSummary>
  stopAll(): Promise<void>
}
