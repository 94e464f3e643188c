import { homedir } from 'node:os'
import { join, relative } from 'node:path'
import { Runtime } from '../../agent/runtime/runtime.js'
import type { ProjectTrustSetup } from '../../config/project-trust.js'
import { DEFAULT_BREAKER } from '../../agent/turn/circuit-breaker.js'
import { profileGate } from '../../agent/subagents/child-gate.js'
import { cachedDefinitions } from '../../agent/prompt/tool-definitions.js'
import { DEFAULT_MAX_STEPS } from '../../config/resolve-config.js'
import { readsBareJson } from '../../provider/model-profiles.js'
import { outputsDir, sessionsDir } from '../../config/app-paths.js'
import { createConsentBroker } from '../../permissions/broker.js'
import { createQuestionBroker } from '../../permissions/question-broker.js'
import { realPathOf } from '../../permissions/real-path.js'
import { resumedMode } from '../../permissions/modes.js'
import { resumedTheme } from './resumed-theme.js'
import { openOutputs, sweepOutputs } from '../../session/outputs-lifecycle.js'
import { sessionPath, summarizeSessions } from '../../session/session-store.js'
import { createProcessGroups } from '../../tasks/process-groups.js'
import { createListMcpResourcesTool } from '../../tools/list-mcp-resources.js'
import { createReadMcpResourceTool } from '../../tools/read-mcp-resource.js'
import { createSessionMcp, MCP_STARTUP_TIMEOUT_SECONDS } from './mcp.js'
import { mcpChangeCommands } from './mcp-changes.js'
import { createFileStateTracker } from '../../tools/file-state.js'
import { unknownToolNames } from '../../agent/toolset/mask.js'
import { createSkillTool } from '../../tools/skill.js'
import { createOutputSpiller } from '../../tools/spill.js'
import { resolveAdditionalDirs } from './additional-dirs.js'
import { readGitBranch } from './git-branch.js'
import { createPermissionGate, type RuntimeGate } from '../../permissions/gate.js'
import { createSessionHookService } from './hooks.js'
import { loadPluginsIfAny, pluginCommands } from '../../plugins/session-plugins-entry.js'
import { endpointCommands } from '../list-models.js'
import { DEFAULT_MAX_PARALLEL, setUpAgents } from './subagents.js'
import { closeDanglingCalls, openSessionStore, resumeSession } from './resume.js'
import { boundaryReaders } from './instruction-readers.js'
import { announceSkills, loadSessionSkills, skillCommands, skillListing } from './skills.js'
import { createSessionServices, sessionCommands } from './services.js'
import { openBrowser } from '../open-browser.js'
import { createSessionProvenance } from './provenance.js'
import { createSandbox } from './sandbox.js'
import {
  contextSettingsOf,
  profileResolver,
  reapOrphans,
  saveAlwaysRuleOf,
  sessionCheckpoints,
  sessionCoreTools,
  sessionPromptParts,
  sessionProvider,
  sessionTrust,
  sessionTasks,
} from './from-config.js'
import type { Session, SessionOptions } from './types.js'
import { pricesForModel } from '../../provider/prices.js'
import { claudePlaces } from './claude-places.js'
import { sessionCodeSearch } from './code-search.js'

export type { ProjectTrustSetup }
export type { Session, SessionOptions } from './types.js'

/** The TUI's first request waits this long for MCP servers still starting; later ones are announced. */
const MCP_INTERACTIVE_WAIT_MS = 5_000

/** Builds the whole service graph of one session: store ← runtime → provider, tools, permissions, tasks. */
export async function createSession(opts: SessionOptions): Promise<Session> {
  const { config, paths, endpoint, workspace } = opts
  const home = homedir()
  const warnings: string[] = [...config.warnings]
  const projectSessions = sessionsDir(paths, workspace)
  // Checked before anything is written: a bad --add-dir ends the start with a usage error.
  const additionalDirs = await resolveAdditionalDirs(config.additionalDirectories, workspace, home, warnings)

  const resumed = opts.resume
    ? await resumeSession(opts.resume, { paths, workspace, projectSessions, endpoint, mode: config.mode })
    : null
  const restored = resumed?.restored ?? null
  if (resumed) warnings.push(...resumed.warnings)
  let lease = resumed?.lease ?? null
  const resumedIn = restored
    ? resumedMode({
        left: restored.state.mode,
        launch: { value: config.mode, origin: config.origins.mode },
        interactive: opts.interactive,
      })
    : null
  if (resumedIn?.notice) warnings.push(resumedIn.notice)
  // Only the TUI has a theme; a headless run neither shows nor changes one.
  const themeIn =
    restored && opts.interactive
      ? resumedTheme({ left: restored.state.ui.theme, setting: config.settings.theme })
      : null
  if (themeIn?.notice) warnings.push(themeIn.notice)

  const observers = [...(opts.observers ?? [])] // the nested CLAUDE.md reader joins them below
  const { id, logPath, createdAt, log, store } = openSessionStore({
    restored,
    logPath: (newId) => sessionPath(projectSessions, newId),
    workspace,
    endpoint,
    mode: resumedIn?.mode ?? config.mode,
    launchMode: config.mode,
    observers,
    warnings,
  })

  const outputs = outputsDir(paths, id)
  lease ??= await openOutputs(outputs)
  const outputsLease = lease
  // Off the start-up path: another session's old outputs can wait for the event loop to be free.
  setTimeout(() => void sweepOutputs(paths.outputsRoot, { skip: id }).catch(() => undefined), 1000).unref()
  const processes = createProcessGroups({ registry: await reapOrphans(paths, warnings) })
  // The shell is looked up when a job starts: `programs` (below) finds it outside the workspace.
  const { tasks, directory } = sessionTasks(outputs, createdAt, processes, store, {
    shell: () => programs.shell(),
    find: (name) => programs.find(name),
  })

  const sandbox =
    config.sandbox.mode === 'off'
      ? undefined
      : createSandbox(store, [workspace, ...additionalDirs], outputs, config, paths)

  const setup = opts.projectTrust
  const localSettingsLabel = relative(workspace, config.localSettingsPath) || config.localSettingsPath
  // Paths are judged after resolving symlinks, so the roots they are compared with are real paths too.
  const [realWorkspace, realOutputs, ...appDirs] = (await Promise.all(
    [workspace, outputs, paths.configDir, paths.stateDir, paths.dataDir].map((p) => realPathOf(p)),
  )) as [string, string, string, string, string]
  // Claude Code's places beside agent-tui's own (docs/coming-from-claude-code.md).
  const places = await claudePlaces({ config, home, workspace, store, setup })
  const { claude, claudeUserDirs, discovery } = places
  const dirs = { workspace: realWorkspace, home, additionalDirs, appDirs, claudeUserDirs }
  const instructions = boundaryReaders({ ...dirs, config })
  // A grant re-judges the other pending requests with the policy (it needs the gate, made below).
  let gateRef: RuntimeGate | undefined
  const broker = createConsentBroker({
    dispatch: store.dispatch,
    policy: opts.interactive ? 'interactive' : 'deny-all',
    onAlways: (rule) =>
      saveAlwaysRuleOf(config, paths, workspace, rule, opts.projectTrust?.trust.localIsYours() ?? true),
    alwaysSource: localSettingsLabel,
    timeoutSeconds: config.consentTimeoutSeconds,
    recheck: (call) => gateRef?.allowsNow(call) ?? false,
    workspace,
    home,
  })
  // git, bash, ripgrep by absolute path outside the workspace; the window of unasked activity; the check
  // before hooks and MCP servers start.
  const provenance = createSessionProvenance({
    stateDir: paths.stateDir,
    sessionId: id,
    workspace: realWorkspace,
    roots: [realWorkspace, ...additionalDirs, realOutputs],
    home,
    mode: () => store.getState().mode,
    interactive: opts.interactive,
    broker,
  })
  const { programs } = provenance
  const spill = createOutputSpiller(outputs)
  const plugins = await loadPluginsIfAny(paths, config.settings) // the user's enabled plugins (docs/plugins.md)
  const skillSources = { paths, workspace, home, read: instructions, plugins: plugins.plugins }
  const skillOptions = {
    ...skillSources,
    ...places.layers('skills'),
    ...(setup ? { trust: setup.trust } : {}),
  }
  const skills = await loadSessionSkills(skillOptions)
  warnings.push(...plugins.warnings, ...skills.problems)
  // Read without asking: the session's spilled outputs and each skill's folder (a live list: skills come
  // and go with the folder's trust).
  const trustedReadDirs = [realOutputs, ...skills.dirs()]
  const baseGate = createPermissionGate({
    store,
    rules: config.rules,
    broker,
    workspace: realWorkspace,
    home,
    additionalDirs,
    trustedReadDirs,
    appDirs,
    interactive: opts.interactive,
    savedTo: localSettingsLabel,
    // `provenance` is set up below, before any call is judged.
    gitProgram: () => provenance.programs.find('git'),
  })
  gateRef = baseGate
  const profiles = profileResolver(config, endpoint)
  const contextSettings = contextSettingsOf(config)
  const provider = sessionProvider(config, endpoint)
  const profile = () => profiles(store.getState().session.model)
  const branch = readGitBranch(workspace)
  // Chosen once, by the model the session starts with: the prompt and definitions stay byte-stable.
  const promptVariant = profiles(endpoint.model).promptVariant
  const prompts = await sessionPromptParts(config, {
    variant: promptVariant,
    workspace,
    model: endpoint.model,
    createdAt,
    masking: contextSettings.masking,
    ...(branch ? { branch } : {}),
    additionalDirs,
    ...(sandbox ? { sandbox: { network: sandbox.network } } : {}),
    read: instructions.project,
    report: (text) => warnings.push(text),
    changedUnasked: provenance.changedUnasked,
    ...places.prompt(instructions.user),
  })
  const nested = places.follow(instructions.project, () => runtime.currentDirectory())
  observers.push(nested.observe)
  const coreTools = sessionCoreTools({
    config,
    paths,
    provider,
    profiles,
    dispatch: store.dispatch,
    createdAt,
    model: store.getState().session.model,
    memory: instructions.project,
    ...(opts.applyPatch !== undefined ? { applyPatch: opts.applyPatch } : {}),
  })
  const codeSearch = await sessionCodeSearch({
    config,
    endpoint,
    paths,
    workspace,
    realWorkspace,
    additionalDirs,
    appDirs,
    gate: baseGate,
    directory,
    store,
    programs,
    createdAt,
    warnings,
    ...(opts.holdYoungGeneration ? { holdYoungGeneration: opts.holdYoungGeneration } : {}),
  })
  if (codeSearch) coreTools.push(codeSearch.tool)
  if (skills.offered.length > 0 || skills.more) {
    coreTools.push(createSkillTool({ ...skills, read: instructions.skill }))
  }
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
    vet: provenance.vetServer,
    ...(places.userState ? { userState: places.userState } : {}),
    pluginSources: plugins.mcpSources,
    changes: () => store.getState().mcp.changes,
  })
  const mcpStartup = (config.settings.mcp?.startupTimeoutSeconds ?? MCP_STARTUP_TIMEOUT_SECONDS) * 1000
  const agents = await setUpAgents({
    tools: coreTools,
    prompts,
    configDir: paths.configDir,
    workspace,
    home,
    read: instructions,
    plugins: plugins.plugins,
    ...(opts.projectTrust ? { trust: opts.projectTrust.trust } : {}),
    ...(opts.agent ? { requested: opts.agent } : {}),
    ...(restored ? { resumed: restored.state.agent } : {}),
    ...places.layers('agents'),
  })
  warnings.push(...agents.warnings)
  // A read-only main agent (`--agent explore`) is held to reading in the executor, like a subagent.
  const gate = profileGate(baseGate, () => {
    const profile = agents.registry.get(store.getState().agent)
    return { readOnly: profile?.readOnly === true, name: profile?.name ?? '' }
  })
  if (store.getState().agent !== agents.main.profile.name)
    store.dispatch({ type: 'agent/changed', agent: agents.main.profile.name })
  const checkpoints =
    opts.checkpoints === false
      ? undefined
      : sessionCheckpoints({ workspace, paths, dispatch: store.dispatch, createdAt, programs })
  const breakerSettings = config.settings.circuitBreaker
  const trust = sessionTrust(setup, {
    interactive: opts.interactive,
    store,
    home,
    // A trust answer replaces the rules of the gate and of the instruction files' read boundary.
    rulesHolders: [baseGate, instructions],
    setMode: (mode) => runtime.setMode(mode),
  })
  warnings.push(...config.hooks.warnings)
  const hooks = createSessionHookService({
    config,
    ...(setup ? { projectTrust: setup } : {}),
    interactive: opts.interactive,
    workspace,
    sessionId: id,
    pluginHooks: plugins.hooks,
    logPath,
    store,
    mode: () => store.getState().mode,
    cwd: () => runtime.currentDirectory(),
    // Every exit path kills tracked groups, and the next start reaps them after a crash.
    owner: processes,
    shell: programs.shell(),
    guard: provenance.hookGuard,
  })
  const capabilities = (model: string) => {
    const p = profiles(model)
    return {
      supportsVision: p.supportsVision,
      supportsAllowedTools: p.supportsAllowedTools,
      ...(p.textToolCalls ? { textToolCalls: { bareJson: readsBareJson(p.toolCallFormat) } } : {}),
    }
  }
  const maxSteps = config.maxSteps ?? DEFAULT_MAX_STEPS
  const breaker = { ...DEFAULT_BREAKER, ...(breakerSettings ?? {}) }
  const questions = opts.interactive ? createQuestionBroker({ dispatch: store.dispatch }) : undefined
  const definitions = cachedDefinitions(promptVariant)
  // Which tools the model is offered and how their definitions follow the window (docs/tools.md#tool-masks).
  const toolOptions = {
    ...(config.tools ? { toolList: config.tools } : {}),
    ...(config.settings.deferTools ? { deferTools: config.settings.deferTools } : {}),
  }
  const mcpOptions = {
    runtime: mcp,
    tools: [createListMcpResourcesTool(mcp), createReadMcpResourceTool(mcp)],
    // Headless: every server gets its whole start-up time, since the run has only its first request.
    startupWaitMs: opts.interactive ? MCP_INTERACTIVE_WAIT_MS : mcpStartup + 1000,
  }
  if (config.tools)
    warnings.push(
      ...unknownToolNames(
        config.tools,
        [...agents.main.tools, ...mcpOptions.tools].map((t) => t.name),
      ),
    )
  const subagents = agents.manager(
    {
      mainStore: store,
      ...(codeSearch ? { onWrite: codeSearch.noteWritten } : {}),
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
      ...(checkpoints ? { checkpoints } : {}),
      definitions,
      processes,
      ...(sandbox ? { sandbox } : {}),
      programs,
      unasked: provenance.unasked,
      mcp: mcpOptions,
      ...toolOptions,
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
  const files = createFileStateTracker(codeSearch ? { onWrite: codeSearch.noteWritten } : {})
  const agentsControl = agents.control(subagents)
  const runtime: Runtime = new Runtime({
    store,
    provider,
    tools: agents.main.tools,
    gate,
    workspace,
    sessionId: id,
    files,
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
    programs,
    unasked: provenance.unasked,
    subagents: subagents.launcher(),
    takeAnnouncements: () => [...subagents.takeAnnouncements(), ...nested.take()],
    announcementsReady: nested.ready,
    agents: agentsControl,
    definitions,
    ...(questions ? { questions } : {}),
    ...(checkpoints ? { checkpoints } : {}),
    ...(hooks ? { hooks } : {}),
    mcp: mcpOptions,
    ...toolOptions,
  })
  const services = createSessionServices({
    workspace,
    readInstructions: instructions.project,
    sessionId: id,
    logPath,
    cwd: () => runtime.currentDirectory(),
    supportsVision: () => capabilities(store.getState().session.model).supportsVision,
    sessions: () => summarizeSessions(projectSessions, workspace),
    ...(opts.exportMarkdown ? { exportMarkdown: () => opts.exportMarkdown?.(store.getState()) ?? '' } : {}),
    exportDir: join(paths.stateDir, 'exports'),
    userSettings: paths,
    store,
    gate,
    ...(questions ? { questions } : {}),
    ...(trust ? { trust } : {}),
    tasks: directory,
    ...(opts.interactive ? { openUrl: openBrowser } : {}),
    ...(hooks ? { hooks } : {}),
    ...(checkpoints ? { checkpoints } : {}),
    files,
    busy: () => runtime.isBusy(),
    newId: (prefix) => runtime.newId(prefix),
    agents: agentsControl,
    skills: () => skillListing(skills),
    ...endpointCommands(endpoint, config.headers, () => store.getState().session.model),
    ...pluginCommands(paths, plugins.plugins),
    mcp,
    mcpChanges: mcpChangeCommands({ store, mcp, paths }),
    status: () => discovery.report(),
  })
  if (restored) closeDanglingCalls(store)
  const stopFollowingSkills = announceSkills(skills, { store, runtime, trustedReadDirs })
  void runtime.startSession(restored ? 'resume' : 'startup')

  let stopStatusLine: Promise<() => Promise<void>> | undefined
  return {
    id,
    store,
    runtime,
    commands: sessionCommands(runtime, services),
    tasks,
    processes,
    log,
    profile,
    branch,
    warnings,
    ...(themeIn?.theme ? { theme: themeIn.theme } : {}),
    programs,
    instructions,
    claude,
    discovery,
    skills: skillCommands(skills, instructions.skill),
    plugins: plugins.plugins,
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
    startCodeSearch: () => codeSearch?.start(),
    startStatusLine() {
      const settings = config.settings.statusLine
      if (!settings || stopStatusLine) return
      const prices = pricesForModel(store.getState().session.model)
      stopStatusLine = import('./status-line.js').then(({ startSessionStatusLine }) =>
        startSessionStatusLine({
          settings,
          store,
          workspace,
          cwd: () => runtime.currentDirectory(),
          contextLimit: () => profile().contextLimit,
          ...(prices ? { prices } : {}),
          owner: processes,
          shell: programs.shell(),
          vet: provenance.vetStatusLine,
        }),
      )
    },
    async close() {
      await (await stopStatusLine)?.()
      agents.registry.dispose()
      stopFollowingSkills()
      await runtime.shutdown()
      await Promise.all([tasks.dispose(), mcp.close(), codeSearch?.close()])
      // Nothing should be left by now; whatever is (a group that ignored its stop) goes with the session.
      processes.killAllSync()
      provenance.close()
      log.close()
      await outputsLease.release()
    },
  }
}
