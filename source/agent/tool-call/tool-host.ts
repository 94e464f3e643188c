import type { ModeChange } from '../../permissions/modes.js'
import type { QuestionBroker } from '../../permissions/question-broker.js'
import type { BashSandbox } from '../../sandbox/bash-sandbox.js'
import type { HostPrograms } from '../../util/host-programs.js'
import type { Mode } from '../../store/domain.js'
import type { ProcessGroupTracker } from '../../tasks/process-groups.js'
import type { TaskAdopter, TaskManagerApi } from '../../tasks/types.js'
import type {
  FileStateTracker,
  OutputSpiller,
  RuntimeSettingsApi,
  SubagentLauncher,
  ToolContext,
} from '../../tools/types.js'

export interface ToolHostOptions {
  workspace: string
  sessionId: string
  files: FileStateTracker
  spill: OutputSpiller
  settings: RuntimeSettingsApi
  mode(): Mode
  /** Absent for a subagent: ExitPlanMode cannot change the session's mode from inside one. */
  switchMode?(mode: Mode): ModeChange
  supportsVision(): boolean
  tasks?: TaskManagerApi & Partial<TaskAdopter>
  processes?: ProcessGroupTracker
  /** The OS sandbox Bash runs in, when the session asked for one. */
  sandbox?: BashSandbox
  /** bash and ripgrep by absolute path, outside the workspace. */
  programs?: HostPrograms
  questions?: QuestionBroker
  /** The Agent tool's subagents (absent: no Agent calls can run here). */
  subagents?: SubagentLauncher
}

/** A running foreground command that Ctrl+B can hand to the TaskManager. */
export interface ForegroundHandle {
  command: string
  /** Moves it to the background; returns the task id. */
  background(): string
}

/** What the session's tools run in: the context of each call, the current directory, the foreground commands. */
export interface ToolHost {
  context(signal: AbortSignal, onProgress: (text: string) => void, callId?: string): ToolContext
  /** Where Bash's `cd` has left the session. */
  cwd(): string
  /** The newest foreground command still running. */
  lastForeground(): ForegroundHandle | undefined
  /** Ctrl+B: moves the newest running foreground command to the TaskManager; false when there is none. */
  backgroundForeground(notice: (level: 'info' | 'error', text: string) => void): boolean
}

export function createToolHost(opts: ToolHostOptions): ToolHost {
  let cwd = opts.workspace
  const foreground: ForegroundHandle[] = []
  return {
    cwd: () => cwd,
    lastForeground: () => foreground.at(-1),
    backgroundForeground(notice) {
      const handle = foreground.at(-1)
      if (!handle) return false
      try {
        const id = handle.background()
        notice('info', `moved \`${handle.command}\` to background task ${id}`)
        return true
      } catch (err) {
        notice('error', `could not move the command to the background: ${String(err)}`)
        return false
      }
    },
    context(signal, onProgress, callId = 'user') {
      const ctx: ToolContext = {
        workspace: opts.workspace,
        cwd: () => cwd,
        setCwd: (dir) => {
          cwd = dir
        },
        signal,
        sessionId: opts.sessionId,
        files: opts.files,
        spill: opts.spill,
        onProgress,
        callId,
        mode: opts.mode,
        ...(opts.switchMode ? { switchMode: opts.switchMode } : {}),
        settings: opts.settings,
        foreground: {
          register: (handle) => {
            foreground.push(handle)
            return () => {
              const at = foreground.indexOf(handle)
              if (at >= 0) foreground.splice(at, 1)
            }
          },
        },
        supportsVision: opts.supportsVision(),
        ...(opts.tasks ? { tasks: opts.tasks } : {}),
        ...(opts.processes ? { processes: opts.processes } : {}),
        ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
        ...(opts.programs ? { programs: opts.programs } : {}),
        ...(opts.subagents ? { subagents: opts.subagents } : {}),
      }
      const questions = opts.questions
      if (!questions) return ctx
      return { ...ctx, questions: { ask: (request, signal) => questions.ask(request, signal, callId) } }
    },
  }
}
