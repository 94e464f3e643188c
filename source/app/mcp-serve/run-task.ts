import { realpath, stat } from 'node:fs/promises'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import type { ParsedArgs } from '../../config/flags.js'
import { settingsEnv } from '../../config/settings-env.js'
import { modeCeilingRefusal } from '../../permissions/mode-ceiling.js'
import { foldName } from '../../permissions/protected-paths.js'
import type { Mode, TurnResultKind } from '../../store/domain.js'
import type { Action } from '../../store/actions.js'
import type { TextWriter } from '../../util/display-text.js'
import { openDebugLog } from '../debug-log.js'
import { openRunConfig, resolveHeadlessEndpoint } from '../run-config.js'
import { runHeadlessTask } from '../run-headless.js'

/** One `run_task` call as the client sent it (validated by the tool's schema). */
export interface TaskRequest {
  prompt: string
  cwd?: string
  mode?: Mode
  model?: string
}

/** What the server knows about itself when a call comes in. */
export interface TaskServer {
  /** The session options every task starts from (`mcp serve --model …`). */
  base: ParsedArgs
  maxMode: Mode
  /** The real path of the folder the server was started in: every task's `cwd` is inside it. */
  root: string
  home: string
  env: NodeJS.ProcessEnv
}

/** The structured result of a task (the tool's output schema). */
export interface TaskResult {
  result: string
  session_id: string
  status: TurnResultKind
  steps: number
  error?: string
}

export type TaskOutcome = { ok: true; task: TaskResult } | { ok: false; message: string; task?: TaskResult }

/**
 * Runs one task exactly as `agent-tui -p` in its folder would: the folder's settings as its trust allows,
 * the same endpoint resolution, the same runtime (`runHeadlessTask`), its own session log. Nothing is
 * shared with another task but the process: the settings' `env` is not put into `process.env`, which every
 * task would see.
 */
export async function runTask(
  server: TaskServer,
  request: TaskRequest,
  io: { err: TextWriter; signal: AbortSignal; observe?: (action: Action) => void; number: number },
): Promise<TaskOutcome> {
  const mode = request.mode ?? 'ci'
  const refused = modeCeilingRefusal(mode, server.maxMode)
  if (refused) return { ok: false, message: refused }
  const folder = await taskFolder(server.root, request.cwd)
  if (!folder.ok) return folder
  const workspace = folder.path
  const args: ParsedArgs = {
    ...server.base,
    print: true,
    outputFormat: 'text',
    mode,
    ...(request.model !== undefined ? { model: request.model } : {}),
    prompt: request.prompt,
  }
  const run = await openRunConfig(args, { workspace, env: server.env, home: server.home })
  let config = run.config
  for (const warning of config.warnings) io.err.write(`warning: ${warning}\n`)
  // The server applied its own folder's `env` at start; a task's folder may not change the process's.
  const unapplied = Object.entries(settingsEnv(config.env).apply).filter(
    ([key, value]) => server.env[key] !== value,
  )
  if (unapplied.length > 0)
    io.err.write(
      `warning: "env" in this folder's settings is not applied (${unapplied.map(([key]) => key).join(', ')}): one process serves every task; set it where the server starts\n`,
    )
  if (await run.trust.settled()) config = run.configFor(run.trust.isTrusted())
  const found = await resolveHeadlessEndpoint(config, run.paths, server.home)
  if (!found.ok) return { ok: false, message: found.message.replace(/^agent-tui: /, '') }
  let sessionId = ''
  // `--debug`: a log per task (its path on stderr when the task ends).
  const debug = args.debug ? openDebugLog(run.paths.debugDir, `${process.pid}-task-${io.number}`) : undefined
  const outcome = await runHeadlessTask(
    {
      args,
      prompt: request.prompt,
      literalPrompt: true,
      config,
      paths: run.paths,
      workspace,
      endpoint: found.endpoint,
      projectTrust: { trust: run.trust, configFor: run.configFor },
      ...(args.agent ? { agent: args.agent } : {}),
      ...(debug ? { debug } : {}),
    },
    {
      // The answer is returned to the client, never printed: stdout is the protocol's.
      out: { write: () => undefined },
      err: io.err,
      signal: io.signal,
      ...(io.observe ? { observe: (action: Action) => io.observe?.(action) } : {}),
      onSession: (id) => {
        sessionId = id
      },
      ownSignals: false,
      trustFlag: false,
    },
  ).finally(() => debug?.close()) // a session that failed to start never reached its own close
  const result = outcome.result
  if (!result)
    return {
      ok: false,
      message:
        outcome.code === 130
          ? 'the task was cancelled before it began'
          : `the task did not run (exit code ${outcome.code}); see the server's stderr`,
    }
  const task: TaskResult = {
    result: result.text,
    session_id: outcome.sessionId ?? sessionId,
    status: result.kind,
    steps: result.steps,
    ...(result.error ? { error: result.error } : {}),
  }
  if (result.kind === 'error') return { ok: false, message: result.error ?? 'the task failed', task }
  return { ok: true, task }
}

/**
 * The task's folder: `cwd` resolved against the server's folder, a directory, and (after symlinks) inside
 * it. A client cannot point a task at a folder the user did not start the server for.
 */
/** Folders whose files agent-tui or another tool runs or trusts (docs/permissions.md, protected paths). */
const PROTECTED_FOLDERS: ReadonlySet<string> = new Set(['.git', '.agent-tui', '.claude', '.vscode', '.idea'])

export async function taskFolder(
  root: string,
  cwd: string | undefined,
): Promise<{ ok: true; path: string } | { ok: false; message: string }> {
  const asked = resolve(root, cwd ?? '.')
  let real: string
  try {
    real = await realpath(asked)
    if (!(await stat(real)).isDirectory()) return { ok: false, message: `cwd ${cwd}: not a directory` }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return { ok: false, message: `cwd ${cwd}: ${code === 'ENOENT' ? 'no such directory' : String(error)}` }
  }
  const inside = relative(root, real)
  if (inside === '..' || inside.startsWith('../') || isAbsolute(inside))
    return {
      ok: false,
      message: `cwd ${cwd} is outside the folder this server was started in (${root}); start agent-tui mcp serve in (or with --cwd) a folder that holds it`,
    }
  // Protected folders are protected relative to a session's workspace: a task started inside one would
  // write its hooks, settings or tasks as ordinary files.
  const config = inside
    .split(sep)
    .map(foldName)
    .find((segment) => PROTECTED_FOLDERS.has(segment))
  if (config)
    return {
      ok: false,
      message: `cwd ${cwd} is inside ${config}/, a protected folder: a task cannot run there`,
    }
  return { ok: true, path: real }
}
