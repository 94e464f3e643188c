import { matches, matchTarget } from './matcher.js'
import { buildInput, type EventFields, type HookCommon, interpret } from './protocol.js'
import { notStarted, runHookCommand } from './run-command.js'
import type { ConfiguredHook, HookEvent, HookProcessOwner, HooksView } from './types.js'
import { combine, EMPTY_VERDICT, type HookVerdict } from './verdict.js'

/**
 * The session's hooks: which apply to an event, running them (in parallel, each command once), and the
 * combined verdict. What the verdict means for a tool call, a prompt or a stop is the caller's business
 * (source/agent/); the cards it carries are for the transcript.
 */

export interface HookServiceOptions {
  /** The hooks configuration now: it changes when the folder is trusted or distrusted mid-session. */
  view(): HooksView
  /** Claude Code's `CLAUDE_PROJECT_DIR` (and our `AGENT_TUI_PROJECT_DIR`). */
  projectDir: string
  /** The fields every event carries, read when it fires. */
  common(): HookCommon
  /**
   * Brings the `transcript_path` file up to date and returns its path: called only once a hook is
   * about to run (writing it for every event would cost for nothing).
   */
  transcriptPath?(): string
  owner?: HookProcessOwner
  /** Default: this process's environment. */
  env?: NodeJS.ProcessEnv
  killGraceMs?: number
  /** bash by absolute path, outside the workspace (see source/util/host-programs.ts). */
  shell?: string
  /**
   * Asked before each hook starts: a hook whose program changed while commands ran unasked must not run
   * unasked (see source/provenance/). Resolves with why it must not run, or undefined to run it.
   */
  guard?: HookGuard
}

/** What a guard is told of one hook run. */
export interface GuardedRun {
  hook: ConfiguredHook
  event: HookEvent
  cwd: string
  env: NodeJS.ProcessEnv
  /** Files the event is about (a tool's `file_path`), where tools look for their config. */
  related: string[]
}

export type HookGuard = (run: GuardedRun, signal: AbortSignal) => Promise<string | undefined>

export interface RunOptions {
  signal?: AbortSignal
  /** The tool's name, for the cards of tool events. */
  target?: string
}

export interface HookService {
  /** Whether some hook would run for `event` (cheap: callers build nothing when it is false). */
  has(event: HookEvent): boolean
  run<E extends HookEvent>(event: E, fields: EventFields[E], opts?: RunOptions): Promise<HookVerdict>
  view(): HooksView
  /** Stops every running hook (its process group) and waits for them; later runs do nothing. */
  dispose(): Promise<void>
}

export function createHookService(opts: HookServiceOptions): HookService {
  const closing = new AbortController()
  const running = new Set<Promise<unknown>>()
  const env = {
    ...(opts.env ?? process.env),
    CLAUDE_PROJECT_DIR: opts.projectDir,
    AGENT_TUI_PROJECT_DIR: opts.projectDir,
  }
  const forEvent = (event: HookEvent) => opts.view().active.filter((h) => h.event === event)

  return {
    has: (event) => !closing.signal.aborted && forEvent(event).length > 0,
    view: () => opts.view(),
    async run(event, fields, runOpts = {}) {
      if (closing.signal.aborted) return EMPTY_VERDICT
      const input = buildInput(event, opts.common(), fields)
      const hooks = selectHooks(forEvent(event), event, input)
      if (hooks.length === 0) return EMPTY_VERDICT
      if (opts.transcriptPath) input.transcript_path = opts.transcriptPath()
      const signal = runOpts.signal ? AbortSignal.any([runOpts.signal, closing.signal]) : closing.signal
      const json = JSON.stringify(input)
      const cwd = typeof input.cwd === 'string' && input.cwd ? input.cwd : opts.projectDir
      const runs = Promise.all(
        hooks.map(async (hook) => {
          const hookEnv = hook.env ? { ...env, ...hook.env } : env
          const refused = await opts.guard?.(
            { hook, event, cwd, env: hookEnv, related: relatedFiles(input) },
            signal,
          )
          if (refused !== undefined) return interpret(event, hook, notStarted(refused))
          const run = await runHookCommand({
            command: hook.command,
            input: json,
            cwd,
            env: hookEnv,
            timeoutMs: hook.timeoutSeconds * 1000,
            signal,
            ...(opts.owner ? { owner: opts.owner } : {}),
            ...(opts.killGraceMs !== undefined ? { killGraceMs: opts.killGraceMs } : {}),
            ...(opts.shell ? { shell: opts.shell } : {}),
          })
          return interpret(event, hook, run)
        }),
      )
      running.add(runs)
      try {
        return combine(event, await runs, runOpts.target ?? '')
      } finally {
        running.delete(runs)
      }
    },
    async dispose() {
      closing.abort()
      await Promise.allSettled([...running])
    },
  }
}

/**
 * The hooks of `event` whose matcher accepts this firing, each command once (Claude Code runs identical
 * commands once), in configuration order.
 */
export function selectHooks(
  hooks: readonly ConfiguredHook[],
  event: HookEvent,
  input: Readonly<Record<string, unknown>>,
): ConfiguredHook[] {
  const target = matchTarget(event, input)
  const seen = new Set<string>()
  return hooks.filter((hook) => {
    if (hook.event !== event) return false
    if (target !== null && !matches(hook.matcher, target)) return false
    if (seen.has(hook.command)) return false
    seen.add(hook.command)
    return true
  })
}

/** `tool_input.file_path` (Write, Edit) and `notebook_path` (NotebookEdit), when the event has one. */
function relatedFiles(input: Readonly<Record<string, unknown>>): string[] {
  const tool = input.tool_input
  if (typeof tool !== 'object' || tool === null) return []
  const fields = tool as Record<string, unknown>
  return [fields.file_path, fields.notebook_path].filter(
    (v): v is string => typeof v === 'string' && v !== '',
  )
}
