import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type {
  ModelList,
  PermissionRulesView,
  RuntimeCommands,
  SessionServices,
  SkillListing,
  SessionSummary,
  StatusReport,
  TurnCommands,
} from '../../agent/runtime/commands.js'
import { loadImageAttachment } from '../../agent/turn/images.js'
import { appendMemory, listMemoryFiles } from '../../agent/prompt/project-memory.js'
import { atomicWriteFile } from '../../tools/atomic-write.js'
import { normalizeTitle, writeSessionTitle } from '../../session/session-title.js'
import { forkSessionLog } from '../../session/fork-session.js'
import { newSessionId, sessionPath } from '../../session/session-store.js'
import { readLogSlice } from '../../tasks/log-slice.js'
import { hostPort, openableUrl } from '../../tasks/port-text.js'
import type { AgentsControl } from '../../agent/runtime/main-agent.js'
import type { TrustController } from '../../agent/runtime/trust-controller.js'
import type { Checkpoints } from '../../checkpoints/lazy.js'
import { listTurns, type RewindHost, rewind, runRewind, undoRewind } from '../../checkpoints/rewind.js'
import type { RewindReport } from '../../checkpoints/types.js'
import type { AppPaths } from '../../config/app-paths.js'
import { ignoreLocalSettings, LOCAL_SETTINGS } from '../../config/ignore-local-settings.js'
import type { HookService } from '../../user-hooks/hook-service.js'
import type { QuestionBroker } from '../../permissions/question-broker.js'
import type { Store } from '../../store/create-store.js'
import type { ConsentDecision } from '../../store/domain.js'
import type { TaskManagerApi } from '../../tasks/types.js'
import type { InstructionReader } from '../../tools/instruction-file.js'
import type { FileStateTracker } from '../../tools/types.js'

export interface SessionServiceOptions {
  workspace: string
  /** Reads the project's instruction files through the read boundary (for `/memory`). */
  readInstructions: InstructionReader
  sessionId: string
  /** The session log (a `/rename` writes the title beside it); absent: the title is not listed. */
  logPath?: string
  /** Where relative paths resolve: the directory Bash's `cd` has left the session in. */
  cwd(): string
  /** Whether the session's model takes images (its profile). */
  supportsVision?: () => boolean
  /** Renders the transcript for `/export` (the UI's renderer: the runtime stays UI-free). */
  exportMarkdown?: () => string
  /** Where `/export` writes without a path (the state directory's `exports/`); default: the workspace. */
  exportDir?: string
  /** This directory's sessions, this one included (for `/resume`). */
  sessions?: () => Promise<SessionSummary[]>
  store: Store
  gate: { resolve(id: string, decision: ConsentDecision): void; describeRules(): PermissionRulesView }
  /** Present when a user can answer (interactive sessions). */
  questions?: QuestionBroker
  /** Project trust's prompt and live answers (interactive sessions). */
  trust?: TrustController
  tasks?: TaskManagerApi
  /** Opens a URL in the user's browser; false when there is none to open it in (absent: headless). */
  openUrl?: (url: string) => boolean
  hooks?: HookService
  /** Snapshots before workspace changes, for /rewind (absent: only the conversation can be rewound). */
  checkpoints?: Checkpoints
  /** What the model has read (a rewound conversation has read nothing it no longer holds). */
  files: FileStateTracker
  /** Whether a turn runs (a rewind waits for none). */
  busy(): boolean
  /** Ids unique in the session, from the same counter as the runtime's. */
  newId(prefix: string): string
  /** Lists the endpoint's models for `/model`; never rejects (absent: only `/model <id>` works). */
  listModels?: () => Promise<ModelList>
  /** The endpoint's extra request headers, redacted (config/headers.ts). */
  endpointHeaders?: () => string[]
  /** `/plugin`'s lines (plugins/session-plugins.ts). */
  pluginLines?: () => Promise<string[]>
  setPluginEnabled?: (name: string, enabled: boolean) => Promise<string[]>
  /** The user's settings file, where `/vim` saves `editorMode` (absent: it cannot be saved). */
  userSettings?: Pick<AppPaths, 'configDir' | 'userSettingsFile'>
  /** Agent profiles for `/agents`, and the background subagents' transcripts. */
  agents?: AgentsControl
  /** The session's skills for `/skills`. */
  skills?: () => SkillListing
  /** The MCP client, when servers are configured. */
  mcp?: { reconnect(name: string): void; authenticate(name: string): void }
  /** `/mcp`'s changes of this session (app/session/mcp-changes.ts). */
  mcpChanges?: Pick<SessionServices, 'setMcpEnabled' | 'addMcpServer' | 'removeMcpServer'>
  /** What was loaded from where, for `/status`. */
  status?: () => StatusReport
}

/**
 * A rewind puts files back as they were, `.gitignore` included: one agent-tui created (or extended) when it
 * saved an "always" rule would go, and the rules file it keeps out of commits with it — which a rewind
 * leaves in place, since git ignored it. So after a rewind that touched `.gitignore`, the line is put back.
 */
async function keepLocalSettingsIgnored(workspace: string, report: RewindReport): Promise<RewindReport> {
  if (!report.applied || ![...report.restore, ...report.remove].includes('.gitignore')) return report
  if (!existsSync(join(workspace, LOCAL_SETTINGS))) return report
  const outcome = await ignoreLocalSettings(workspace)
  if (outcome.kind === 'added')
    return {
      ...report,
      notes: [...report.notes, `${LOCAL_SETTINGS} stays out of commits: its line is back in .gitignore`],
    }
  if (outcome.kind === 'failed')
    return {
      ...report,
      notes: [...report.notes, `${LOCAL_SETTINGS} may now be committed: ${outcome.reason}`],
    }
  return report
}

/** A single read of a job's log is bounded, whatever the caller asks for. */
const MAX_LOG_READ_BYTES = 1024 * 1024

/** What a session offers besides its turns (see `SessionServices`). */
export function createSessionServices(opts: SessionServiceOptions): SessionServices {
  const { store } = opts
  const notice = (level: 'info' | 'error', text: string) =>
    store.dispatch({ type: 'notice/added', id: opts.newId('notice'), level, text })
  const rewindHost = (): RewindHost => ({
    getState: store.getState,
    dispatch: store.dispatch,
    checkpoints: opts.checkpoints ?? null,
    newId: opts.newId,
    forgetReads: () => opts.files.clear(),
    busy: opts.busy,
    notice: (text) => notice('info', text),
  })
  return {
    loadImage: (path) => loadImageAttachment(path, opts.cwd()),
    supportsVision: () => opts.supportsVision?.() ?? false,
    async exportTranscript(path) {
      if (!opts.exportMarkdown) throw new Error('export is not available')
      const target = path
        ? resolve(opts.cwd(), path)
        : join(opts.exportDir ?? opts.workspace, `agent-tui-${opts.sessionId}.md`)
      // Never through a link at the name (the workspace is writable by sandboxed commands): the file
      // named is replaced. A folder the user names is theirs, links and all; below the state dir nothing is.
      const below = path ? dirname(target) : opts.exportDir ? dirname(opts.exportDir) : opts.workspace
      await atomicWriteFile(target, opts.exportMarkdown(), { below })
      return target
    },
    memoryFiles: () => listMemoryFiles(opts.workspace, opts.readInstructions),
    status: () => opts.status?.() ?? { sections: [] },
    addMemory: (text) => appendMemory(opts.workspace, text, opts.readInstructions),
    async listSessions() {
      const all = (await opts.sessions?.()) ?? []
      return all.filter((s) => s.id !== opts.sessionId)
    },
    async renameSession(raw) {
      const title = normalizeTitle(raw)
      if (!title) throw new Error('a title needs something to show: /rename <title>')
      store.dispatch({ type: 'session/renamed', title })
      try {
        if (opts.logPath) await writeSessionTitle(opts.logPath, title)
      } catch (err) {
        throw new Error(`renamed here, but the /resume list keeps the old title: ${(err as Error).message}`)
      }
      return title
    },
    async forkSession(turn) {
      const state = store.getState()
      if (!opts.logPath) throw new Error('this session has no log to fork')
      const turns = state.turns.length
      if (turns === 0) throw new Error('nothing to fork yet: the session has no turn')
      const through = turn ?? turns
      if (!Number.isInteger(through) || through < 1 || through > turns)
        throw new Error(`no turn ${turn}: this session has turns 1 to ${turns}`)
      const next = state.turns[through]
      const id = newSessionId()
      const title = normalizeTitle(`${state.session.title || 'session'} (fork)`)
      await forkSessionLog({
        source: opts.logPath,
        target: sessionPath(dirname(opts.logPath), id),
        id,
        cwd: opts.workspace,
        now: Date.now(),
        ...(next ? { cut: { turnNumber: through, nextTurnId: next.id } } : {}),
        title,
      })
      return { id, title }
    },
    resolveConsent: (id, decision) => opts.gate.resolve(id, decision),
    answerQuestion: (id, answer) => opts.questions?.answer(id, answer),
    resolveTrust(id, choice) {
      void opts.trust
        ?.resolve(id, choice)
        .catch((err: unknown) => notice('error', `could not apply the trust answer: ${String(err)}`))
    },
    reviewTrust() {
      if (!opts.trust) notice('info', 'project trust cannot be changed in this session')
      else void opts.trust.review().catch((err: unknown) => notice('error', `/trust failed: ${String(err)}`))
    },
    async stopTask(id) {
      if (!opts.tasks) throw new Error('background tasks are not available in this build')
      await opts.tasks.stop(id)
    },
    openTaskUrl(id) {
      // The ports the pane shows: the store's copy of the job.
      const ports = store.getState().tasks.byId[id]?.ports
      const url = openableUrl(ports)
      const first = ports?.[0]
      if (!first) notice('info', `${id} listens on no TCP port yet`)
      else if (!url)
        notice(
          'info',
          `${id} listens on ${hostPort(first)} inside the sandbox's own network, which the host's browser cannot reach (sandbox.network: true shares the host's network)`,
        )
      else if (opts.openUrl?.(url)) notice('info', `Opening ${url} (${id}) in the browser`)
      else notice('info', `${id} listens at ${url} (no browser to open it in here)`)
    },
    async readTaskLog(id, maxBytes, range) {
      const task = opts.tasks?.get(id)
      if (!task) return { text: '', start: 0, end: 0, size: 0 }
      return readLogSlice(task.logPath, Math.min(maxBytes, MAX_LOG_READ_BYTES), range)
    },
    listModels: () =>
      opts.listModels?.() ?? Promise.resolve({ models: [], error: 'this session cannot list them' }),
    endpointHeaders: () => opts.endpointHeaders?.() ?? [],
    pluginLines: () => opts.pluginLines?.() ?? Promise.resolve([]),
    setPluginEnabled: (name, enabled) =>
      opts.setPluginEnabled?.(name, enabled) ??
      Promise.resolve(['plugins cannot be changed from this session']),
    async saveEditorMode(mode) {
      if (!opts.userSettings) throw new Error('this session has no settings file to save it in')
      const { saveUserSetting } = await import('../../config/save-user-setting.js')
      return saveUserSetting(opts.userSettings, 'editorMode', mode)
    },
    permissionRules: () => opts.gate.describeRules(),
    hooks: () => opts.hooks?.view() ?? { active: [], inactive: [], warnings: [] },
    rewindTurns: () => listTurns(store.getState(), opts.checkpoints?.offReason() ?? null),
    rewind: (turn, scope, rewindOpts = {}) =>
      runRewind(rewindHost(), (host) => rewind(host, turn, scope, rewindOpts)).then((report) =>
        keepLocalSettingsIgnored(opts.workspace, report),
      ),
    undoRewind: (rewindOpts = {}) =>
      runRewind(rewindHost(), (host) => undoRewind(host, rewindOpts)).then((report) =>
        keepLocalSettingsIgnored(opts.workspace, report),
      ),
    listAgents() {
      const current = store.getState().agent
      return opts.agents?.list(current) ?? { current, agents: [], problems: [] }
    },
    agentTranscript: (taskId) => opts.agents?.transcript(taskId) ?? null,
    listSkills: () => opts.skills?.() ?? { skills: [], problems: [] },
    reconnectMcpServer: (name) => opts.mcp?.reconnect(name),
    authenticateMcpServer: (name) => opts.mcp?.authenticate(name),
    ...(opts.mcpChanges ?? {
      setMcpEnabled: () => Promise.reject(new Error('MCP cannot be changed in this session')),
      addMcpServer: () => Promise.reject(new Error('MCP cannot be changed in this session')),
      removeMcpServer: () => Promise.reject(new Error('MCP cannot be changed in this session')),
    }),
  }
}

/**
 * The UI's commands as one object: the runtime's turn control, and the session's services beside it.
 * A service wins over a runtime method of the same name; runtime methods are called on the runtime.
 */
export function sessionCommands(runtime: TurnCommands, services: SessionServices): RuntimeCommands {
  const bound = new Map<PropertyKey, unknown>()
  return new Proxy(runtime as RuntimeCommands, {
    get(target, key) {
      if (Object.hasOwn(services, key)) return services[key as keyof SessionServices]
      const value: unknown = Reflect.get(target, key, target)
      if (typeof value !== 'function') return value
      // One function per name, so a command read twice is the same function.
      if (!bound.has(key)) bound.set(key, value.bind(target))
      return bound.get(key)
    },
  })
}
