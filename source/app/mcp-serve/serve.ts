import { realpath } from 'node:fs/promises'
import { homedir } from 'node:os'
import { sep } from 'node:path'
import { z } from 'zod'
import { ConfigError, UsageError } from '../../config/errors.js'
import { mcpServeHelp, parseMcpServeArgs, type McpServeArgs } from '../../config/mcp-serve-args.js'
import { settingsEnv } from '../../config/settings-env.js'
import { modesUnder } from '../../permissions/mode-ceiling.js'
import type { Action } from '../../store/actions.js'
import { MODES, type Mode } from '../../store/domain.js'
import { cleanedWriter, type TextWriter } from '../../util/display-text.js'
import { openRunConfig } from '../run-config.js'
import { SessionError } from '../session-error.js'
import { runTask, type TaskOutcome, type TaskServer } from './run-task.js'
import { registerBuiltinTools } from './register-tools.js'
import { openToolSession, type ToolSession } from './tool-session.js'

declare const AGENT_TUI_VERSION: string

/** How long a closing server waits for its tasks to stop (their process groups are killed at exit anyway). */
const SHUTDOWN_WAIT_MS = 5_000

/**
 * `agent-tui mcp serve` (docs/mcp.md#agent-tui-as-an-mcp-server): agent-tui as an MCP server on stdio. Loaded
 * only for this subcommand (cli.ts imports it, and it imports the server SDK, lazily). Resolves with the exit
 * code once the client has closed stdin and every task has stopped.
 */
export async function runMcpServe(argv: readonly string[]): Promise<number> {
  const log = cleanedWriter(process.stderr)
  let parsed: McpServeArgs
  try {
    parsed = parseMcpServeArgs(argv)
  } catch (error) {
    if (error instanceof UsageError) {
      log.write(`agent-tui mcp serve: ${error.message}\n`)
      return 2
    }
    throw error
  }
  if (parsed.help) {
    process.stdout.write(`${mcpServeHelp()}\n`)
    return 0
  }
  if (parsed.base.cwd !== undefined) {
    try {
      process.chdir(parsed.base.cwd)
    } catch (error) {
      log.write(`agent-tui mcp serve: --cwd ${parsed.base.cwd}: ${(error as Error).message}\n`)
      return 2
    }
  }
  const env = process.env
  const home = env.HOME || homedir()
  const root = await realpath(process.cwd())
  const broad = await tooBroadRoot(root, home)
  if (broad && parsed.base.cwd === undefined) {
    log.write(
      `agent-tui mcp serve: started in ${broad}, which would let a task run anywhere under it; pass --cwd with the project folder tasks may use\n`,
    )
    return 2
  }
  try {
    // The server's own folder's settings `env`, applied once as `-p` would there; a task's folder's is not.
    const own = await openRunConfig({ ...parsed.base, print: true }, { workspace: root, env, home })
    for (const warning of own.config.warnings) log.write(`agent-tui mcp serve: warning: ${warning}\n`)
    Object.assign(process.env, settingsEnv(own.config.env).apply)
  } catch (error) {
    if (error instanceof ConfigError) {
      log.write(`agent-tui mcp serve: ${error.message}\n`)
      return 2
    }
    throw error
  }
  const server: TaskServer = { base: parsed.base, maxMode: parsed.maxMode, root, home, env }
  let tools: ToolSession | undefined
  if (parsed.exposeTools) {
    try {
      tools = await openToolSession(server, prefixed(log, 'agent-tui mcp serve [tools]: '))
    } catch (error) {
      if (error instanceof ConfigError || error instanceof UsageError || error instanceof SessionError) {
        log.write(`agent-tui mcp serve: the built-in tools could not start: ${error.message}\n`)
        return 2
      }
      throw error
    }
  }
  const { McpServer } = await import('@modelcontextprotocol/server')
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio')

  // Aborted when the client goes away: every running task is interrupted, its processes killed.
  const closing = new AbortController()
  const running = new Set<Promise<unknown>>()
  let taskNumber = 0

  const version = typeof AGENT_TUI_VERSION === 'string' ? AGENT_TUI_VERSION : 'dev'
  const makeServer = () => {
    const mcp = new McpServer({ name: 'agent-tui', version }, { capabilities: { tools: {} } })
    mcp.registerTool(
      'run_task',
      {
        title: 'Run an agent-tui task',
        description: runTaskDescription(parsed.maxMode),
        inputSchema: z.object({
          prompt: z.string().min(1).describe('What the agent should do'),
          cwd: z
            .string()
            .optional()
            .describe("The folder to work in (relative to the server's folder, or absolute inside it)"),
          mode: z
            .enum(MODES as [Mode, ...Mode[]])
            .optional()
            .describe(`Permission mode (default ci); allowed here: ${modesUnder(parsed.maxMode).join(', ')}`),
          model: z.string().optional().describe('Model id (default: the configured one)'),
        }),
        outputSchema: z.object({
          result: z.string(),
          session_id: z.string(),
          status: z.enum(['completed', 'max-steps', 'interrupted', 'error', 'stopped']),
          steps: z.number(),
          error: z.string().optional(),
        }),
        annotations: { readOnlyHint: false, destructiveHint: parsed.maxMode !== 'ci', openWorldHint: true },
      },
      async (request, ctx) => {
        const n = ++taskNumber
        const err = prefixed(log, `agent-tui mcp serve [task ${n}]: `)
        const progressToken = ctx.mcpReq._meta?.progressToken
        let progress = 0
        const observe = (action: Action) => {
          if (progressToken === undefined) return
          const message = progressOf(action)
          if (message === null) return
          progress++
          void ctx.mcpReq
            .notify({ method: 'notifications/progress', params: { progressToken, progress, message } })
            .catch(() => undefined)
        }
        const signal = AbortSignal.any([ctx.mcpReq.signal, closing.signal])
        const work = runTask(server, request, { err, signal, observe, number: n }).catch(
          (error: unknown): TaskOutcome => {
            if (error instanceof ConfigError || error instanceof UsageError || error instanceof SessionError)
              return { ok: false, message: error.message }
            err.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
            return { ok: false, message: error instanceof Error ? error.message : String(error) }
          },
        )
        running.add(work)
        const outcome = await work.finally(() => running.delete(work))
        if (!outcome.ok) {
          err.write(`refused or failed: ${outcome.message}\n`)
          return {
            isError: true,
            content: [{ type: 'text' as const, text: outcome.message }],
            ...(outcome.task ? { structuredContent: { ...outcome.task } } : {}),
          }
        }
        const { task } = outcome
        return {
          content: [
            { type: 'text' as const, text: task.result || `(no answer; the task ended: ${task.status})` },
          ],
          structuredContent: { ...task },
        }
      },
    )
    if (tools) registerBuiltinTools(mcp, tools, { mode: parsed.maxMode, closing: closing.signal, log })
    return mcp
  }

  const handle = serveStdio(makeServer, {
    onerror: (error) => log.write(`agent-tui mcp serve: ${error.message}\n`),
  })
  log.write(
    `agent-tui mcp serve: serving on stdio in ${root} (tasks run in ci, up to ${parsed.maxMode}${tools ? `; ${tools.tools.length} built-in tools, judged in ${parsed.maxMode}` : ''})\n`,
  )

  const stopped = new Promise<number>((resolveStop) => {
    let done = false
    const stop = (code: number) => {
      if (done) return
      done = true
      closing.abort()
      const settled = Promise.allSettled([...running])
      const timeout = new Promise((r) => setTimeout(r, SHUTDOWN_WAIT_MS).unref())
      void Promise.race([settled, timeout])
        .then(() => Promise.race([tools?.close(), timeout]))
        .then(() => handle.close())
        .catch(() => undefined)
        .then(() => resolveStop(code))
    }
    // The client closed its end: the MCP stdio binding says to exit.
    process.stdin.once('end', () => stop(0))
    process.stdin.once('close', () => stop(0))
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
      ['SIGHUP', 129],
    ] as const)
      process.once(signal, () => stop(code))
  })
  const code = await stopped
  // A task's leftovers (a timer, a socket) must not keep a server nobody talks to alive.
  setTimeout(() => process.exit(code), 500).unref()
  return code
}

function runTaskDescription(maxMode: string): string {
  return [
    'Runs a coding task with agent-tui, a terminal coding agent, headless in a folder, and returns its final answer and session id.',
    `It reads, searches, edits and runs commands as its permission mode allows: ci (the default) runs nothing unsafe without an allow rule; this server allows up to ${maxMode}.`,
    'Each call is a new, independent session.',
  ].join(' ')
}

/** The progress line an action makes, or null for the many that make none. */
export function progressOf(action: Action): string | null {
  if (action.type === 'tool/started') return action.summary
  if (action.type === 'step/started') return `step ${action.step}`
  return null
}

function prefixed(out: TextWriter, prefix: string): TextWriter {
  return {
    write: (text) =>
      out.write(
        text
          .split('\n')
          .map((line, i, all) =>
            i === all.length - 1 && line === '' ? '' : `${prefix}${line.replace(/^agent-tui: /, '')}`,
          )
          .join('\n'),
      ),
  }
}

/**
 * `/`, the home folder or one of its parents, named as such, when `root` is one: clients such as Claude
 * Desktop start servers there, and a task's `cwd` is bounded only by this folder.
 */
export async function tooBroadRoot(root: string, home: string): Promise<string | null> {
  if (root === sep) return '/'
  const realHome = await realpath(home).catch(() => home)
  if (root === realHome) return 'your home folder'
  if (realHome.startsWith(root.endsWith(sep) ? root : root + sep))
    return `${root}, a parent of your home folder`
  return null
}
