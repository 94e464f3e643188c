import { rm } from 'node:fs/promises'
import type { CallOutcome, ExecutorDeps } from '../../agent/tool-call/pipeline.js'
import { executeCall } from '../../agent/tool-call/pipeline.js'
import type { Mode } from '../../store/domain.js'
import { installExitCleanup } from '../../tasks/exit-hooks.js'
import type { AnyTool } from '../../tools/types.js'
import type { TextWriter } from '../../util/display-text.js'
import { tildePath } from '../../config/project-trust.js'
import { untrustedNotice } from '../../config/trust-messages.js'
import { openRunConfig } from '../run-config.js'
import { createSession, type Session } from '../session/create-session.js'
import type { TaskServer } from './run-task.js'

/**
 * `agent-tui mcp serve --expose-tools` (docs/mcp.md#the-built-in-tools): one headless session in the server's
 * folder, opened at start and kept until the server stops, whose built-in tools a client calls directly.
 * Each call goes through the session's tool-call pipeline (agent/tool-call/pipeline.ts) as a call of the
 * model's in `agent-tui -p --mode <max-mode>` would: the same hooks, rules, protected paths, read boundary,
 * sandbox and, with no user to ask, a call that would ask is refused. One session, so Edit's read-first and
 * staleness rules, Bash's working directory and background jobs hold from one call to the next.
 */

/**
 * The built-in tools a client may call. Left out are the ones that need the session's user or model: the
 * question dialog, the todo list, plan approval, session settings, subagents, skills, and the user's memory
 * file (not a client's to write); and the session's own MCP servers' tools (a client connects to those itself).
 */
export const EXPOSED_TOOLS: ReadonlySet<string> = new Set([
  'Bash',
  'TaskOutput',
  'TaskStop',
  'Read',
  'Write',
  'Edit',
  'MultiEdit',
  'apply_patch',
  'DeleteFile',
  'NotebookEdit',
  'Glob',
  'Grep',
  'CodeSearch',
  'WebFetch',
  'WebSearch',
])

/** What the server needs from the session: its tools, a call, and its end. */
export interface ToolSession {
  /** The exposed tools the session offers (a `--tools` mask or a bare deny takes some out), in catalog order. */
  tools: AnyTool[]
  /** One call through the pipeline; never throws. Calls run one at a time, in the order they came. */
  call(
    name: string,
    args: unknown,
    signal: AbortSignal,
    onProgress?: (text: string) => void,
  ): Promise<CallOutcome>
  close(): Promise<void>
}

/** The endpoint a session needs to exist; no exposed tool asks a model but WebFetch's summarizer. */
const NO_MODEL = 'http://127.0.0.1:9/v1'

export async function openToolSession(server: TaskServer, err: TextWriter): Promise<ToolSession> {
  const mode: Mode = server.maxMode
  const args = { ...server.base, print: true, outputFormat: 'text' as const, mode }
  const run = await openRunConfig(args, { workspace: server.root, env: server.env, home: server.home })
  let config = run.config
  // An untrusted folder's repository settings take no effect, as for `-p` there.
  if (await run.trust.settled()) config = run.configFor(run.trust.isTrusted())
  for (const warning of config.warnings) err.write(`warning: ${warning}\n`)
  const session = await createSession({
    config,
    paths: run.paths,
    workspace: server.root,
    interactive: false,
    endpoint: {
      baseUrl: config.baseUrl ?? NO_MODEL,
      model: config.model ?? 'none',
      ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    },
    projectTrust: { trust: run.trust, configFor: run.configFor },
    ...(args.agent ? { agent: args.agent } : {}),
    // No model of agent-tui's chooses among the editing tools: a client gets Edit, Write and apply_patch.
    applyPatch: 'beside',
    // A client's calls belong to no turn, so no checkpoint could be taken (nor /rewind reach them).
    checkpoints: false,
  })
  for (const warning of session.warnings) err.write(`warning: ${warning}\n`)
  for (const warning of run.trust.warnings()) err.write(`warning: ${warning}\n`)
  const home = server.home
  const display = (path: string) => tildePath(path, home)
  const untrusted = untrustedNotice({
    contributions: await run.trust.contributions(),
    status: run.trust.status(),
    folder: display(run.trust.folder),
    realFolder: run.trust.folder,
    display,
    storeLabel: display(run.trust.storeFile),
    headless: true,
    trustFlag: false,
  })
  if (untrusted) err.write(`${untrusted.replace(/^agent-tui: /, '')}\n`)
  const sandbox = await session.sandbox?.status()
  if (sandbox?.kind === 'unavailable') err.write(`warning: ${sandbox.notice}\n`)
  session.startCodeSearch()
  // The session's processes go with the server, whichever way it exits (the server owns the signals).
  const uninstall = installExitCleanup(session.processes, { signals: [], also: [() => session.log.close()] })
  const tools = exposedTools(session)
  let tail: Promise<unknown> = Promise.resolve()
  let calls = 0
  return {
    tools,
    call(name, callArgs, signal, onProgress) {
      const id = `mcp-${(++calls).toString(36)}`
      const run = tail.then(() => callTool(session, { id, name, args: callArgs }, signal, onProgress))
      tail = run.catch(() => undefined)
      return run
    },
    async close() {
      await tail
      await session.close()
      uninstall()
      // No conversation happens in it: its log (a header and session/started) would be an untitled entry in
      // the /resume picker for every start of the server.
      if (session.store.getState().messages.length === 0) await rm(session.log.path, { force: true })
    },
  }
}

/** The exposed tools as the session would offer them to its model (a mask applied), in catalog order. */
function exposedTools(session: Session): AnyTool[] {
  const lookup = session.runtime.executorDeps().tools
  return [...lookup.keys()].flatMap((name) => {
    const tool = EXPOSED_TOOLS.has(name) ? lookup.get(name) : undefined
    return tool ? [tool] : []
  })
}

/**
 * One call, outside any turn: no card and no history message (a client's calls are not the conversation),
 * its live output handed to `onProgress`. A tool that is not exposed is unknown here, as for the model.
 */
function callTool(
  session: Session,
  call: { id: string; name: string; args: unknown },
  signal: AbortSignal,
  onProgress?: (text: string) => void,
): Promise<CallOutcome> {
  const base = session.runtime.executorDeps()
  const deps: ExecutorDeps = {
    ...base,
    tools: {
      get: (name) => (EXPOSED_TOOLS.has(name) ? base.tools.get(name) : undefined),
      keys: () => [...base.tools.keys()].filter((name) => EXPOSED_TOOLS.has(name)),
    },
    dispatch: (action) => {
      if (action.type === 'tool/progress') onProgress?.(action.preview)
      else if (action.type !== 'tool/started') base.dispatch(action)
    },
  }
  return executeCall(
    {
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
    },
    deps,
    signal,
    { parsed: { value: call.args ?? {} } },
  )
}
