import type { ConsentRequest, QuestionRequest, TaskSummary } from './domain.js'
import type { State, TranscriptItem } from './state.js'

/** Selectors return stored references or primitives so React bindings re-render only on real change. */
export const selectMode = (s: State) => s.mode
export const selectSandbox = (s: State) => s.sandbox
export const selectPhase = (s: State) => s.run.phase
export const selectIsBusy = (s: State) => s.run.phase !== 'idle'
export const selectTurnStartedAt = (s: State) => s.run.turnStartedAt
export const selectTodos = (s: State) => s.todos
export const selectTranscriptOrder = (s: State) => s.transcript.order
export const selectTranscriptItems = (s: State) => s.transcript.items
export const selectLiveId = (s: State) => s.transcript.liveId
export const selectUsage = (s: State) => s.usage
export const selectSession = (s: State) => s.session
export const selectUi = (s: State) => s.ui
export const selectRewindOpen = (s: State) => s.ui.rewind
export const selectEditorMode = (s: State) => s.ui.editorMode
export const selectTurns = (s: State) => s.turns
export const selectRewindUndo = (s: State) => s.checkpoints.undo
export const selectTasksState = (s: State) => s.tasks
export const selectMaskedCount = (s: State) => s.context.lastRequest?.masked ?? 0
/** The window the endpoint named in an overflow error, when smaller than the profile's. */
export const selectLearnedLimit = (s: State) => s.context.learnedLimit
export const selectQueued = (s: State) => s.queued

export function selectItem(s: State, id: string): TranscriptItem | undefined {
  return s.transcript.items[id]
}

export function selectActiveConsent(s: State): ConsentRequest | undefined {
  const id = s.consent.queue[0]
  return id === undefined ? undefined : s.consent.byId[id]
}

export const selectConsentQueueLength = (s: State) => s.consent.queue.length

/** A permission prompt, question or plan approval waits for the user's answer. */
export const selectWaitsForUser = (s: State) => s.consent.queue.length > 0 || s.questions.queue.length > 0

export function selectActiveQuestion(s: State): QuestionRequest | undefined {
  const id = s.questions.queue[0]
  return id === undefined ? undefined : s.questions.byId[id]
}

export const selectTrustRequest = (s: State) => s.trust
export const selectMcpServers = (s: State) => s.mcp.servers
export const selectMcpChanges = (s: State) => s.mcp.changes

/** Tasks in start order; callers memoise on `s.tasks`. */
export function listTasks(tasks: State['tasks']): TaskSummary[] {
  return tasks.order.map((id) => tasks.byId[id]).filter((t): t is TaskSummary => t !== undefined)
}

export const selectRunningTaskCount = (s: State) =>
  s.tasks.order.reduce((n, id) => (s.tasks.byId[id]?.status === 'running' ? n + 1 : n), 0)
