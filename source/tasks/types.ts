import type { ChildProcess } from 'node:child_process'
import type { CommandSandbox } from '../sandbox/bash-sandbox.js'
import type { TaskStatus, TaskSummary } from '../store/domain.js'

export interface LaunchOptions {
  command: string
  cwd: string
  description?: string
  /** Runs the job inside the OS sandbox. */
  sandbox?: CommandSandbox
  /** The job's environment (default: agent-tui's own). */
  env?: NodeJS.ProcessEnv
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

/** A running foreground process handed to the TaskManager (see `TaskManager.adopt` for the contract). */
export interface AdoptRequest {
  /** Leads its own process group, with piped stdout/stderr that nobody else reads any more. */
  child: ChildProcess
  command: string
  cwd: string
  description?: string
  /** Output collected before the hand-over; the task's buffer and log start with it. */
  initialOutput: string
  /** When true, the first read starts after `initialOutput` (the caller already showed it). */
  initialOutputSeen?: boolean
  startedAt?: number
}

/** Hand-over seam for the foreground Bash tool; the real TaskManager implements it. */
export interface TaskAdopter {
  adopt(opts: AdoptRequest): TaskSummary
}

/**
 * A background job of a session service that is neither a process nor a subagent (CodeSearch's index):
 * listed, read and stopped through the task directory like the others.
 */
export interface ServiceJob {
  readonly id: string
  summary(): TaskSummary
  read(opts: { block: boolean; timeoutMs: number; signal?: AbortSignal }): Promise<TaskReadResult>
  stop(): Promise<TaskSummary>
}
