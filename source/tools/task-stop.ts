import { z } from 'zod'
import { describeStatus, oneLine, requireTask, requireTasks, taskLabel } from './task-output.js'
import { defineTool, type ToolSuccess } from './types.js'

const DESCRIPTION = `Stops a running background task by its id (e.g. "b1").
- The task's whole process tree gets SIGTERM, then SIGKILL if it is still there after 2 seconds.
- A background agent ("a1") is interrupted, and every job it started is stopped with it.
- Stopping a task that already finished changes nothing; the result says how it ended.
- Use TaskOutput afterwards to read what it printed last.`

const schema = z.strictObject({
  task_id: z.string().min(1).describe('Id of the background task to stop, e.g. "b1"'),
})

export type TaskStopArgs = z.infer<typeof schema>

/** The TaskStop tool: stops a background task's process group through the TaskManager. */
export const taskStopTool = defineTool<TaskStopArgs>({
  name: 'TaskStop',
  description: DESCRIPTION,
  schema,
  risk: 'exec',
  isReadOnly: () => false,
  permissionTarget: () => ({ kind: 'none' }),
  async preview(args, ctx) {
    const task = ctx.tasks?.get(args.task_id)
    return {
      kind: 'json',
      text: task ? `Stop ${task.id}: ${task.command} (${describeStatus(task)})` : `Stop ${args.task_id}`,
    }
  },
  summarize: (args) => `TaskStop ${args.task_id}`,
  async precheck(args, ctx) {
    requireTask(requireTasks(ctx), args.task_id)
  },
  async execute(args, ctx): Promise<ToolSuccess> {
    const tasks = requireTasks(ctx)
    const task = requireTask(tasks, args.task_id)
    const label = `${task.id} (${oneLine(taskLabel(task))})`
    if (task.status !== 'running') {
      return {
        forModel: `Task ${label} had already finished (${describeStatus(task)}); nothing to stop.`,
        display: { kind: 'task', taskId: task.id, status: task.status },
      }
    }
    const stopped = await tasks.stop(task.id)
    const outcome =
      stopped.status === 'stopped'
        ? `Stopped task ${label}: ${describeStatus(stopped)}.`
        : `Task ${label} ended on its own before it could be stopped (${describeStatus(stopped)}).`
    return {
      forModel: `${outcome} Its log: ${stopped.logPath}`,
      display: { kind: 'task', taskId: stopped.id, status: stopped.status },
    }
  },
})
