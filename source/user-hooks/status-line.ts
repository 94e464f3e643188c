import type { State } from '../store/state.js'
import { cleanText } from '../util/display-text.js'
import type { RawRun } from './protocol.js'
import type { RunCommandOptions } from './run-command.js'

/**
 * The status line command (Claude Code's `statusLine` setting): a command the user configured gets the
 * session as JSON on stdin (Claude Code's fields, below) and its first line of output is shown under
 * the status bar. It runs when what it is given changes, debounced, one run at a time (a newer change
 * stops the run in progress), in its own process group with a timeout; at idle nothing changes, so
 * nothing runs.
 */

export interface StatusLineSettings {
  type: 'command'
  command: string
  padding?: number
}

/** What the JSON is made of besides the state. */
export interface StatusLineFacts {
  projectDir: string
  currentDir: string
  transcriptPath?: string
  version: string
  contextLimit: number
  /** The session's cost estimate in USD, when the model's prices are known. */
  costUsd?: number
}

/** Claude Code's status line input, with what agent-tui knows (lines added/removed it does not count). */
export function statusLineInput(state: State, facts: StatusLineFacts, now: number): Record<string, unknown> {
  const { usage } = state
  const limit = facts.contextLimit
  const used = limit > 0 ? Math.min(100, Math.round((usage.contextTokens / limit) * 100)) : 0
  return {
    hook_event_name: 'Status',
    session_id: state.session.id,
    ...(facts.transcriptPath ? { transcript_path: facts.transcriptPath } : {}),
    cwd: facts.currentDir,
    model: { id: state.session.model, display_name: state.session.model },
    workspace: { current_dir: facts.currentDir, project_dir: facts.projectDir },
    version: facts.version,
    output_style: { name: 'default' },
    cost: {
      ...(facts.costUsd !== undefined ? { total_cost_usd: facts.costUsd } : {}),
      total_duration_ms: Math.max(0, now - state.session.startedAt),
    },
    context_window: {
      total_input_tokens: usage.session.input,
      total_output_tokens: usage.session.output,
      context_window_size: limit,
      current_usage: {
        input_tokens: usage.lastStep.input,
        output_tokens: usage.lastStep.output,
        cache_read_input_tokens: usage.lastStep.cached,
      },
      used_percentage: used,
      remaining_percentage: 100 - used,
    },
    exceeds_200k_tokens: usage.contextTokens > 200_000,
    // agent-tui's own, beside Claude Code's: the permission mode and the session's title.
    permission_mode: state.mode,
    session_title: state.session.title,
  }
}

/** What decides whether to run again: the input without the clock (which alone never makes a run). */
export function changeKey(input: Record<string, unknown>): string {
  const cost = input.cost as Record<string, unknown> | undefined
  return JSON.stringify({ ...input, cost: { ...cost, total_duration_ms: undefined } })
}

/** Colour and style (SGR: `ESC [ digits ; … m`) are kept; everything else that drives a terminal is not. */
const SGR = /\x1b\[[0-9;:]{0,48}m/g
const RESET = '\x1b[0m'

/**
 * The first line of the command's output as it is painted: SGR colours kept (they cannot move the
 * cursor, set the title or the clipboard), every other escape and control taken out by `cleanText`,
 * and a reset at its end so no colour runs on into the rest of the screen. Empty when it printed nothing.
 */
export function statusText(stdout: string): string {
  const first = stdout.replace(/^\n+/, '').split(/\r?\n/)[0] ?? ''
  let out = ''
  let at = 0
  let styled = false
  for (const m of first.matchAll(SGR)) {
    out += cleanText(first.slice(at, m.index), { newlines: false, tabs: false }) + m[0]
    styled = true
    at = m.index + m[0].length
  }
  out += cleanText(first.slice(at), { newlines: false, tabs: false })
  return styled ? `${out}${RESET}` : out
}

/** Whether a painted status text shows anything (colours alone do not). */
export function hasVisibleText(text: string): boolean {
  return text.replace(SGR, '').trim() !== ''
}

export interface StatusLineRunnerOptions {
  settings: StatusLineSettings
  run(opts: RunCommandOptions): Promise<RawRun>
  cwd(): string
  env: NodeJS.ProcessEnv
  /** Each run's result: the line to show ('' shows none) or, once per kind of failure, why none. */
  onLine(text: string): void
  onProblem(message: string): void
  /** Why it must not run (provenance.ts), asked once before the first run; undefined to run. */
  vet?: (signal: AbortSignal) => Promise<string | undefined>
  debounceMs?: number
  timeoutMs?: number
  setTimer?: (fn: () => void, ms: number) => unknown
  clearTimer?: (handle: unknown) => void
}

export interface StatusLineRunner {
  /** The session's input now: runs (after the debounce) only when it differs from the last run's. */
  update(input: Record<string, unknown>): void
  /** Stops a run in progress and any pending one; nothing runs after. */
  stop(): Promise<void>
}

export const STATUS_LINE_DEBOUNCE_MS = 300
export const STATUS_LINE_TIMEOUT_MS = 5000

export function createStatusLineRunner(opts: StatusLineRunnerOptions): StatusLineRunner {
  const debounceMs = opts.debounceMs ?? STATUS_LINE_DEBOUNCE_MS
  const setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms))
  const clearTimer = opts.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>))
  const stopping = new AbortController()
  let lastKey: string | undefined
  let pending: Record<string, unknown> | undefined
  let timer: unknown
  let running: { abort: AbortController; done: Promise<void> } | undefined
  let vetted: Promise<string | undefined> | undefined
  const told = new Set<string>()
  const problem = (kind: string, message: string) => {
    if (told.has(kind)) return
    told.add(kind)
    opts.onProblem(message)
  }

  const start = () => {
    timer = undefined
    const input = pending
    if (!input || stopping.signal.aborted) return
    pending = undefined
    lastKey = changeKey(input)
    running?.abort.abort()
    const abort = new AbortController()
    const done = (async () => {
      vetted ??= opts.vet ? opts.vet(stopping.signal) : Promise.resolve(undefined)
      const refused = await vetted
      if (refused !== undefined) {
        problem('refused', `the status line command does not run: ${refused}`)
        return
      }
      if (abort.signal.aborted) return
      const run = await opts.run({
        command: opts.settings.command,
        input: JSON.stringify(input),
        cwd: opts.cwd(),
        env: opts.env,
        timeoutMs: opts.timeoutMs ?? STATUS_LINE_TIMEOUT_MS,
        signal: AbortSignal.any([abort.signal, stopping.signal]),
      })
      if (run.aborted || abort.signal.aborted) return
      if (run.spawnError)
        return problem('spawn', `the status line command could not start: ${run.spawnError}`)
      if (run.timedOut) {
        problem(
          'timeout',
          `the status line command took over ${(opts.timeoutMs ?? STATUS_LINE_TIMEOUT_MS) / 1000} s and was stopped`,
        )
        return
      }
      if (run.exitCode !== 0) {
        const why = cleanText(run.stderr.trim().split('\n')[0] ?? '', { newlines: false }).slice(0, 200)
        problem('exit', `the status line command exited with ${run.exitCode}${why ? `: ${why}` : ''}`)
      }
      opts.onLine(statusText(run.stdout))
    })()
    running = { abort, done }
    void done.finally(() => {
      if (running?.done === done) running = undefined
    })
  }

  return {
    update(input) {
      if (stopping.signal.aborted) return
      if (changeKey(input) === lastKey && pending === undefined) return
      pending = input
      if (timer === undefined) timer = setTimer(start, debounceMs)
    },
    async stop() {
      stopping.abort()
      if (timer !== undefined) clearTimer(timer)
      timer = undefined
      await running?.done
    },
  }
}
