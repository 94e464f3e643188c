import type { AppPaths } from '../config/paths.js'
import { outputsDir } from '../config/paths.js'
import { openOutputs } from '../session/outputs-lifecycle.js'
import { readSession } from '../session/read-session.js'
import { findSession, listSessions } from '../session/session-store.js'
import type { Store } from '../store/create-store.js'
import type { Mode } from '../store/domain.js'
import { replay } from '../store/reducer.js'
import { initialState, type State } from '../store/state.js'
import { SessionError } from './session-error.js'

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
      ? (await listSessions(projectSessions))[0]
      : await findSession(projectSessions, resume.id)
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
    restored: { id: loaded.header.id, path: entry.path, state: replay(state, loaded.actions) },
    lease,
    warnings: loaded.warnings,
  }
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
