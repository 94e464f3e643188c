import type { TaskSummary } from '../../store/domain.js'
import type { AdoptOptions, TaskManager } from '../../tasks/task-manager.js'
import type { LaunchOptions, ServiceJob, TaskAdopter, TaskManagerApi } from '../../tasks/types.js'
import { type AgentJob, type AgentJobInit, createAgentJob } from './agent-job.js'

/**
 * One place for every background job of a session: the TaskManager's shell jobs (`b1`…) and background
 * subagents (`a1`…). TaskOutput, TaskStop, the tasks pane and the exit path all go through it. It also
 * knows who started what: a job a subagent starts belongs to it and is stopped with it.
 */

export type TaskView = TaskManagerApi & TaskAdopter

/** The jobs of one subagent: what it launches is recorded; `stopOwned` stops what still runs. */
export interface OwnedTasks extends TaskView {
  /** Stops everything this owner started that still runs; resolves with their ids. */
  stopOwned(): Promise<string[]>
  /** Records a background subagent this owner started (it registers itself with the directory). */
  claim(summary: TaskSummary): TaskSummary
}

export interface TaskDirectory extends TaskView {
  /** Registers a background subagent; its id is the next `aN`. */
  createAgent(init: Omit<AgentJobInit, 'id' | 'logPath' | 'onUpdate' | 'now'>): AgentJob
  agent(id: string): AgentJob | undefined
  /** A view for a subagent: its launches are its own. `ownerTaskId`: shown on its jobs' rows. */
  owned(ownerTaskId?: string): OwnedTasks
  /** Adds the owner to a shell job's summary (for the TaskManager's updates to the store). */
  decorate(summary: TaskSummary): TaskSummary
  /** Registers a service's job (CodeSearch's index, `i1`…), made with its id and log path. */
  addJob(make: (place: { id: string; logPath: string; privateRoot: string }) => ServiceJob): ServiceJob
}

export function createTaskDirectory(opts: {
  processes: TaskManager
  /** Where agent logs go: `<logDir>/a1.log`. */
  logDir: string
  /** At or above `logDir`, the directory whose own path is trusted (see AgentJobInit.privateRoot). */
  privateRoot?: string
  onUpdate(summary: TaskSummary): void
  now?: () => number
}): TaskDirectory {
  const { processes } = opts
  const now = opts.now ?? Date.now
  const agents = new Map<string, AgentJob>()
  const jobs = new Map<string, ServiceJob>()
  /** Task id → the background subagent that started it. */
  const owners = new Map<string, string>()

  const decorate = (summary: TaskSummary): TaskSummary => {
    const owner = owners.get(summary.id)
    return owner ? { ...summary, owner } : summary
  }
  const agentSummary = (job: AgentJob) => decorate(job.summary())

  const get = (id: string): TaskSummary | undefined => {
    const job = agents.get(id)
    if (job) return agentSummary(job)
    const service = jobs.get(id)
    if (service) return service.summary()
    const task = processes.get(id)
    return task ? decorate(task) : undefined
  }
  const list = (): TaskSummary[] => [
    ...processes.list().map(decorate),
    ...[...agents.values()].map(agentSummary),
    ...[...jobs.values()].map((j) => j.summary()),
  ]
  const unknown = (id: string) => {
    const known = list().map((t) => t.id)
    return new Error(
      known.length === 0
        ? `unknown task id "${id}"; no background tasks exist`
        : `unknown task id "${id}"; known: ${known.join(', ')}`,
    )
  }
  const stop = async (id: string): Promise<TaskSummary> => {
    const job = agents.get(id)
    if (job) return decorate(await job.stop())
    const service = jobs.get(id)
    if (service) return service.stop()
    if (!processes.get(id)) throw unknown(id)
    return decorate(await processes.stop(id))
  }

  const directory: TaskDirectory = {
    launch: (o: LaunchOptions) => decorate(processes.launch(o)),
    adopt: (o) => decorate(processes.adopt(o as AdoptOptions)),
    get,
    list,
    read: async (id, readOpts) => {
      const job = agents.get(id)
      if (job) return job.read(readOpts)
      const service = jobs.get(id)
      if (service) return service.read(readOpts)
      if (!processes.get(id)) throw unknown(id)
      return processes.read(id, readOpts)
    },
    stop,
    async stopAll() {
      await Promise.all([
        ...[...agents.values()].filter((j) => j.summary().status === 'running').map((j) => j.stop()),
        ...[...jobs.values()].filter((j) => j.summary().status === 'running').map((j) => j.stop()),
        processes.stopAll(),
      ])
    },
    createAgent(init) {
      const id = `a${agents.size + 1}`
      const job = createAgentJob({
        ...init,
        id,
        logPath: `${opts.logDir}/${id}.log`,
        ...(opts.privateRoot !== undefined && { privateRoot: opts.privateRoot }),
        now,
        onUpdate: (summary) => opts.onUpdate(decorate(summary)),
      })
      agents.set(id, job)
      return job
    },
    agent: (id) => agents.get(id),
    addJob(make) {
      const id = `i${jobs.size + 1}`
      const job = make({
        id,
        logPath: `${opts.logDir}/${id}.log`,
        privateRoot: opts.privateRoot ?? opts.logDir,
      })
      jobs.set(id, job)
      return job
    },
    owned(ownerTaskId) {
      const mine = new Set<string>()
      const own = (summary: TaskSummary): TaskSummary => {
        mine.add(summary.id)
        if (!ownerTaskId) return summary
        owners.set(summary.id, ownerTaskId)
        const decorated = decorate(summary)
        // The first update went out before the owner was known.
        opts.onUpdate(decorated)
        return decorated
      }
      return {
        ...directory,
        launch: (o) => own(processes.launch(o)),
        adopt: (o) => own(processes.adopt(o as AdoptOptions)),
        claim: own,
        async stopOwned() {
          const running = [...mine].filter((id) => get(id)?.status === 'running')
          await Promise.all(running.map((id) => stop(id).catch(() => undefined)))
          return running
        },
        stopAll: async () => {
          await Promise.all([...mine].map((id) => stop(id).catch(() => undefined)))
        },
      }
    },
    decorate,
  }
  return directory
}
