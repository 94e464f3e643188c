import { z } from 'zod'
import type { TaskSummary } from '../store/domain.js'
import { formatBytes, logCap } from '../tasks/log-cap.js'
import { describePorts } from '../tasks/port-text.js'
import type { TaskManagerApi } from '../tasks/types.js'
import { defineTool, type ToolContext, ToolError, type ToolSuccess } from './types.js'

const DEFAULT_TIMEOUT_MS = 30_000
const MAX_TIMEOUT_MS = 600_000
/** Output beyond this is cut to head and tail; the log file holds it (up to its cap). */
const MAX_OUTPUT_CHARS = 30_000
// The session's TaskManager uses the default log cap.
const LOG_CAP = logCap()

const DESCRIPTION = `Gets the status and new output of a background task (a Bash command run in the background, or a background agent).
- Returns the status (running, completed, failed, stopped), the exit code, the output produced since your previous TaskOutput call for that task, and the path of its log file (logs keep at most ${formatBytes(LOG_CAP.capBytes)}: the first ${formatBytes(LOG_CAP.headBytes)} and the latest output).
- block (default true) waits until the task ends or timeout ms pass (default ${DEFAULT_TIMEOUT_MS}, max ${MAX_TIMEOUT_MS}), then returns what there is; block: false returns at once.
- While a task runs, it lists the TCP ports it listens on ("Listening: 127.0.0.1:5173 → http://localhost:5173/"), found from its processes' sockets.
- Task ids look like "b1" (commands) or "a1" (background agents); they are given when a task starts. A background agent's output is its progress (one line per tool call) and, once it is done, its answer.
- To see older output again, Read the log file.`

const schema = z.strictObject({
  task_id: z.string().min(1).describe('Id of the background task, e.g. "b1"'),
  block: z.boolean().optional().describe('Wait for the task to finish (default true)'),
  timeout: z
    .number()
    .int()
    .min(0)
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe(
      `Maximum wait in milliseconds when block is true (default ${DEFAULT_TIMEOUT_MS}, max ${MAX_TIMEOUT_MS})`,
    ),
})

export type TaskOutputArgs = z.infer<typeof schema>

/** The task manager, or a ToolError when this session has none. */
export function requireTasks(ctx: ToolContext): TaskManagerApi {
  if (ctx.tasks) return ctx.tasks
  throw new ToolError('execution', 'background tasks are not available in this session', {
    hint: 'Run commands in the foreground with Bash instead.',
  })
}

/** The task's summary, or a not_found ToolError listing the known ids. */
export function requireTask(tasks: TaskManagerApi, id: string): TaskSummary {
  const task = tasks.get(id)
  if (task) return task
  const known = tasks.list()
  throw new ToolError(
    'not_found',
    known.length === 0
      ? `unknown task id "${id}"; no background tasks exist in this session`
      : `unknown task id "${id}"; known tasks: ${known.map((t) => `${t.id} (${t.status}: ${oneLine(t.command)})`).join(', ')}`,
    { hint: 'Use one of the listed ids exactly as given.' },
  )
}

/** `completed, exit code 0` / `running (pid 123)` */
export function describeStatus(task: Pick<TaskSummary, 'status' | 'exitCode' | 'pid'>): string {
  if (task.status === 'running') return task.pid !== undefined ? `running (pid ${task.pid})` : 'running'
  return task.exitCode === null ? task.status : `${task.status}, exit code ${task.exitCode}`
}

/** What a task is, for the model: a command's description (or the command), an agent's type and task. */
export function taskLabel(task: TaskSummary): string {
  return task.kind === 'agent' ? task.command : (task.description ?? task.command)
}

export function oneLine(command: string, max = 80): string {
  const line = command.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

const formatWait = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`)

function bound(output: string, logPath: string): string {
  if (output.length <= MAX_OUTPUT_CHARS) return output
  const half = MAX_OUTPUT_CHARS / 2
  const cut = output.length - MAX_OUTPUT_CHARS
  return `${output.slice(0, half)}\n[… ${cut} characters not shown; the log file is ${logPath} …]\n${output.slice(-half)}`
}

/** The TaskOutput tool: status and new output of a background task, optionally waiting for its end. */
export const taskOutputTool = defineTool<TaskOutputArgs>({
  name: 'TaskOutput',
  description: DESCRIPTION,
  schema,
  risk: 'read',
  isReadOnly: () => true,
  permissionTarget: () => ({ kind: 'none' }),
  preview: async (args) => ({ kind: 'json', text: `TaskOutput ${args.task_id}` }),
  summarize: (args) => `TaskOutput ${args.task_id}${args.block === false ? ' (no wait)' : ''}`,
  async execute(args, ctx): Promise<ToolSuccess> {
    const tasks = requireTasks(ctx)
    const task = requireTask(tasks, args.task_id)
    const block = args.block ?? true
    const timeoutMs = args.timeout ?? DEFAULT_TIMEOUT_MS
    const read = await tasks.read(task.id, { block, timeoutMs, signal: ctx.signal })
    const output = bound(read.output, read.logPath)
    const status = describeStatus({ status: read.status, exitCode: read.exitCode, pid: task.pid })
    const lines = [`Task ${task.id} (${oneLine(taskLabel(task))}): ${status}.`]
    if (read.status === 'running' && block && !ctx.signal.aborted) {
      lines.push(
        `It is still running after waiting ${formatWait(timeoutMs)}; call TaskOutput again to wait longer, or TaskStop to stop it.`,
      )
    }
    // Read after the wait: the ports of now, not of when the call began.
    const listening = describePorts(tasks.get(task.id)?.ports)
    for (const port of listening) lines.push(`Listening: ${port}`)
    lines.push(
      output === ''
        ? 'No new output since the last TaskOutput call.'
        : `Output since the last TaskOutput call:\n${output.replace(/\n$/, '')}`,
    )
    if (read.droppedBytes > 0) {
      lines.push(
        `${read.droppedBytes} bytes of this output were not kept in memory; the marker in it says where they are.`,
      )
    }
    lines.push(`Log file: ${read.logPath}`)
    return {
      forModel: lines.join('\n'),
      display: {
        kind: 'task',
        taskId: task.id,
        status: read.status,
        output,
        ...(listening.length > 0 ? { listening } : {}),
      },
    }
  },
})
