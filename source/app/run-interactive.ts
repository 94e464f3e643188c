import { homedir } from 'node:os'
import type { ResolvedEndpoint } from '../config/endpoint.js'
import type { ParsedArgs } from '../config/flags.js'
import { type AppPaths, sessionsDir } from '../config/app-paths.js'
import { tildePath } from '../config/project-trust.js'
import { credentialsPath, readStoredKey } from '../config/credentials.js'
import type { KeyChoice } from '../config/save-endpoint.js'
import type { ResolvedConfig } from '../config/resolve-config.js'
import type { EditorMode } from '../store/state.js'
import type { TuiExit } from '../ui/run-tui.js'
import type { BackgroundProbe } from '../ui/terminal/background-query.js'
import type { EarlyFrame } from '../ui/terminal/early-frame.js'
import type { ProcessTuning } from '../engine/tuning.js'
import { pricesForModel } from '../provider/prices.js'
import { summarizeSessions } from '../session/session-store.js'
import { installExitCleanup } from '../tasks/exit-hooks.js'
import { BUILTIN_COMMANDS } from '../ui/commands/builtin-commands.js'
import { createCommandTable } from '../ui/commands/command-table.js'
import { sendFirstPrompt } from './first-prompt.js'
import { createSession, type ProjectTrustSetup } from './session/create-session.js'
import type { DebugLog } from './debug-log.js'
import { resumeHint } from './exit-message.js'
import { cleanedWriter } from '../util/display-text.js'

export interface InteractiveOptions {
  /** The prompt's editing mode a session opened with /resume or after /login starts in (what /vim left). */
  editorMode?: EditorMode
  args: ParsedArgs
  config: ResolvedConfig
  paths: AppPaths
  workspace: string
  endpoint: ResolvedEndpoint
  /** Lists the endpoint's models (for the context length) when that was left until after the first frame. */
  describeEndpoint?: () => Promise<ResolvedEndpoint>
  resume?: { kind: 'continue' } | { kind: 'id'; id: string }
  debug?: DebugLog
  /** The first frame, already on screen while the UI loaded; the TUI takes it over. */
  earlyFrame?: EarlyFrame
  /** The process tuning started at launch (told when modules have loaded, follows each session). */
  tuning?: ProcessTuning
  projectTrust?: ProjectTrustSetup
  /** Said in the session the setup form led to: what was set up, and where it was saved. */
  setupNotice?: string
  /** The `auto` theme's question to the terminal, asked at the early frame (ui/terminal/background-query.ts). */
  background?: BackgroundProbe
}

const PRELOAD_DELAY_MS = 300

/** The full-screen session (or the setup form when no endpoint was found). Returns the exit status. */
export async function runInteractive(opts: InteractiveOptions): Promise<number> {
  const ui = await import('../ui/run-tui.js')
  const { config } = opts
  const found = opts.endpoint
  const foundModel = found.kind === 'none' ? undefined : (config.model ?? found.model)
  // Anything but the session itself draws its own screen from scratch.
  if (!foundModel || opts.args.resume === true) opts.earlyFrame?.abandon()
  let endpoint: SessionEndpoint
  let describe = opts.describeEndpoint
  let setupNotice: string | undefined
  if (found.kind !== 'none' && foundModel) endpoint = { ...found, model: foundModel }
  else {
    // No endpoint (or one without a model): set one up in place, then go on into the session.
    const current = found.kind === 'none' ? undefined : { baseUrl: found.baseUrl }
    const chosen = await setUp(opts, ui, current)
    if (!chosen) return 2
    endpoint = chosen.endpoint
    describe = chosen.describe
    setupNotice = chosen.notice
  }
  let resume = opts.resume
  let editorMode: EditorMode | undefined
  if (opts.args.resume === true) {
    const sessions = await summarizeSessions(sessionsDir(opts.paths, opts.workspace), opts.workspace)
    if (sessions.length === 0) {
      cleanedWriter(process.stderr).write(
        `agent-tui: no sessions to resume in ${opts.workspace}; start one without --resume\n`,
      )
      return 1
    }
    const picked = await ui.runSessionPicker(sessions, { theme: await standaloneTheme(opts) })
    if (picked === null) return 0
    resume = { kind: 'id', id: picked }
  }
  // `/resume` leaves one session for another, `/login` leaves it for the setup form and comes back to it
  // with the endpoint set up there: each runs in turn until the user exits. Only the first takes over the
  // early frame and gets the prompt given on the command line.
  try {
    for (let first = true; ; first = false) {
      const sessionOpts = {
        ...opts,
        ...(editorMode ? { editorMode } : {}),
        ...(describe ? { describeEndpoint: describe } : {}),
        ...(setupNotice ? { setupNotice } : {}),
      }
      setupNotice = undefined
      const exit = await runSession(sessionOpts, ui, endpoint, resume, first)
      if (exit.editorMode) editorMode = exit.editorMode
      if (exit.setup) {
        const chosen = await setUp(opts, ui, {
          baseUrl: endpoint.baseUrl,
          model: endpoint.model,
          key: currentKey(opts, endpoint.baseUrl),
        })
        setupNotice = chosen?.notice
        if (chosen) {
          endpoint = chosen.endpoint
          describe = chosen.describe
        }
        // Back to the same conversation (one with nothing in it yet has no file to reopen).
        resume = exit.sessionId ? { kind: 'id', id: exit.sessionId } : undefined
        continue
      }
      if (exit.resume === undefined) {
        // The terminal is restored by now: say how to come back (a closed terminal has no one to read it).
        if (exit.hint && process.stdout.isTTY && !process.stdout.destroyed) process.stdout.write(exit.hint)
        return exit.status
      }
      resume = { kind: 'id', id: exit.resume }
    }
  } finally {
    if (opts.debug) {
      opts.debug.close()
      process.stderr.write(`agent-tui: debug log written to ${opts.debug.path}\n`)
    }
  }
}

type SessionEndpoint = Exclude<ResolvedEndpoint, { kind: 'none' }> & { model: string }

/**
 * The key in use, as /login's form shows it: the variable it is read from, or the one the form stored for
 * this URL. A key given with --api-key is not offered for saving.
 */
function currentKey(opts: InteractiveOptions, baseUrl: string): KeyChoice {
  if (opts.config.apiKeyEnv) return { kind: 'env', name: opts.config.apiKeyEnv }
  const stored = readStoredKey(opts.paths, baseUrl).key
  return stored ? { kind: 'stored', key: stored } : { kind: 'none' }
}

/**
 * The setup form (docs/configuration.md#setting-up-in-agent-tui): the endpoint it tested, with a late
 * listing for its context length; null when the user left it.
 */
async function setUp(
  opts: InteractiveOptions,
  ui: TuiModule,
  current: { baseUrl: string; model?: string; key?: KeyChoice } | undefined,
): Promise<{ endpoint: SessionEndpoint; describe: () => Promise<ResolvedEndpoint>; notice: string } | null> {
  const home = process.env.HOME || homedir()
  const { createSetupServices, keyOfChoice } = await import('./setup-services.js')
  const { headersFor, withHeaders } = await import('../config/headers.js')
  const services = createSetupServices({
    paths: opts.paths,
    env: process.env,
    // Only to the origin they were configured for: /login to another endpoint sends none.
    headersFor: (url) => headersFor(opts.config.headers, url),
  })
  const outcome = await ui.runSetupForm(
    {
      start: current ? { current } : {},
      services,
      credentialsFile: tildePath(credentialsPath(opts.paths), home),
      settingsFile: tildePath(opts.paths.userSettingsFile, home),
      leaveLabel: current?.model ? 'cancel' : 'exit',
    },
    { theme: await standaloneTheme(opts) },
  )
  if (!outcome) return null
  const { baseUrl, model } = outcome.choice
  const apiKey = keyOfChoice(outcome.choice.key, process.env)
  const endpoint: SessionEndpoint = {
    kind: 'configured',
    baseUrl,
    model,
    models: [],
    ...(apiKey ? { apiKey } : {}),
  }
  const describe = async () => {
    const { createNodeFetch } = await import('../provider/node-fetch.js')
    const { resolveEndpoint } = await import('../config/endpoint.js')
    return resolveEndpoint({
      baseUrl,
      model,
      ...(apiKey ? { apiKey } : {}),
      ...withHeaders(headersFor(opts.config.headers, baseUrl)),
      fetchImpl: createNodeFetch(),
    })
  }
  const where = outcome.saved
    ? `saved to ${tildePath(opts.paths.userSettingsFile, home)}${outcome.choice.key.kind === 'stored' ? ` (the key to ${tildePath(credentialsPath(opts.paths), home)})` : ''}`
    : 'for this session only (not saved)'
  const notice = `${outcome.note ?? `${model} at ${baseUrl}`} — ${where}; /login changes it, /doctor checks it`
  return { endpoint, describe, notice }
}

type TuiModule = typeof import('../ui/run-tui.js')

/** The theme of the screens before a session (setup form, session picker): the setting, or COLORFGBG for auto. */
async function standaloneTheme(opts: InteractiveOptions) {
  const { PALETTES, themeNameFor } = await import('../ui/components/palette.js')
  const { createTheme } = await import('../ui/components/theme.js')
  const name = themeNameFor(opts.config.settings.theme ?? 'auto', opts.background?.background())
  return createTheme({ palette: PALETTES[name] })
}

/** One session on screen, from its creation to its close. */
async function runSession(
  opts: InteractiveOptions,
  ui: TuiModule,
  endpoint: SessionEndpoint,
  resume: InteractiveOptions['resume'],
  first: boolean,
): Promise<TuiExit & { hint?: string; sessionId?: string }> {
  // A session opened with /resume after the folder was trusted (or distrusted) starts with that answer.
  const trust = opts.projectTrust
  const config = trust && !first ? trust.configFor(trust.trust.isTrusted()) : opts.config
  const { model } = endpoint
  const earlyFrame = first ? opts.earlyFrame : undefined
  const { transcriptToMarkdown } = await import('../ui/panes/transcript/export.js')
  // The session reads contextLength whenever it resolves a profile, so a late listing can fill it in.
  const sessionEndpoint: {
    baseUrl: string
    model: string
    apiKey?: string
    contextLength?: number
    contextSource?: string
  } = {
    baseUrl: endpoint.baseUrl,
    model,
    ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
    ...(endpoint.contextLength ? { contextLength: endpoint.contextLength } : {}),
    ...(endpoint.contextSource ? { contextSource: endpoint.contextSource } : {}),
  }
  // The session reads the agent and skill files, the command table the command files: many with a Claude
  // Code collection installed, whose garbage a collection takes back once they are in.
  const loaded = opts.tuning?.aroundLoading()
  const session = await createSession({
    config,
    paths: opts.paths,
    workspace: opts.workspace,
    interactive: true,
    ...(opts.tuning ? { holdYoungGeneration: opts.tuning.holdYoungGeneration } : {}),
    endpoint: sessionEndpoint,
    ...(resume ? { resume } : {}),
    // `--agent` is for the session the command line starts; one opened with /resume keeps its own.
    ...(first && opts.args.agent ? { agent: opts.args.agent } : {}),
    observers: opts.debug ? [(action) => opts.debug?.write(action)] : [],
    exportMarkdown: (state) => transcriptToMarkdown(state),
    ...(opts.projectTrust ? { projectTrust: opts.projectTrust } : {}),
  })
  if (opts.setupNotice)
    session.store.dispatch({ type: 'notice/added', id: 'setup-done', level: 'info', text: opts.setupNotice })
  for (const warning of session.warnings) {
    session.store.dispatch({
      type: 'notice/added',
      id: `warn-${warning.length}-${Math.random()}`,
      level: 'warn',
      text: warning,
    })
  }
  // What was left until after the first frame (the provider module, the endpoint's model listing) waits
  // a little longer: loading it blocks the event loop for ~100 ms, and the first keys (often typed at the
  // early frame, replayed now) should be answered first. The first request loads it anyway.
  const settled = new Promise((resolve) => setTimeout(resolve, PRELOAD_DELAY_MS))
  const afterFirstFrame = settled.then(() => session.preload())
  // The sandbox's one-time check (a trial sandboxed command) too: its badge and notice follow.
  void settled.then(() => session.sandbox?.status())
  // The trust prompt too: keys typed at the early frame have reached the prompt by then, and the dialog
  // waits for an empty prompt, so a message being typed is never read as an answer.
  void settled.then(() =>
    session.trust?.start().catch((err: unknown) =>
      session.store.dispatch({
        type: 'notice/added',
        id: `trust-error-${Date.now()}`,
        level: 'error',
        text: `project trust: ${String(err)}`,
      }),
    ),
  )
  // Ctrl+C is a key in raw mode; a SIGINT comes from elsewhere (kill -INT) and ends the session like SIGTERM.
  const uninstall = installExitCleanup(session.processes, {
    signals: ['SIGINT', 'SIGTERM', 'SIGHUP'],
    also: [() => session.log.close()],
  })
  // MCP servers start once the provider has loaded: loading the MCP client blocks the event loop too.
  void afterFirstFrame.then(() => session.startMcp())
  void afterFirstFrame.then(() => session.startStatusLine())
  void afterFirstFrame.then(() => session.startCodeSearch())
  // The provider is the last module start-up loads.
  void afterFirstFrame.then(
    () => opts.tuning?.startupLoaded(),
    () => undefined,
  )
  // The user's and the project's commands: read once the first keys are answered, shown when loaded.
  const commandTable = createCommandTable(BUILTIN_COMMANDS)
  let commandNotices = 0
  const userCommands = settled.then(async () =>
    (await import('./session/load-commands.js')).installUserCommands({
      table: commandTable,
      paths: opts.paths,
      workspace: opts.workspace,
      home: process.env.HOME || homedir(),
      read: session.instructions,
      skills: session.skills,
      plugins: session.plugins,
      ...(trust ? { trust: trust.trust } : {}),
      claude: session.claude,
      record: (entries) => session.discovery.set('commands', entries),
      report: (text, level) =>
        session.store.dispatch({ type: 'notice/added', id: `command-file-${++commandNotices}`, level, text }),
    }),
  )
  // Loaded or failed, start-up's reading is over.
  userCommands.then(
    () => loaded?.(),
    () => loaded?.(),
  )
  const stopTuning = opts.tuning?.followSession(session.store) ?? (() => {})
  try {
    if (config.prompt && first) sendFirstPrompt(config.prompt, session, commandTable, userCommands)
    const branch = session.branch
    // Approximate list prices for well-known hosted models; undefined (tokens only) for the rest.
    const prices = pricesForModel(model)
    const describe = opts.describeEndpoint
    const details = describe ? afterFirstFrame.then(describe) : undefined
    const contextLimitLater = details?.then((described) => {
      if (described.kind === 'none' || !described.contextLength) return undefined
      sessionEndpoint.contextLength = described.contextLength
      if (described.contextSource) sessionEndpoint.contextSource = described.contextSource
      return session.profile().contextLimit
    })
    // The context budget's start-up warning, once the window is known (the first request checks again,
    // with the MCP servers' tools).
    void (contextLimitLater ?? afterFirstFrame)
      .then(() => session.runtime.context.checkDefinitions())
      .catch(() => undefined)
    const exit = await ui.runTui({
      store: session.store,
      commands: session.commands,
      commandTable,
      findProgram: (name) => session.programs.find(name),
      contextLimit: session.profile().contextLimit,
      ...(contextLimitLater ? { contextLimitLater } : {}),
      ...(config.settings.keybindings ? { keybindings: config.settings.keybindings } : {}),
      ...(config.settings.notifications ? { notifications: config.settings.notifications } : {}),
      ...((opts.editorMode ?? config.settings.editorMode)
        ? { editorMode: opts.editorMode ?? config.settings.editorMode }
        : {}),
      ...(branch ? { branch } : {}),
      ...(prices ? { prices } : {}),
      printOnExit: opts.args.printOnExit,
      ...(earlyFrame ? { earlyFrame } : {}),
      ...((session.theme ?? config.settings.theme)
        ? { themeSetting: session.theme ?? config.settings.theme }
        : {}),
      ...(opts.background ? { background: opts.background } : {}),
      saveTheme: async (theme) => {
        const { saveUserSetting } = await import('../config/save-setting.js')
        return tildePath(await saveUserSetting(opts.paths, 'theme', theme), process.env.HOME || homedir())
      },
      // A turn started from the command line warms the same code.
      warmUp: first && !config.prompt,
      doctor: async () => {
        const { doctorLines } = await import('./doctor/run-doctor.js')
        const model = session.store.getState().session.model
        return doctorLines(opts.args, {
          workspace: opts.workspace,
          // The info overlay's frame takes a few columns.
          width: (process.stdout.columns || 80) - 4,
          endpoint: {
            baseUrl: endpoint.baseUrl,
            model,
            ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
          },
        })
      },
    })
    const state = session.store.getState()
    const hint = resumeHint(state)
    // A session with a message has a file: /login comes back to it.
    const sessionId = exit.setup && state.messages.length > 0 ? state.session.id : undefined
    return { ...exit, ...(hint ? { hint } : {}), ...(sessionId ? { sessionId } : {}) }
  } finally {
    stopTuning()
    ;(await userCommands.catch(() => null))?.stop()
    await session.close()
    uninstall()
  }
}
