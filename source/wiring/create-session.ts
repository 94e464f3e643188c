import { homedir } from 'node:os'
import { join, relative } from 'node:path'
import { Runtime } from '../agent/runtime.js'
import { createTrustController, type TrustController } from '../agent/trust-controller.js'
import type { ProjectTrust } from '../config/project-trust.js'
import { DEFAULT_BREAKER } from '../agent/circuit-breaker.js'
import { describeSettings } from '../agent/runtime-settings.js'
import { createSummarizer } from '../agent/web-summarizer.js'
import { profileGate } from '../agent/subagents/child-gate.js'
import { createTaskDirectory } from '../agent/subagents/task-directory.js'
import { buildPromptParts } from '../agent/system-prompt.js'
import { cachedDefinitions } from '../agent/tool-definitions.js'
import { createLazyCheckpoints } from '../checkpoints/lazy.js'
import { DEFAULT_MAX_STEPS, type ResolvedConfig } from '../config/resolve.js'
import { type AppPaths, outputsDir, sessionsDir } from '../config/paths.js'
import { createConsentBroker } from '../permissions/broker.js'
import { isReadOnlyCommand } from '../permissions/classifier.js'
import { createQuestionBroker } from '../permissions/question-broker.js'
import { realPathOf } from '../permissions/real-path.js'
import { saveAlwaysRule } from '../permissions/ignore-local-settings.js'
import { recordLocalSettings } from '../config/local-settings-ledger.js'
import { createLazyProvider } from '../provider/lazy-provider.js'
import { type ModelProfile, resolveProfile } from '../provider/profiles.js'
import { openOutputs, sweepOutputs } from '../session/outputs-lifecycle.js'
import { readSession } from '../session/read-session.js'
import { openSessionLog, SESSION_FORMAT, type SessionLog } from '../session/session-log.js'
import {
  findSession,
  listSessions,
  newSessionId,
  sessionPath,
  summarizeSessions,
} from '../session/session-store.js'
import { type Action, isPersisted } from '../store/actions.js'
import { createStore, type Store } from '../store/create-store.js'
import { replay } from '../store/reducer.js'
import { initialState, type State } from '../store/state.js'
import { createTaskManager, type TaskManager } from '../tasks/task-manager.js'
import { createPidRegistry } from '../tasks/pid-registry.js'
import { createProcessGroups, type ProcessGroups } from '../tasks/process-groups.js'
import { createCatalog } from '../tools/catalog.js'
import { createListMcpResourcesTool } from '../tools/list-mcp-resources.js'
import { createReadMcpResourceTool } from '../tools/read-mcp-resource.js'
import { createSessionMcp, MCP_STARTUP_TIMEOUT_SECONDS } from './session-mcp.js'
import { createFileStateTracker } from '../tools/file-state.js'
import { createOutputSpiller } from '../tools/spill.js'
import type { BashSandbox } from '../sandbox/bash-sandbox.js'
import { createLazyBashSandbox } from '../sandbox/lazy.js'
import { resolveAdditionalDirs } from './additional-dirs.js'
import { readGitBranch } from './git.js'
import { createPermissionGate, type RuntimeGate } from './permission-gate.js'
import { createSessionHookService } from './session-hooks.js'
import { listEndpointModels } from './list-models.js'
import { SessionError } from './session-error.js'
import { DEFAULT_MAX_PARALLEL, setUpAgents } from './subagents.js'

/** Project trust and the configuration it yields either way (the session switches live on an answer). */
export interface ProjectTrustSetup {
  trust: ProjectTrust
  configFor(trusted: boolean): ResolvedConfig
}

export interface SessionOptions {
  config: ResolvedConfig
  paths: AppPaths
  endpoint: { baseUrl: string; apiKey?: string; model: string; contextLength?: number }
  workspace: string
  interactive: boolean
  resume?: { kind: 'continue' } | { kind: 'id'; id: string }
  /** Extra observers of every action (headless output, debug log). */
  observers?: Array<(action: Action, state: State) => void>
  /** Renders the transcript for /export (the UI's renderer, injected so the runtime stays UI-free). */
  exportMarkdown?: (state: State) => string
  projectTrust?: ProjectTrustSetup
  /** MCP notices also go here (headless prints them on stderr, where a script's author looks). */
  onMcpNotice?: (level: 'info' | 'warn' | 'error', text: string) => void
  /** `--agent NAME`: the main session runs as this agent profile. */
  agent?: string
}

/** The TUI's first request waits this long for MCP servers still starting; later ones are announced. */
const MCP_INTERACTIVE_WAIT_MS = 5_000

export interface Session {
  id: string
  store: Store
  runtime: Runtime
  tasks: TaskManager
  /** Every live process group of the session (foreground commands and background jobs). */
  processes: ProcessGroups
  log: SessionLog
  profile(): ModelProfile
  /** Git branch at start (read once). */
  branch: string | undefined
  warnings: string[]
  /** The trust prompt and notices (interactive sessions with project trust). */
  trust?: TrustController
  /** The Bash sandbox, when the session asked for one; `status()` runs its one-time check. */
  sandbox?: BashSandbox
  /** Loads what the first request will need (the provider); resolves when done, never rejects. */
  preload(): Promise<void>
  /** Starts the MCP servers in the background (after the first frame in the TUI, at once headless). */
  startMcp(): void
  close(): Promise<void>
}

/** Builds the whole service graph of one session: store ← runtime → provider, tools, permissions, tasks. */
export async function createSession(opts: SessionOptions): Promise<Session> {
  const { config, paths, endpoint, workspace } = opts
  const home = homedir()
  const warnings: string[] = [...config.warnings]
  const projectSessions = sessionsDir(paths, workspace)
  // Checked before anything is written: a bad --add-dir ends the start with a usage error.
  const additionalDirs = await resolveAdditionalDirs(config.additionalDirectories, workspace, home, warnings)

  let restored: { id: string; path: string; state: State } | null = null
  let lease: Awaited<ReturnType<typeof openOutputs>> | null = null
  if (opts.resume) {
    const entry =
      opts.resume.kind === 'continue'
        ? (await listSessions(projectSessions))[0]
        : await findSession(projectSessions, opts.resume.id)
    if (!entry) {
      throw new SessionError(
        opts.resume.kind === 'continue'
          ? `no previous session in ${workspace} to continue`
          : `no session "${opts.resume.id}" in ${workspace} (sessions live in ${projectSessions})`,
      )
    }
    // Before anything of it is read: from here on no start-up sweep deletes this session's files.
    lease = await openOutputs(outputsDir(paths, entry.id))
    const loaded = await readSession(entry.path)
    warnings.push(...loaded.warnings)
    let state = initialState(
      {
        id: loaded.header.id,
        cwd: workspace,
        model: endpoint.model,
        baseUrl: endpoint.baseUrl,
        title: '',
        startedAt: loaded.header.createdAt,
      },
      config.mode,
    )
    state = replay(state, loaded.actions)
    restored = { id: loaded.header.id, path: entry.path, state }
  }

  const id = restored?.id ?? newSessionId()
  const logPath = restored?.path ?? sessionPath(projectSessions, id)
  const createdAt = Date.now()
  const log = openSessionLog(
    logPath,
    restored ? undefined : { type: 'header', format: SESSION_FORMAT, id, cwd: workspace, createdAt },
  )
  if (log.tornTail) {
    warnings.push(
      `${logPath}: moved the torn last line (${log.tornTail.bytes} bytes) to ${log.tornTail.path}; new events start on a clean line`,
    )
  }
  const sessionInfo = {
    id,
    cwd: workspace,
    model: endpoint.model,
    baseUrl: endpoint.baseUrl,
    title: restored?.state.session.title ?? '',
    startedAt: restored?.state.session.startedAt ?? createdAt,
  }
  const base = restored
    ? { ...restored.state, session: sessionInfo, mode: config.mode, launchMode: config.mode }
    : initialState(sessionInfo, config.mode)
  const observers = opts.observers ?? []
  const store = createStore(base, (action, state) => {
    if (isPersisted(action)) log.append(action)
    for (const observe of observers) observe(action, state)
  })
  if (!restored) store.dispatch({ type: 'session/started', session: sessionInfo, mode: config.mode })

  const outputs = outputsDir(paths, id)
  lease ??= await openOutputs(outputs)
  const outputsLease = lease
  // Off the start-up path: another session's old outputs can wait for the event loop to be free.
  setTimeout(() => void sweepOutputs(paths.outputsRoot, { skip: id }).catch(() => undefined), 1000).unref()
  const registry = createPidRegistry(paths.pidRegistryFile, {
    onError: (err) => warnings.push(`pid registry: ${err.message}`),
  })
  const reaped = await registry.reapOrphans().catch(() => [])
  for (const orphan of reaped) {
    const what = orphan.kind === 'foreground' ? 'command' : 'background job'
    warnings.push(
      orphan.killed
        ? `stopped an orphaned ${what} from a crashed run: pid ${orphan.pid} (${orphan.command})`
        : `could not stop an orphaned ${what} from a crashed run: process group ${orphan.pid} (${orphan.command}) survived SIGKILL`,
    )
  }
  const processes = createProcessGroups({ registry })
  // Task ids restart at b1 in every run; a per-run folder keeps a resumed session's old logs intact.
  const runOutputs = join(outputs, `run-${createdAt}`)
  const tasks = createTaskManager({
    outputsDir: runOutputs,
    processes,
    // Through the directory, which adds the subagent a job belongs to.
    onUpdate: (task) => store.dispatch({ type: 'task/updated', task: directory.decorate(task) }),
  })
  const directory = createTaskDirectory({
    processes: tasks,
    logDir: join(runOutputs, 'tasks'),
    onUpdate: (task) => store.dispatch({ type: 'task/updated', task }),
  })

  const sandbox =
    config.sandbox.mode === 'off'
      ? undefined
      : createSandbox(store, [workspace, ...additionalDirs], outputs, config)

  const localSettingsLabel = relative(workspace, config.localSettingsPath) || config.localSettingsPath
  // Paths are judged after resolving symlinks, so the roots they are compared with are real paths too.
  const [realWorkspace, realOutputs] = await Promise.all([realPathOf(workspace), realPathOf(outputs)])
  // A grant re-judges the other pending requests with the policy (it needs the gate, made below).
  let gateRef: RuntimeGate | undefined
  const broker = createConsentBroker({
    dispatch: store.dispatch,
    policy: opts.interactive ? 'interactive' : 'deny-all',
    onAlways: async (rule) => {
      // Only a file that was the user's stays so; one the folder brought is not laundered by a save.
      const yours = opts.projectTrust?.trust.localIsYours() ?? true
      const notice = await saveAlwaysRule(config.localSettingsPath, workspace, rule)
      // Unrecorded, the file counts as the repository's until the folder is trusted (said at the next start).
      if (yours)
        await recordLocalSettings(paths.localSettingsLedgerFile, config.localSettingsPath).catch(
          () => undefined,
        )
      return notice
    },
    alwaysSource: localSettingsLabel,
    timeoutSeconds: config.consentTimeoutSeconds,
    recheck: (call) => gateRef?.allowsNow(call) ?? false,
    workspace,
    home,
  })
  const spill = createOutputSpiller(outputs)
  const baseGate = createPermissionGate({
    store,
    rules: config.rules,
    broker,
    workspace: realWorkspace,
    home,
    additionalDirs,
    trustedReadDirs: [realOutputs],
    interactive: opts.interactive,
    savedTo: localSettingsLabel,
  })
  gateRef = baseGate
  // Asked for on every tool call; the table and the settings are fixed for the session, so resolve once per model.
  const resolvedProfiles = new Map<string, ModelProfile>()
  const profiles = (model: string): ModelProfile => {
    const known = resolvedProfiles.get(model)
    if (known !== undefined) return known
    const profile = resolveProfile(model, {
      ...(config.settings.models
        ? { overrides: config.settings.models as Record<string, Partial<ModelProfile>> }
        : {}),
      ...(endpoint.contextLength && model === endpoint.model
        ? { endpointContextLength: endpoint.contextLength }
        : {}),
    })
    resolvedProfiles.set(model, profile)
    return profile
  }
  const profile = () => profiles(store.getState().session.model)
  const branch = readGitBranch(workspace)
  const management = config.settings.contextManagement
  const contextSettings = {
    masking: management?.masking ?? true,
    ...(management?.observationWindow !== undefined
      ? { observationWindow: management.observationWindow }
      : {}),
    ...(management?.compactAt !== undefined ? { compactAt: management.compactAt } : {}),
    ...(config.settings.summarizerModel ? { summarizerModel: config.settings.summarizerModel } : {}),
  }
  const prompts = await buildPromptParts({
    workspace,
    platform: `${process.platform} ${process.arch}`,
    shell: 'bash',
    model: endpoint.model,
    date: new Date(createdAt).toISOString().slice(0, 10),
    mode: config.mode,
    masking: contextSettings.masking,
    ...(branch ? { gitBranch: branch } : {}),
    additionalDirs,
    ...(sandbox ? { sandbox: { network: sandbox.network } } : {}),
  })
  const retry = config.settings.retry
  const provider = createLazyProvider(async () =>
    (await import('../provider/client.js')).createOpenAIProvider({
      baseUrl: endpoint.baseUrl,
      ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
      ...(retry?.maxAttempts !== undefined ? { maxAttempts: retry.maxAttempts } : {}),
      ...(retry?.maxRetryAfterSeconds !== undefined
        ? { maxRetryAfterMs: retry.maxRetryAfterSeconds * 1000 }
        : {}),
    }),
  )
  let webNotices = 0
  const { summarizerModel, search } = config.settings
  const coreTools = createCatalog({
    isReadOnlyCommand,
    settings: describeSettings(),
    web: {
      ...(summarizerModel
        ? { summarize: createSummarizer(provider, summarizerModel, profiles(summarizerModel)) }
        : {}),
      ...(search ? { search } : {}),
      env: process.env,
      settingsFile: paths.userSettingsFile,
      notify: (level, text) =>
        store.dispatch({
          type: 'notice/added',
          id: `web-${createdAt.toString(36)}-${++webNotices}`,
          level,
          text,
        }),
    },
  })
  let mcpNotices = 0
  const mcp = createSessionMcp(opts, {
    processes,
    notice: (level, text) => {
      store.dispatch({
        type: 'notice/added',
        id: `mcp-${createdAt.toString(36)}-${++mcpNotices}`,
        level,
        text,
      })
      opts.onMcpNotice?.(level, text)
    },
    publish: (servers) => store.dispatch({ type: 'mcp/servers', servers }),
  })
  const mcpStartup = (config.settings.mcp?.startupTimeoutSeconds ?? MCP_STARTUP_TIMEOUT_SECONDS) * 1000
  const agents = await setUpAgents({
    tools: coreTools,
    prompts,
    configDir: paths.configDir,
    workspace,
    home,
    ...(opts.projectTrust ? { trust: opts.projectTrust.trust } : {}),
    ...(opts.agent ? { requested: opts.agent } : {}),
    ...(restored ? { resumed: restored.state.agent } : {}),
  })
  warnings.push(...agents.warnings)
  // A read-only main agent (`--agent explore`) is held to reading in the executor, like a subagent.
  const gate = profileGate(baseGate, () => {
    const profile = agents.registry.get(store.getState().agent)
    return { readOnly: profile?.readOnly === true, name: profile?.name ?? '' }
  })
  if (store.getState().agent !== agents.main.profile.name)
    store.dispatch({ type: 'agent/changed', agent: agents.main.profile.name })
  let checkpointNotices = 0
  const checkpoints = createLazyCheckpoints({
    workspace,
    stateDir: paths.stateDir,
    dispatch: store.dispatch,
    notice: (level, text) =>
      store.dispatch({
        type: 'notice/added',
        id: `checkpoint-${createdAt}-${++checkpointNotices}`,
        level,
        text,
      }),
  })
  const breakerSettings = config.settings.circuitBreaker
  const setup = opts.projectTrust
  let counter = 0
  const trust =
    setup && opts.interactive
      ? createTrustController({
          trust: setup.trust,
          store,
          setRules: (rules) => baseGate.setRules(rules),
          configFor: (trusted) => setup.configFor(trusted),
          setMode: (mode) => runtime.setMode(mode),
          home,
          newId: (prefix) => `${prefix}-trust-${Date.now().toString(36)}-${++counter}`,
        })
      : undefined
  warnings.push(...config.hooks.warnings)
  const hooks = createSessionHookService({
    config,
    ...(setup ? { projectTrust: setup } : {}),
    interactive: opts.interactive,
    workspace,
    sessionId: id,
    transcriptPath: logPath,
    mode: () => store.getState().mode,
    cwd: () => runtime.currentDirectory(),
    // Every exit path kills tracked groups, and the next start reaps them after a crash.
    owner: processes,
  })
  const capabilities = (model: string) => {
    const p = profiles(model)
    return { supportsVision: p.supportsVision, supportsAllowedTools: p.supportsAllowedTools }
  }
  const maxSteps = config.maxSteps ?? DEFAULT_MAX_STEPS
  const breaker = { ...DEFAULT_BREAKER, ...(breakerSettings ?? {}) }
  const questions = opts.interactive ? createQuestionBroker({ dispatch: store.dispatch }) : undefined
  const definitions = cachedDefinitions()
  const mcpOptions = {
    runtime: mcp,
    tools: [createListMcpResourcesTool(mcp), createReadMcpResourceTool(mcp)],
    // Headless: every server gets its whole start-up time, since the run has only its first request.
    startupWaitMs: opts.interactive ? MCP_INTERACTIVE_WAIT_MS : mcpStartup + 1000,
  }
  const subagents = agents.manager(
    {
      mainStore: store,
      provider,
      gate: baseGate,
      workspace,
      sessionId: id,
      spill,
      capabilities,
      profile: profiles,
      context: contextSettings,
      defaultMaxTurns: maxSteps,
      breaker,
      ...(questions ? { questions } : {}),
      checkpoints,
      definitions,
      processes,
      ...(sandbox ? { sandbox } : {}),
      mcp: mcpOptions,
      ...(hooks
        ? {
            hooks,
            subagentStop: async (input, signal) =>
              (hooks.has('SubagentStop')
                ? await runtime.sessionHooks?.subagentStop(input, signal)
                : null) ?? {
                continueWith: null,
              },
          }
        : {}),
      now: Date.now,
    },
    directory,
    config.settings.agents?.maxParallel ?? DEFAULT_MAX_PARALLEL,
  )
  const runtime: Runtime = new Runtime({
    store,
    provider,
    tools: agents.main.tools,
    gate,
    workspace,
    sessionId: id,
    files: createFileStateTracker(),
    spill,
    systemPrompt: agents.main.systemPrompt,
    capabilities,
    profile: profiles,
    context: contextSettings,
    maxSteps,
    breaker,
    interactive: opts.interactive,
    tasks: directory,
    processes,
    ...(sandbox ? { sandbox } : {}),
    subagents: subagents.launcher(),
    takeAnnouncements: () => subagents.takeAnnouncements(),
    agents: agents.control(subagents),
    definitions,
    ...(questions ? { questions } : {}),
    ...(trust ? { trust } : {}),
    sessions: () => summarizeSessions(projectSessions),
    checkpoints,
    ...(hooks ? { hooks } : {}),
    mcp: mcpOptions,
    ...(opts.exportMarkdown ? { exportMarkdown: () => opts.exportMarkdown?.(store.getState()) ?? '' } : {}),
    exportDir: join(paths.stateDir, 'exports'),
    listModels: () => listEndpointModels(endpoint, store.getState().session.model),
  })
  if (restored) closeDanglingCalls(store)
  void runtime.startSession(restored ? 'resume' : 'startup')

  return {
    id,
    store,
    runtime,
    tasks,
    processes,
    log,
    profile,
    branch,
    warnings,
    ...(trust ? { trust } : {}),
    ...(sandbox ? { sandbox } : {}),
    preload: () => provider.preload(),
    startMcp() {
      mcp.start().catch((err: unknown) =>
        store.dispatch({
          type: 'notice/added',
          id: `mcp-start-${createdAt.toString(36)}`,
          level: 'error',
          text: `MCP servers could not start: ${String(err)}`,
        }),
      )
    },
    async close() {
      agents.registry.dispose()
      await runtime.shutdown()
      await Promise.all([tasks.dispose(), mcp.close()])
      // Nothing should be left by now; whatever is (a group that ignored its stop) goes with the session.
      processes.killAllSync()
      log.close()
      await outputsLease.release()
    },
  }
}

/**
 * The Bash sandbox the configuration asks for, reporting to the store: the status bar's badge, and one
 * notice when it cannot run (every command then asks, unsandboxed).
 */
function createSandbox(
  store: Store,
  projectRoots: string[],
  outputs: string,
  config: ResolvedConfig,
): BashSandbox {
  const { network } = config.sandbox
  store.dispatch({ type: 'sandbox/changed', sandbox: { status: 'checking', network } })
  return createLazyBashSandbox({
    network,
    projectRoots,
    scratchRoots: [outputs],
    onStatus: (status) => {
      store.dispatch({ type: 'sandbox/changed', sandbox: { status: status.kind, network } })
      if (status.kind === 'unavailable') {
        store.dispatch({
          type: 'notice/added',
          id: `sandbox-${Date.now()}`,
          level: 'warn',
          text: status.notice,
        })
      }
    },
  })
}

/**
 * A crash can leave an assistant message whose tool calls never got results. Answer them now (and log
 * it) so the resumed history keeps the pairing rule.
 */
function closeDanglingCalls(store: Store): void {
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
