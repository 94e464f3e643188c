import { realpathSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { z } from 'zod'
import type { AnalyzedParts } from '../permissions/classifier.js'
import type { TaskSummary } from '../store/domain.js'
import { formatBytes, logCap } from '../tasks/log-cap.js'
import type { CommandSandbox } from '../sandbox/bash-sandbox.js'
import { createHeadTailBuffer, type HeadTailBuffer } from './head-tail-buffer.js'
import { displayPath, isInside } from './paths.js'
import { type ShellExit, startShell, withGitSafety } from './shell-process.js'
import { boundCommandOutput } from './spill.js'
import {
  defineTool,
  type SpillStream,
  type Tool,
  type ToolContext,
  ToolError,
  type ToolSuccess,
} from './types.js'

const DEFAULT_TIMEOUT_MS = 120_000
const MAX_TIMEOUT_MS = 600_000
const INLINE_CHARS = 30_000
// Output kept in memory for one command (for a hand-over to the TaskManager); beyond it the middle is
// dropped there. The inline view needs far less, and the full output streams to a spill file.
const MAX_KEPT_CHARS = 4_000_000
const PROGRESS_CHARS = 2_000
// The session's spill files use the default cap (see createOutputSpiller).
const SPILL_CAP = logCap()

const DESCRIPTION = `Runs a bash command and returns its output (stdout and stderr interleaved), exit code and duration.
- Runs \`bash -c\` in the current directory with stdin closed; do not start interactive programs (editors, pagers, prompts) — pass flags such as --yes or --no-pager.
- A \`cd\` persists between calls while it stays inside the workspace; environment variables and shell state do not.
- timeout is in milliseconds (default ${DEFAULT_TIMEOUT_MS}, max ${MAX_TIMEOUT_MS}); a command still running then keeps running as a background task whose id the result gives (where background tasks are unavailable it is stopped with its whole process tree).
- Output over ${INLINE_CHARS} characters is shortened to its start and end; the full output is saved to a file whose path is given (Read it). That file keeps at most ${formatBytes(SPILL_CAP.capBytes)}: the first ${formatBytes(SPILL_CAP.headBytes)} and the latest output.
- When the command ends, every process it left running is killed (\`cmd &\`, \`(cmd &)\`, \`nohup cmd &\`, output redirected or not). Use run_in_background for servers and watchers. Never start processes with setsid: they leave the command's process group, and nothing stops them, not even agent-tui's exit.
- Prefer the dedicated tools: Read/Write/Edit for files, Glob to find files, Grep to search contents.
- Quote paths that contain spaces. Chain dependent commands with &&.`

const schema = z.strictObject({
  command: z.string().min(1).describe('The bash command to run'),
  timeout: z
    .number()
    .int()
    .positive()
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe(`Timeout in milliseconds (default ${DEFAULT_TIMEOUT_MS}, max ${MAX_TIMEOUT_MS})`),
  description: z
    .string()
    .optional()
    .describe('What the command does, in 5–10 words (e.g. "Install dependencies", "Run unit tests")'),
  run_in_background: z
    .boolean()
    .optional()
    .describe('Run as a background task and return its id at once; read its output later with TaskOutput'),
})

export type BashArgs = z.infer<typeof schema>

export interface BashToolOptions {
  /**
   * Read-only command classifier (permissions module): read-only calls may run without consent and
   * concurrently. `analysis` is the command's one parse, from the resolved target, when there is one.
   */
  isReadOnlyCommand: (command: string, analysis?: AnalyzedParts) => boolean
}

/** Builds the Bash tool around the read-only command classifier it is given. */
export function createBashTool(opts: BashToolOptions): Tool<BashArgs> {
  return defineTool<BashArgs>({
    name: 'Bash',
    description: DESCRIPTION,
    schema,
    risk: 'exec',
    isReadOnly: (args, target) =>
      target?.kind === 'command' && target.analysis
        ? opts.isReadOnlyCommand(args.command, target.analysis)
        : opts.isReadOnlyCommand(args.command),
    permissionTarget: async (args, ctx) => {
      // Waits for the sandbox's one-time check, so the policy knows whether this command will be fenced.
      const status = await ctx.sandbox?.status()
      return status?.kind === 'on'
        ? { kind: 'command', command: args.command, sandbox: status.view }
        : { kind: 'command', command: args.command }
    },
    preview: async (args, ctx) => {
      const status = await ctx.sandbox?.status()
      return {
        kind: 'command',
        command: args.command,
        cwd: ctx.cwd(),
        ...(args.run_in_background ? { background: true } : {}),
        ...(status && ctx.sandbox ? { sandbox: { status: status.kind, network: ctx.sandbox.network } } : {}),
      }
    },
    summarize: (args) => `Bash ${oneLine(args.command)}`,
    execute: (args, ctx) => {
      // The command as the gate judged it carries its analysis: no second parse.
      const judged = ctx.permission?.kind === 'command' ? ctx.permission.analysis : undefined
      const readOnly = judged
        ? opts.isReadOnlyCommand(args.command, judged)
        : opts.isReadOnlyCommand(args.command)
      return args.run_in_background
        ? runInBackground(args, ctx, readOnly)
        : runForeground(args, ctx, readOnly)
    },
  })
}

function oneLine(command: string): string {
  const first = command.trim().split('\n')[0] ?? ''
  const line = first.length > 80 ? `${first.slice(0, 79)}…` : first
  return command.trim().includes('\n') && !line.endsWith('…') ? `${line} …` : line
}

async function runInBackground(args: BashArgs, ctx: ToolContext, readOnly: boolean): Promise<ToolSuccess> {
  if (!ctx.tasks) throw new ToolError('execution', 'background jobs are not available in this build')
  const sandbox = await sandboxFor(ctx)
  const task = ctx.tasks.launch({
    command: args.command,
    cwd: ctx.cwd(),
    env: withGitSafety(process.env, { readOnly }),
    ...(args.description ? { description: args.description } : {}),
    ...(sandbox ? { sandbox } : {}),
  })
  return {
    forModel: `Started background task ${task.id}${task.pid ? ` (pid ${task.pid})` : ''}. Read its output with TaskOutput (task_id "${task.id}"); stop it with TaskStop.`,
    display: { kind: 'task', taskId: task.id, status: task.status },
  }
}

async function runForeground(args: BashArgs, ctx: ToolContext, readOnly: boolean): Promise<ToolSuccess> {
  if (ctx.signal.aborted) throw new ToolError('aborted', 'The command was cancelled before it started.')
  const notes: string[] = []
  let cwd = ctx.cwd()
  // One stat call, made synchronously: awaiting it let the view render before the command had started.
  if (!isDirectory(cwd)) {
    notes.push(`The previous directory ${cwd} no longer exists; cwd reset to workspace.`)
    cwd = ctx.workspace
    ctx.setCwd(cwd)
  }
  const timeout = args.timeout ?? DEFAULT_TIMEOUT_MS
  const sandbox = await sandboxFor(ctx)
  let shell: ReturnType<typeof startShell>
  try {
    shell = startShell({
      command: args.command,
      cwd,
      readOnly,
      ...(ctx.processes ? { tracker: ctx.processes } : {}),
      ...(sandbox ? { sandbox } : {}),
      ...(ctx.programs ? { shell: ctx.programs.shell() } : {}),
    })
  } catch (error) {
    throw new ToolError(
      'execution',
      `Could not start ${sandbox ? 'the sandboxed command' : 'bash'}: ${errorMessage(error)}`,
    )
  }
  const output = createHeadTailBuffer(MAX_KEPT_CHARS)
  const spill = createSpill(ctx)
  shell.onOutput((chunk) => {
    output.append(chunk)
    // The full output goes to a file once it is too long to show inline; memory only keeps head and tail.
    spill.follow(output, chunk)
    ctx.onProgress(output.tail(PROGRESS_CHARS))
  })
  const adopt = ctx.tasks?.adopt?.bind(ctx.tasks)
  let task: TaskSummary | undefined
  /** Moves the running command to the TaskManager; undefined when there is none or the command ended. */
  const moveToBackground = (): TaskSummary | undefined => {
    if (task || !adopt) return task
    task = shell.handOver((child) =>
      adopt({
        child,
        command: args.command,
        cwd,
        ...(args.description ? { description: args.description } : {}),
        initialOutput: output.text(
          spill.stream ? `the output before the hand-over is in ${spill.stream.path}` : undefined,
        ),
        // The tool result shows this output, so the first TaskOutput read starts after it.
        initialOutputSeen: true,
        startedAt: shell.startedAt,
      }),
    )
    return task
  }
  let timedOut = false
  let aborted = false
  const timer = setTimeout(() => {
    timedOut = true
    try {
      if (moveToBackground()) return
    } catch (error) {
      notes.push(`It could not be moved to the background: ${errorMessage(error)}`)
    }
    void shell.kill()
  }, timeout)
  const onAbort = (): void => {
    aborted = true
    void shell.kill()
  }
  ctx.signal.addEventListener('abort', onAbort, { once: true })
  // The signal may have fired while the cwd was being checked; 'abort' does not fire twice.
  if (ctx.signal.aborted) onAbort()
  const unregister = ctx.foreground?.register({
    command: args.command,
    background: () => {
      const moved = moveToBackground()
      if (moved) return moved.id
      throw new Error(
        adopt ? 'the command has already finished or is being stopped' : 'background tasks are not available',
      )
    },
  })
  let exit: ShellExit | 'handed-over'
  try {
    exit = await shell.exited
  } catch (error) {
    throw new ToolError('execution', `Could not start bash: ${errorMessage(error)}`)
  } finally {
    clearTimeout(timer)
    ctx.signal.removeEventListener('abort', onAbort)
    unregister?.()
    spill.close()
  }
  if (exit === 'handed-over' && task) return movedResult(args, { task, timedOut, timeout, output, spill })
  if (exit === 'handed-over') throw new Error('the command was handed over but no task was recorded')
  const seconds = `${(exit.durationMs / 1000).toFixed(1)} s`
  if (aborted) {
    const partial = output.tail(2_000)
    throw new ToolError(
      'aborted',
      `The command was interrupted after ${seconds} and its process group was killed.${partial ? `\nLast output:\n${partial}` : ''}`,
    )
  }

  if (!timedOut) notes.push(...followCwd(exit, cwd, ctx))
  if (sandbox && exit.exitCode !== 0 && ctx.sandbox) notes.push(sandboxNote(ctx.sandbox.network))
  if (exit.killedLeftovers) {
    notes.push(
      'Background processes started by the command were stopped when it ended; use run_in_background for long-running processes.',
    )
  }
  const bounded = boundCommandOutput(output, { limit: INLINE_CHARS, ...spill.result() })
  const status = timedOut
    ? `Command timed out after ${timeout} ms and was stopped (its whole process group was killed).`
    : exit.exitCode !== null
      ? `Exit code ${exit.exitCode} · ${seconds}`
      : `Killed by ${exit.signal ?? 'a signal'} · ${seconds}`
  const body = bounded.text === '' ? '(no output)' : bounded.text.replace(/\n$/, '')
  return {
    forModel: [body, '', status, ...notes].join('\n'),
    display: {
      kind: 'command',
      command: args.command,
      exitCode: exit.exitCode,
      output: bounded.text,
      truncated: bounded.truncated,
      ...(timedOut ? { timedOut: true } : {}),
      ...(sandbox ? { sandboxed: true } : {}),
    },
    ...(timedOut || exit.exitCode !== 0 ? { failed: true } : {}),
  }
}

/** The result of a command that keeps running as a background task (timeout or Ctrl+B). */
function movedResult(
  args: BashArgs,
  moved: { task: TaskSummary; timedOut: boolean; timeout: number; output: HeadTailBuffer; spill: Spill },
): ToolSuccess {
  const { task, timedOut, timeout, output, spill } = moved
  const bounded = boundCommandOutput(output, { limit: INLINE_CHARS, ...spill.result() })
  const why = timedOut
    ? `Command is still running after its ${timeout} ms timeout; it was not stopped but moved to background task ${task.id}.`
    : `The user moved the still-running command to background task ${task.id}.`
  const body = bounded.text === '' ? '(no output yet)' : bounded.text.replace(/\n$/, '')
  return {
    forModel: [
      why,
      'Output so far:',
      body,
      '',
      `Use TaskOutput with task_id "${task.id}" to read more (it starts after the output above), TaskStop to stop it.`,
    ].join('\n'),
    display: {
      kind: 'command',
      command: args.command,
      exitCode: null,
      output: bounded.text,
      truncated: bounded.truncated,
      taskId: task.id,
      ...(timedOut ? { timedOut: true } : {}),
    },
  }
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * The sandbox to run in, when the session has one that works. When the session asked for one that is
 * unavailable the command runs without it: the policy asked the user first (never a silent fallback).
 */
async function sandboxFor(ctx: ToolContext): Promise<CommandSandbox | undefined> {
  const status = await ctx.sandbox?.status()
  return status?.kind === 'on' ? status.sandbox : undefined
}

/** Said when a sandboxed command fails, so the model can tell a fenced write from a real error. */
function sandboxNote(network: boolean): string {
  return (
    'It ran in the OS sandbox: only the workspace (and added directories), the temp dir and the session outputs are writable; ' +
    `.git/, .agent-tui/, .claude/ and .mcp.json are read-only at any depth, AGENTS.md and CLAUDE.md at the top${network ? '' : '; there is no network'}; Unix sockets (Docker, D-Bus, ` +
    "ssh/gpg agents) are refused and agent-tui's own state, shell histories and secret stores are hidden. A write or connection the sandbox " +
    'blocks fails with errors such as "Read-only file system", "Network is unreachable" or "Operation not permitted" — do not retry it; ' +
    'if it is needed, ask the user to run it outside the sandbox (typing `! <command>` at the prompt does).'
  )
}

/** The spill file of one command, opened when its output first grows past what is shown inline. */
interface Spill {
  readonly stream: SpillStream | undefined
  follow(output: HeadTailBuffer, chunk: string): void
  close(): void
  result(): { spill: SpillStream | undefined; spillError: string | undefined }
}

function createSpill(ctx: ToolContext): Spill {
  let stream: SpillStream | undefined
  let openError: string | undefined
  return {
    get stream() {
      return stream
    },
    follow(output, chunk) {
      if (stream) {
        stream.write(chunk)
        return
      }
      if (openError !== undefined || output.totalChars <= INLINE_CHARS) return
      try {
        stream = ctx.spill.open('bash')
        // Memory still holds every character: MAX_KEPT_CHARS is far above the inline limit plus a chunk.
        stream.write(output.text())
      } catch (error) {
        openError = errorMessage(error)
      }
    },
    close: () => stream?.close(),
    result: () => ({ spill: stream, spillError: openError }),
  }
}

/**
 * Applies a `cd` the command made: kept inside the workspace, otherwise cwd goes back to the workspace.
 * Synchronous, as the shell's own exit handling: nothing may wait between a command's end and its result.
 */
function followCwd(exit: ShellExit, before: string, ctx: ToolContext): string[] {
  if (!exit.cwd) return []
  const realBefore = realpathOr(before)
  if (exit.cwd === realBefore) return []
  const realWorkspace = realpathOr(ctx.workspace)
  if (!isInside(realWorkspace, exit.cwd)) {
    ctx.setCwd(ctx.workspace)
    return [`cwd reset to workspace (${ctx.workspace}): ${exit.cwd} is outside it.`]
  }
  // Keep the workspace's own spelling when it is reached through a symlink.
  const next = join(ctx.workspace, relative(realWorkspace, exit.cwd))
  ctx.setCwd(next)
  return [`cwd is now ${displayPath(next, ctx.workspace)}`]
}
