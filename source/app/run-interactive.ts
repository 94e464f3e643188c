import { homedir } from 'node:os'
import type { ResolvedEndpoint } from '../config/endpoint.js'
import type { ParsedArgs } from '../config/flags.js'
import { type AppPaths, sessionsDir } from '../config/app-paths.js'
import { tildePath } from '../config/project-trust.js'
import type { ResolvedConfig } from '../config/resolve-config.js'
import type { TuiExit } from '../ui/run-tui.js'
import type { EarlyFrame } from '../ui/terminal/early-frame.js'
import type { ProcessTuning } from '../engine/tuning.js'
import { pricesForModel } from '../provider/prices.js'
import { summarizeSessions } from '../session/session-store.js'
import { installExitCleanup } from '../tasks/exit-hooks.js'
import { BUILTIN_COMMANDS } from '../ui/commands/builtin-commands.js'
import {
  type CommandTable,
  createCommandTable,
  parseSlash,
  promptOfLine,
} from '../ui/commands/command-table.js'
import { createSession, type ProjectTrustSetup, type Session } from './session/create-session.js'
import type { DebugLog } from './debug-log.js'
import { resumeHint } from './exit-message.js'
import { cleanedWriter } from '../util/display-text.js'

export interface InteractiveOptions {
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
}

const PRELOAD_DELAY_MS = 300

/** The full-screen session (or the setup panel when no endpoint was found). Returns the exit status. */
export async function runInteractive(opts: InteractiveOptions): Promise<number> {
  const ui = await import('../ui/run-tui.js')
  const { endpoint, config } = opts
  const model = endpoint.kind === 'none' ? undefined : (config.model ?? endpoint.model)
  // Anything but the session itself draws its own screen from scratch.
  if (!model || opts.args.resume === true) opts.earlyFrame?.abandon()
  const settingsFile = tildePath(opts.paths.userSettingsFile, process.env.HOME || homedir())
  if (endpoint.kind === 'none') return ui.runSetupPanel(endpoint.probed, settingsFile)
  if (!model) {
    return ui.runSetupPanel(
      [
        {
          name: 'configured',
          url: endpoint.baseUrl,
          result: `no model configured, and ${endpoint.listError ?? 'it lists no models'}; pass --model NAME`,
        },
      ],
      settingsFile,
    )
  }
  let resume = opts.resume
  if (opts.args.resume === true) {
    const sessions = await summarizeSessions(sessionsDir(opts.paths, opts.workspace), opts.workspace)
    if (sessions.length === 0) {
      cleanedWriter(process.stderr).write(
        `agent-tui: no sessions to resume in ${opts.workspace}; start one without --resume\n`,
      )
      return 1
    }
    const picked = await ui.runSessionPicker(sessions)
    if (picked === null) return 0
    resume = { kind: 'id', id: picked }
  }
  // `/resume` leaves one session for another: each runs in turn until the user exits. Only the first
  // takes over the early frame and gets the prompt given on the command line.
  try {
    for (let first = true; ; first = false) {
      const exit = await runSession(opts, ui, { ...endpoint, model }, resume, first)
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

type TuiModule = typeof import('../ui/run-tui.js')

/** One session on screen, from its creation to its close. */
async function runSession(
  opts: InteractiveOptions,
  ui: TuiModule,
  endpoint: Exclude<ResolvedEndpoint, { kind: 'none' }> & { model: string },
  resume: InteractiveOptions['resume'],
  first: boolean,
): Promise<TuiExit & { hint?: string }> {
  // A session opened with /resume after the folder was trusted (or distrusted) starts with that answer.
  const trust = opts.projectTrust
  const config = trust && !first ? trust.configFor(trust.trust.isTrusted()) : opts.config
  const { model } = endpoint
  const earlyFrame = first ? opts.earlyFrame : undefined
  const { transcriptToMarkdown } = await import('../ui/panes/transcript/export.js')
  // The session reads contextLength whenever it resolves a profile, so a late listing can fill it in.
  const sessionEndpoint: { baseUrl: string; model: string; apiKey?: string; contextLength?: number } = {
    baseUrl: endpoint.baseUrl,
    model,
    ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
    ...(endpoint.contextLength ? { contextLength: endpoint.contextLength } : {}),
  }
  // The session reads the agent and skill files, the command table the command files: many with a Claude
  // Code collection installed, whose garbage a collection takes back once they are in.
  const loaded = opts.tuning?.aroundLoading()
  const session = await createSession({
    config,
    paths: opts.paths,
    workspace: opts.workspace,
    interactive: true,
    endpoint: sessionEndpoint,
    ...(resume ? { resume } : {}),
    // `--agent` is for the session the command line starts; one opened with /resume keeps its own.
    ...(first && opts.args.agent ? { agent: opts.args.agent } : {}),
    observers: opts.debug ? [(action) => opts.debug?.write(action)] : [],
    exportMarkdown: (state) => transcriptToMarkdown(state),
    ...(opts.projectTrust ? { projectTrust: opts.projectTrust } : {}),
  })
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
      ...(trust ? { trust: trust.trust } : {}),
      report: (text, level) =>
        session.store.dispatch({ type: 'notice/added', id: `command-file-${++commandNotices}`, level, text }),
    }),
  )
  userCommands.then(
    () => loaded?.(),
    () => undefined,
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
      return session.profile().contextLimit
    })
    const exit = await ui.runTui({
      store: session.store,
      commands: session.commands,
      commandTable,
      contextLimit: session.profile().contextLimit,
      ...(contextLimitLater ? { contextLimitLater } : {}),
      ...(config.settings.keybindings ? { keybindings: config.settings.keybindings } : {}),
      ...(branch ? { branch } : {}),
      ...(prices ? { prices } : {}),
      printOnExit: opts.args.printOnExit,
      ...(earlyFrame ? { earlyFrame } : {}),
      // A turn started from the command line warms the same code.
      warmUp: first && !config.prompt,
    })
    const hint = resumeHint(session.store.getState())
    return hint ? { ...exit, hint } : exit
  } finally {
    stopTuning()
    ;(await userCommands.catch(() => null))?.stop()
    await session.close()
    uninstall()
  }
}

/** A prompt given on the command line; `agent-tui "/review src"` runs the command once commands are loaded. */
function sendFirstPrompt(
  prompt: string,
  session: Session,
  table: CommandTable,
  loaded: Promise<unknown>,
): void {
  const parsed = parseSlash(prompt)
  if (!parsed) {
    session.runtime.submit({ text: prompt })
    return
  }
  const warn = (text: string) =>
    session.store.dispatch({ type: 'notice/added', id: 'first-prompt', level: 'warn', text })
  void loaded
    .catch(() => undefined)
    .then(async () => {
      // An MCP prompt's server is most likely still starting: the runtime waits for it.
      if (parsed.name.startsWith('mcp__') && !table.find(parsed.name)) {
        await session.commands.runMcpPrompt(parsed.name, parsed.args).catch((error: unknown) => {
          warn(`/${parsed.name} failed: ${error instanceof Error ? error.message : String(error)}`)
        })
        return
      }
      const resolved = await promptOfLine(table, prompt, session.store.getState())
      if (resolved === null) session.commands.submit({ text: prompt })
      else if (resolved.ok) session.commands.submit(resolved.input)
      else warn(resolved.message)
    })
}
