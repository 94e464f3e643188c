import type { AppPaths } from '../../config/app-paths.js'
import { outputsDir } from '../../config/app-paths.js'
import { openOutputs } from '../../session/outputs-lifecycle.js'
import { readSession } from '../../session/read-session.js'
import { openSessionLog, SESSION_FORMAT, type SessionLog } from '../../session/session-log.js'
import { findSession, listSessions, newSessionId, type SessionEntry } from '../../session/session-store.js'
import { historyArguments } from '../../agent/tool-call/arguments.js'
import { type Action, isPersisted, type PersistedAction } from '../../store/actions.js'
import { createStore, type Store } from '../../store/create-store.js'
import type { Mode } from '../../store/domain.js'
import { replay } from '../../store/reducer.js'
import { modeInstruction } from '../../agent/turn/mode-instructions.js'
import { initialState, type State } from '../../store/state.js'
import { SessionError } from '../session-error.js'

/** A session's log and state: resuming one, opening a new one, and answering a crash's dangling calls. */

export interface ResumedSession {
  restored: { id: string; path: string; state: State }
  /** Held from before the log is read: no start-up sweep deletes the session's outputs meanwhile. */
  lease: Awaited<ReturnType<typeof openOutputs>>
  /** Lines of the log that could not be read (a torn last line), for notices. */
  warnings: string[]
}

/** `--continue` or `--resume ID`: the session's log read and replayed into the state it ended in. */
export async function resumeSession(
  resume: { kind: 'continue' } | { kind: 'id'; id: string },
  at: {
    paths: AppPaths
    workspace: string
    projectSessions: string
    endpoint: { model: string; baseUrl: string }
    mode: Mode
  },
): Promise<ResumedSession> {
  const { paths, workspace, projectSessions, endpoint } = at
  const entry =
    resume.kind === 'continue'
      ? continueTarget(await listSessions(projectSessions, workspace))
      : await findSession(projectSessions, resume.id, workspace)
  if (!entry) {
    throw new SessionError(
      resume.kind === 'continue'
        ? `no previous session in ${workspace} to continue`
        : `no session "${resume.id}" in ${workspace} (sessions live in ${projectSessions})`,
    )
  }
  // Before anything of it is read: from here on no start-up sweep deletes this session's files.
  const lease = await openOutputs(outputsDir(paths, entry.id))
  const loaded = await readSession(entry.path)
  const state = initialState(
    {
      id: loaded.header.id,
      cwd: workspace,
      model: endpoint.model,
      baseUrl: endpoint.baseUrl,
      title: '',
      startedAt: loaded.header.createdAt,
    },
    at.mode,
  )
  return {
    restored: {
      id: loaded.header.id,
      path: entry.path,
      state: replay(state, loaded.actions.map(wellFormedCalls)),
    },
    lease,
    warnings: loaded.warnings,
  }
}

/**
 * A logged assistant message with its calls' arguments as the history keeps them now (the JSON of what
 * they parse to, or `{}`): a log written by an older agent-tui may hold the model's raw text, which a
 * strict server refuses once it is sent back.
 */
function wellFormedCalls(action: PersistedAction): PersistedAction {
  if (action.type !== 'assistant/settled' || !action.message.tool_calls?.length) return action
  const tool_calls = action.message.tool_calls.map((call) => {
    const args = historyArguments(call.function.arguments)
    return args === call.function.arguments
      ? call
      : { ...call, function: { ...call.function, arguments: args } }
  })
  return { ...action, message: { ...action.message, tool_calls } }
}

/**
 * A crash can leave an assistant message whose tool calls never got results. Answer them now (and log
 * it) so the resumed history keeps the pairing rule.
 */
export function closeDanglingCalls(store: Store): void {
  const { messages } = store.getState()
  const answered = new Set(
    messages.filter((m) => m.role === 'tool').map((m) => (m.role === 'tool' ? m.tool_call_id : '')),
  )
  const last = [...messages].reverse().find((m) => m.role === 'assistant')
  if (last?.role !== 'assistant') return
  for (const call of last.tool_calls ?? []) {
    if (answered.has(call.id)) continue
    store.dispatch({
      type: 'tool/finished',
      callId: call.id,
      name: call.function.name,
      summary: call.function.name,
      status: 'cancelled',
      content: JSON.stringify({
        error: {
          tool: call.function.name,
          category: 'aborted',
          retryable: false,
          message: 'the previous run ended before this call finished; it did not complete',
        },
      }),
      preview: 'interrupted by the end of the previous run',
      display: null,
      durationMs: 0,
    })
  }
}

/**
 * The session's log and store: a new session gets a header and `session/started`; a resumed one continues
 * its log and starts from the state it was replayed into, in this run's mode. Every persisted action is
 * appended to the log, and every action goes to the observers (headless output, debug log).
 */
export function openSessionStore(at: {
  restored: ResumedSession['restored'] | null
  /** Where a new session's log goes. */
  logPath(id: string): string
  workspace: string
  endpoint: { model: string; baseUrl: string }
  /** This run's mode: a new session's, and a resumed one's unless `resumedMode` keeps the one it was left in. */
  mode: Mode
  /** This run's launch mode (what Shift+Tab may come back to); the run's mode when not given. */
  launchMode?: Mode
  observers: ReadonlyArray<(action: Action, state: State) => void>
  warnings: string[]
}): { id: string; logPath: string; createdAt: number; log: SessionLog; store: Store } {
  const { restored, workspace, endpoint, mode } = at
  const id = restored?.id ?? newSessionId()
  const logPath = restored?.path ?? at.logPath(id)
  const createdAt = Date.now()
  const log = openSessionLog(
    logPath,
    restored ? undefined : { type: 'header', format: SESSION_FORMAT, id, cwd: workspace, createdAt },
  )
  if (log.tornTail) {
    at.warnings.push(
      `${logPath}: moved the torn last line (${log.tornTail.bytes} bytes) to ${log.tornTail.path}; new events start on a clean line`,
    )
  }
  const sessionInfo = {
    id,
    cwd: workspace,
    model: endpoint.model,
    baseUrl: endpoint.baseUrl,
    title: restored?.state.session.title ?? '',
    ...(restored?.state.session.named ? { named: true } : {}),
    startedAt: restored?.state.session.startedAt ?? createdAt,
  }
  const launchMode = at.launchMode ?? mode
  const base = restored
    ? { ...restored.state, session: sessionInfo, launchMode }
    : initialState(sessionInfo, mode)
  const store = createStore(base, (action, state) => {
    if (isPersisted(action)) log.append(action)
    for (const observe of at.observers) observe(action, state)
  })
  if (!restored) store.dispatch({ type: 'session/started', session: sessionInfo, mode })
  else if (restored.state.mode !== mode) {
    // Logged, so the next resume starts from the mode this run used; the model hears of it as it would of
    // a Shift+Tab (an appended message, the prompt prefix unchanged).
    store.dispatch({ type: 'mode/changed', mode })
    const instruction = modeInstruction(restored.state.mode, mode)
    if (instruction)
      store.dispatch({ type: 'history/appended', message: { role: 'user', content: instruction } })
  }
  return { id, logPath, createdAt, log, store }
}

/** `--continue`: the newest session with a message; one opened and left without any is passed over. */
function continueTarget(entries: SessionEntry[]): SessionEntry | undefined {
  return entries.find((e) => !e.empty) ?? entries[0]
}
