import { homedir } from 'node:os'
import type { SubmitInput } from '../agent/runtime/commands.js'
import { retryNoticeText } from '../agent/turn/retry-notice.js'
import type { ParsedArgs } from '../config/flags.js'
import { tildePath } from '../config/project-trust.js'
import { untrustedNotice } from '../config/trust-messages.js'
import { exitCodeFor, type HeadlessTrace, streamEvents, TraceCollector } from '../headless/trace.js'
import type { Action } from '../store/actions.js'
import type { TurnResult } from '../store/domain.js'
import type { State } from '../store/state.js'
import { installExitCleanup } from '../tasks/exit-hooks.js'
import { BUILTIN_COMMANDS } from '../ui/commands/builtin-commands.js'
import { createCommandTable, parseSlash, promptOfLine } from '../ui/commands/command-table.js'
import { cleanedWriter, cleanText, escapeForTerminal, type TextWriter } from '../util/display-text.js'
import { installUserCommands } from './session/load-commands.js'
import { createSession, type SessionOptions } from './session/create-session.js'
import type { DebugLog } from './debug-log.js'
import type { Session } from './session/create-session.js'

export interface HeadlessOptions extends Omit<SessionOptions, 'interactive' | 'observers'> {
  args: ParsedArgs
  prompt: string
  /**
   * The prompt is text, never a `/command`: a task of `agent-tui mcp serve` comes from a client, which must
   * not run the user's commands (their `` !`…` `` lines and `allowed-tools` grants) with its own arguments.
   */
  literalPrompt?: boolean
  debug?: DebugLog
}

/**
 * Where a headless run writes and who stops it. `-p` writes to stdout and stderr and owns the process's
 * signals; a task of `agent-tui mcp serve` keeps stdout for the protocol, is stopped by its `signal` and
 * leaves the signals to the server (source/app/mcp-serve/).
 */
export interface HeadlessIo {
  /** The answer (or the json / stream-json output). */
  out: TextWriter
  /** Warnings and notices, cleaned. */
  err: TextWriter
  /** Aborting it interrupts the turn, as the first Ctrl+C does. */
  signal?: AbortSignal
  /** One more observer of every action (an MCP client's progress notifications). */
  observe?: (action: Action, state: State) => void
  /** Called once the session exists, with its id (before the turn runs). */
  onSession?: (sessionId: string) => void
  /** SIGINT interrupts, SIGTERM/SIGHUP kill the process groups and exit: true for `-p`. */
  ownSignals: boolean
  /** Whether the untrusted-folder notice may point at `--trust-project` (not for an mcp task). Default true. */
  trustFlag?: boolean
}

/** What a headless run ended with: the exit code, and the turn and its trace when one ran. */
export interface HeadlessOutcome {
  code: number
  sessionId?: string
  result?: TurnResult
  trace?: HeadlessTrace
}

/** `-p`: the same runtime and store, without Ink. Returns the exit code (0/1/2/3/130). */
export async function runHeadless(opts: HeadlessOptions): Promise<number> {
  const format = opts.args.outputFormat
  // Notices and errors on stderr are cleaned; the answer on stdout is the model's text, printed as it is
  // into a pipe or a file, cleaned only on a terminal; JSON is escaped, which parses to the same.
  const out: TextWriter = {
    write: (text) =>
      process.stdout.write(
        format !== 'text' ? escapeForTerminal(text) : process.stdout.isTTY ? cleanText(text) : text,
      ),
  }
  const outcome = await runHeadlessTask(opts, { out, err: cleanedWriter(process.stderr), ownSignals: true })
  return outcome.code
}

/** One headless run: a session, its one turn, the result written to `io`; the session closed after. */
export async function runHeadlessTask(opts: HeadlessOptions, io: HeadlessIo): Promise<HeadlessOutcome> {
  const started = performance.now()
  const format = opts.args.outputFormat
  const trace = new TraceCollector()
  const { out, err } = io
  const observers: Array<(action: Action, state: State) => void> = [(action) => trace.observe(action)]
  if (format === 'stream-json') {
    observers.push((action) => {
      for (const event of streamEvents(action)) out.write(`${JSON.stringify(event)}\n`)
    })
  }
  /** Hook cards already on stderr, so the result's error does not say the same again. */
  const shown = new Set<string>()
  if (opts.args.verbose && format === 'text') observers.push((action) => progressLine(action, err))
  else if (format === 'text') {
    // What a hook blocked or why it failed changes the run: a script's author sees it without --verbose.
    observers.push((action) => {
      if (action.type !== 'hook/ran' || action.level === 'info') return
      shown.add(action.text)
      err.write(`agent-tui: ${action.text}\n`)
    })
  }
  if (format !== 'stream-json') {
    // The context budget's start-up warning (the definitions take much of the window) changes what a
    // run can do: on stderr whatever the format (stream-json has it as an event).
    observers.push((action) => {
      if (action.type === 'context/warned') err.write(`agent-tui: warning: ${action.text}\n`)
    })
  }
  if (format !== 'stream-json' && !(opts.args.verbose && format === 'text')) {
    // The notices that change what the run did (`STDERR_NOTICES`): they hold the setting to add or the
    // file left out, which the model's envelope does not (stream-json has them as events).
    observers.push((action) => {
      if (action.type !== 'notice/added' || action.level === 'info') return
      if (STDERR_NOTICES.some((prefix) => action.id.startsWith(prefix)))
        err.write(`agent-tui: warning: ${action.text}\n`)
    })
  }
  if (opts.debug) observers.push((action) => opts.debug?.write(action))
  if (io.observe) observers.push(io.observe)

  const session = await createSession({
    ...opts,
    interactive: false,
    observers,
    // Always on stderr (a script's author looks there): a server that failed changes what the run can do.
    onMcpNotice: (level, text) => err.write(`agent-tui: ${level === 'info' ? '' : 'warning: '}${text}\n`),
  })
  // The servers start now: the first request waits for them (their tools go into its definitions).
  session.startMcp()
  session.startCodeSearch()
  for (const warning of session.warnings) err.write(`agent-tui: warning: ${warning}\n`)
  await reportProjectTrust(opts, err, io.trustFlag ?? true)
  // Checked before the turn, so a missing sandbox is said once, up front, not at the first command.
  const sandbox = await session.sandbox?.status()
  if (sandbox?.kind === 'unavailable') err.write(`agent-tui: warning: ${sandbox.notice}\n`)
  if (format === 'stream-json') {
    const state = session.store.getState()
    out.write(
      `${JSON.stringify({ type: 'init', session_id: session.id, model: state.session.model, cwd: state.session.cwd, mode: state.mode })}\n`,
    )
  }

  io.onSession?.(session.id)
  // First Ctrl+C interrupts the turn (exit 130 after the result is printed); a second one exits at once.
  let interrupts = 0
  const onSigint = () => {
    interrupts++
    if (interrupts === 1) session.runtime.interrupt()
    // The exit event kills every process group and closes the log (installExitCleanup below).
    else process.exit(130)
  }
  if (io.ownSignals) process.on('SIGINT', onSigint)
  const onAbort = () => session.runtime.interrupt()
  io.signal?.addEventListener('abort', onAbort, { once: true })
  // Without the signals (an MCP task), the exit event alone: the server owns SIGINT/SIGTERM/SIGHUP.
  const uninstall = installExitCleanup(session.processes, {
    signals: io.ownSignals ? ['SIGTERM', 'SIGHUP'] : [],
    also: [() => session.log.close()],
  })
  const ended = (code: number, rest: Omit<HeadlessOutcome, 'code' | 'sessionId'> = {}): HeadlessOutcome => ({
    code,
    sessionId: session.id,
    ...rest,
  })
  try {
    if (opts.args.rewindTo !== undefined) {
      const { runRewind } = await import('./headless-rewind.js')
      const code = await runRewind(session, opts.args, out, err)
      if (code !== 0 || !opts.prompt.trim()) return ended(code)
    }
    const input = await promptInput(opts, session, err)
    if (!input) return ended(2)
    // Stopped before the turn began (an MCP client cancelled while the session was set up): nothing runs.
    if (io.signal?.aborted) return ended(130)
    const result =
      'mcpPrompt' in input
        ? await mcpPromptTurn(session, input.mcpPrompt, err)
        : await session.runtime.runTurn(input)
    if (!result) return ended(2)
    const state = session.store.getState()
    const built = trace.build({
      result,
      usage: state.usage.session,
      durationMs: performance.now() - started,
      sessionId: session.id,
    })
    if (format === 'json') out.write(`${JSON.stringify(built, null, 2)}\n`)
    else if (format === 'stream-json') out.write(`${JSON.stringify({ type: 'result', ...built })}\n`)
    else if (result.text) out.write(result.text.endsWith('\n') ? result.text : `${result.text}\n`)
    if (format === 'text' && result.error && !shown.has(result.error))
      err.write(`agent-tui: ${result.error}\n`)
    if (format === 'text' && result.kind === 'max-steps') {
      err.write(`agent-tui: stopped at the step limit (${result.steps} steps); raise it with --max-steps\n`)
    }
    const left = leftRunning(session.store.getState())
    if (left) err.write(`agent-tui: warning: ${left}\n`)
    return ended(exitCodeFor(result.kind), { result, trace: built })
  } finally {
    process.off('SIGINT', onSigint)
    io.signal?.removeEventListener('abort', onAbort)
    await session.close()
    uninstall()
    if (opts.debug) {
      opts.debug.close()
      err.write(`agent-tui: debug log written to ${opts.debug.path}\n`)
    }
  }
}

/**
 * The turn's input: the prompt, or what a prompt command makes of it (`-p "/review src"` runs the
 * user's or the project's command; `/init` its prompt). Null (after saying why on stderr) for an unknown
 * command or one that needs the full-screen session.
 */
async function promptInput(
  opts: HeadlessOptions,
  session: Pick<Session, 'store' | 'instructions' | 'claude' | 'discovery' | 'skills' | 'plugins'>,
  err: TextWriter,
): Promise<SubmitInput | { mcpPrompt: { name: string; args: string } } | null> {
  const parsed = opts.literalPrompt ? null : parseSlash(opts.prompt)
  if (!parsed) return { text: opts.prompt }
  const table = createCommandTable(BUILTIN_COMMANDS)
  const home = process.env.HOME || homedir()
  await installUserCommands({
    table,
    paths: opts.paths,
    workspace: opts.workspace,
    home,
    read: session.instructions,
    skills: session.skills,
    plugins: session.plugins,
    ...(opts.projectTrust ? { trust: opts.projectTrust.trust } : {}),
    claude: session.claude,
    report: (text) => err.write(`agent-tui: warning: ${text}\n`),
    record: (entries) => session.discovery.set('commands', entries),
  })
  // The servers' prompts are known once they are up: the runtime waits for them.
  if (parsed.name.startsWith('mcp__') && !table.find(parsed.name)) return { mcpPrompt: parsed }
  const resolved = await promptOfLine(table, opts.prompt, session.store.getState())
  if (resolved === null) return { text: opts.prompt }
  if (resolved.ok) return resolved.input
  err.write(`agent-tui: ${resolved.message}\n`)
  return null
}

/** `-p "/mcp__server__prompt args"`: the prompt as the run's turn; null (said on stderr) when it cannot be had. */
async function mcpPromptTurn(
  session: Session,
  prompt: { name: string; args: string },
  err: TextWriter,
): Promise<TurnResult | null> {
  try {
    return await session.runtime.runMcpPromptTurn(prompt.name, prompt.args)
  } catch (error) {
    err.write(
      `agent-tui: /${prompt.name} failed: ${error instanceof Error ? error.message : String(error)}\n`,
    )
    return null
  }
}

/**
 * Always on stderr (not only with --verbose): an untrusted folder changes what the run may do, and a
 * script's author must see why a rule in the repository did not apply.
 */
async function reportProjectTrust(opts: HeadlessOptions, err: TextWriter, trustFlag: boolean): Promise<void> {
  const trust = opts.projectTrust?.trust
  if (!trust) return
  for (const warning of trust.warnings()) err.write(`agent-tui: warning: ${warning}\n`)
  const home = process.env.HOME
  const display = (path: string) => (home ? tildePath(path, home) : path)
  const text = untrustedNotice({
    contributions: await trust.contributions(),
    status: trust.status(),
    folder: display(trust.folder),
    realFolder: trust.folder,
    display,
    storeLabel: display(trust.storeFile),
    headless: true,
    trustFlag,
  })
  if (text) err.write(`${text}\n`)
}

/**
 * Background work the turn left running. A headless run ends with its turn and exiting stops every job
 * and subagent, so always on stderr: what was lost, and how the model could have waited for it.
 */
function leftRunning(state: State): string | null {
  const running = state.tasks.order.flatMap((id) => {
    const task = state.tasks.byId[id]
    // CodeSearch's index is not the model's work, and the next run carries on where this one stopped.
    if (task?.status !== 'running' || task.kind === 'index') return []
    const what = task.agent ? `${task.agent.type} agent: ${task.description ?? task.command}` : task.command
    return [`${task.id} (${what})`]
  })
  if (running.length === 0) return null
  return `stopped at exit, still running: ${running.join(', ')}; a headless run ends with its turn (the model can wait with TaskOutput, block: true)`
}

function progressLine(action: Action, err: TextWriter): void {
  if (action.type === 'provider/retried') err.write(`[warn] ${retryNoticeText(action, action.delayMs)}\n`)
  else if (action.type === 'tool/started') err.write(`→ ${action.summary}\n`)
  else if (action.type === 'tool/finished')
    err.write(`  ${action.status} (${Math.round(action.durationMs)} ms)\n`)
  // MCP notices are on stderr already (onMcpNotice), and so is the sandbox's (a warning).
  else if (
    action.type === 'notice/added' &&
    !action.id.startsWith('mcp-') &&
    !action.id.startsWith('sandbox-')
  )
    err.write(`[${action.level}] ${action.text}\n`)
  else if (action.type === 'hook/ran') err.write(`[hook] ${action.text}\n`)
}

/**
 * Notices a headless run prints on stderr whatever --verbose says: each changes what the run did.
 * - `web-`: a web tool cannot work as configured (WebSearch without a provider);
 * - `tool-support-`: the endpoint writes tool calls as text, so the run does nothing;
 * - `code-search-`: CodeSearch's index failed (a key refused, no such model);
 * - `nested-instructions-`: a nested CLAUDE.md was left out (it leads outside the workspace);
 * - `command-sandbox-`: a command's own `!` failed inside the sandbox (its protected folders are read-only).
 */
const STDERR_NOTICES = ['web-', 'tool-support-', 'code-search-', 'nested-instructions-', 'command-sandbox-']
