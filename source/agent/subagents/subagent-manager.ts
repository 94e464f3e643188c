import type { Store } from '../../store/create-store.js'
import { formatOutcome, traceLine } from '../../tools/agent.js'
import { closestNames } from '../../tools/listing.js'
import {
  type AnyTool,
  type SubagentLauncher,
  type SubagentOutcome,
  type SubagentRequest,
  ToolError,
} from '../../tools/types.js'
import type { Announcement } from '../runtime/main-agent.js'
import { type PromptParts, subagentPrompt } from '../prompt/system-prompt.js'
import type { AgentJob } from './agent-job.js'
import { type ChildEvent, type SubagentHost, createChildRun } from './child-run.js'
import { type AgentProfile, allowsNesting, DEFAULT_SUBAGENT, toolNamesFor } from './agent-profiles.js'
import type { AgentChange } from './registry.js'
import { Slots } from './slots.js'
import type { TaskDirectory } from './task-directory.js'

/**
 * Starts subagents for the Agent tool: foreground ones (the call waits for the answer) and background
 * ones (a task `aN` the tasks pane lists). At most `maxParallel` run at once; more wait for a slot. A
 * subagent may start its own (foreground) subagents only when its profile lists Agent, and never deeper
 * than that one level. A finished background subagent is announced to the main session as a message
 * at its next step, never by editing its history.
 */

export interface SubagentManagerOptions {
  host: SubagentHost
  agents: { get(name: string): AgentProfile | undefined; list(): AgentProfile[] }
  /** Every tool of the session, Agent included, in catalog order (read when a subagent starts). */
  catalog(): readonly AnyTool[]
  prompts: PromptParts
  tasks: TaskDirectory
  maxParallel: number
}

/** The main session is depth 0; its subagents 1; theirs 2, which can start none. */
const MAX_DEPTH = 2

type Pending =
  | { kind: 'job'; job: AgentJob; outcome: SubagentOutcome }
  | { kind: 'agents'; change: AgentChange }

export class SubagentManager {
  private readonly opts: SubagentManagerOptions
  private readonly slots: Slots
  private readonly prompts = new Map<AgentProfile, string>()
  private readonly pending: Pending[] = []
  /** Ids of foreground subagents, for hooks (`agent_id`): f1, f2, … */
  private foregroundRuns = 0

  constructor(opts: SubagentManagerOptions) {
    this.opts = opts
    this.slots = new Slots(Math.max(1, opts.maxParallel))
  }

  /** The main session's launcher. */
  launcher(): SubagentLauncher {
    return this.launcherAt(1, this.slots, undefined)
  }

  /** Messages for the main session's next step; built now, so an answer TaskOutput already gave is not repeated. */
  takeAnnouncements(): Announcement[] {
    return this.pending
      .splice(0)
      .map((p) => (p.kind === 'job' ? jobAnnouncement(p.job, p.outcome) : agentsAnnouncement(p.change)))
  }

  /** A background subagent's live store, for its transcript view. */
  transcript(taskId: string): Store | null {
    return this.opts.tasks.agent(taskId)?.store() ?? null
  }

  /** Agents that appeared or went after a trust answer: told to the model as a message, never by a new tool definition. */
  agentsChanged(change: AgentChange): void {
    const added = change.added.filter((a) => !a.mainOnly)
    const removed = change.removed.filter((a) => !a.mainOnly)
    if (added.length === 0 && removed.length === 0) return
    this.pending.push({ kind: 'agents', change: { added, removed } })
    const names = (list: AgentProfile[]) => list.map((a) => a.name).join(', ')
    this.notice(
      'info',
      [
        added.length ? `New agents for the Agent tool: ${names(added)}.` : '',
        removed.length ? `No longer available: ${names(removed)}.` : '',
        'The model is told at its next step.',
      ]
        .filter(Boolean)
        .join(' '),
    )
  }

  private launcherAt(depth: number, slots: Slots, parentProfile: AgentProfile | undefined): SubagentLauncher {
    return {
      check: (request, mode) => {
        const profile = this.resolve(request.type)
        if (mode === 'plan' && profile.name !== 'plan') {
          throw new ToolError(
            'permission',
            `plan mode runs only plan subagents; "${profile.name}" is not allowed while planning`,
            {
              hint: 'Use subagent_type "plan" for research and planning, or ask the user to leave plan mode.',
            },
          )
        }
        if (depth > MAX_DEPTH || (depth > 1 && !parentProfile)) {
          throw new ToolError('permission', 'subagents cannot start subagents this deep (one level at most)')
        }
      },
      run: (request, { signal, onProgress }) =>
        this.runForeground(this.resolve(request.type), request, { depth, slots, signal, onProgress }),
      start: (request) => {
        if (depth > 1) {
          throw new ToolError('validation', "a subagent's own subagents run in the foreground only", {
            hint: 'Call Agent again without run_in_background.',
          })
        }
        return this.startBackground(this.resolve(request.type), request)
      },
    }
  }

  private resolve(type: string): AgentProfile {
    const profile = this.opts.agents.get(type)
    const names = () =>
      this.opts.agents
        .list()
        .filter((a) => !a.mainOnly)
        .map((a) => a.name)
    const types = () => names().join(', ')
    if (!profile) {
      const all = names()
      // Hundreds of agents: the closest names, not all of them.
      const close = closestNames(type, all)
      const hint =
        all.length <= 40
          ? `Use one of: ${types()}.`
          : `${close.length ? `Closest: ${close.join(', ')}. ` : ''}${all.length} agent types in all (${DEFAULT_SUBAGENT} for a general task).`
      throw new ToolError('not_found', `no agent type "${type}"`, { hint })
    }
    if (profile.mainOnly) {
      throw new ToolError('validation', `"${type}" is the main session's own agent, not a subagent type`, {
        hint: `Use one of: ${types()} (${DEFAULT_SUBAGENT} for a general task).`,
      })
    }
    return profile
  }

  private async runForeground(
    profile: AgentProfile,
    request: SubagentRequest,
    run: { depth: number; slots: Slots; signal: AbortSignal; onProgress(text: string): void },
  ): Promise<SubagentOutcome> {
    const progress = { steps: 0, tool: '', tokens: 0 }
    const show = () =>
      run.onProgress(
        `${profile.name}: step ${progress.steps}${progress.tool ? ` · ${progress.tool}` : ''} · ${compact(progress.tokens)} tokens`,
      )
    const release = await run.slots.acquire(run.signal, () =>
      run.onProgress(`${profile.name}: waiting for a free slot (${run.slots.busy} subagents running)`),
    )
    if (!release) return notStarted(profile, request, 'interrupted')
    try {
      const child = await this.child(profile, request, {
        depth: run.depth,
        id: `f${++this.foregroundRuns}`,
        label: `${profile.name} · ${request.description}`,
        onEvent: (event) => {
          if (event.kind === 'step') progress.steps = event.steps
          else if (event.kind === 'tool-started') progress.tool = event.summary
          else if (event.kind === 'tool-finished') progress.tool = ''
          else if (event.kind === 'usage') progress.tokens = event.tokens
          else return
          show()
        },
      })
      return await child.run(run.signal)
    } finally {
      release()
    }
  }

  private startBackground(profile: AgentProfile, request: SubagentRequest) {
    const { tasks, host } = this.opts
    const job = tasks.createAgent({
      type: profile.name,
      description: request.description,
      startedAt: host.now(),
    })
    job.progress({}, `${profile.name} agent started: ${request.description}`)
    void this.runBackground(job, profile, request)
    return job.summary()
  }

  private async runBackground(job: AgentJob, profile: AgentProfile, request: SubagentRequest): Promise<void> {
    let outcome: SubagentOutcome
    const release = await this.slots.acquire(job.signal, () =>
      job.progress({}, `waiting for a free slot (${this.slots.busy} subagents running)`),
    )
    if (!release) outcome = notStarted(profile, request, 'stopped')
    else {
      try {
        const child = await this.child(profile, request, {
          depth: 1,
          id: job.id,
          label: `${profile.name} ${job.id} · ${request.description}`,
          ownerTaskId: job.id,
          onEvent: (event) => backgroundEvent(job, event),
        })
        job.attach(child.store)
        outcome = await child.run(job.signal)
      } catch (err) {
        outcome = { ...notStarted(profile, request, 'error'), error: `the subagent failed: ${String(err)}` }
      } finally {
        release()
      }
    }
    const stopped = job.signal.aborted
    job.finish(
      stopped ? 'stopped' : outcome.status === 'completed' ? 'completed' : 'failed',
      formatOutcome(outcome),
    )
    this.pending.push({ kind: 'job', job, outcome })
    const idle = this.opts.host.mainStore.getState().run.phase === 'idle'
    this.notice(
      outcome.status === 'completed' || stopped ? 'info' : 'warn',
      `Background agent ${job.id} (${profile.name}: ${request.description}) ${stopped ? 'was stopped' : statusWords(outcome)} — ${traceLine(outcome)}. ` +
        (idle ? 'The model hears of it with your next message.' : 'The model hears of it at its next step.'),
    )
  }

  private async child(
    profile: AgentProfile,
    request: SubagentRequest,
    opts: {
      depth: number
      id: string
      label: string
      ownerTaskId?: string
      onEvent(event: ChildEvent): void
    },
  ) {
    // First: a custom agent's file is read now, and a failure to read it is the run's error.
    const systemPrompt = await this.promptFor(profile)
    const catalog = this.opts.catalog()
    const nesting = opts.depth < MAX_DEPTH && allowsNesting(profile)
    const names = new Set(
      toolNamesFor(
        profile,
        catalog.map((t) => t.name),
        { subagent: true, nesting },
      ),
    )
    return createChildRun(this.opts.host, {
      profile,
      request,
      systemPrompt,
      tools: catalog.filter((t) => names.has(t.name)),
      label: opts.label,
      id: opts.id,
      tasks: this.opts.tasks.owned(opts.ownerTaskId),
      ...(nesting
        ? { subagents: this.launcherAt(opts.depth + 1, new Slots(this.opts.maxParallel), profile) }
        : {}),
      onEvent: opts.onEvent,
    })
  }

  /**
   * Built once per profile, at its first run: every run of the same agent sends the same bytes (provider
   * caches). Only agents that ran have theirs in memory.
   */
  private async promptFor(profile: AgentProfile): Promise<string> {
    let prompt = this.prompts.get(profile)
    if (prompt === undefined) {
      prompt = subagentPrompt(this.opts.prompts, { prompt: await profile.instructions() })
      this.prompts.set(profile, prompt)
    }
    return prompt
  }

  private notice(level: 'info' | 'warn', text: string): void {
    const { mainStore, now } = this.opts.host
    mainStore.dispatch({
      type: 'notice/added',
      id: `agent-${now().toString(36)}-${this.pending.length}-${text.length}`,
      level,
      text,
    })
  }
}

function backgroundEvent(job: AgentJob, event: ChildEvent): void {
  switch (event.kind) {
    case 'step':
      job.progress({ steps: event.steps })
      return
    case 'tool-started':
      job.progress({ tool: event.summary })
      return
    case 'tool-finished': {
      const mark = event.status === 'done' ? '✓' : '✗'
      const detail =
        event.status === 'done' ? '' : ` — ${event.status}: ${event.preview.split('\n')[0] ?? ''}`
      job.progress({ tool: null }, `${mark} ${event.summary} (${Math.round(event.durationMs)} ms)${detail}`)
      return
    }
    case 'usage':
      job.progress({ tokens: event.tokens })
      return
    case 'notice':
      job.progress({}, `! ${event.text}`)
      return
  }
}

function notStarted(
  profile: AgentProfile,
  request: SubagentRequest,
  status: SubagentOutcome['status'],
): SubagentOutcome {
  return {
    type: profile.name,
    model: request.model ?? profile.model ?? '',
    status,
    text: '',
    steps: 0,
    maxTurns: request.maxTurns ?? profile.maxTurns ?? 0,
    tools: [],
    usage: { input: 0, output: 0, cached: 0 },
    durationMs: 0,
    stoppedJobs: [],
  }
}

function statusWords(outcome: SubagentOutcome): string {
  switch (outcome.status) {
    case 'completed':
      return 'finished'
    case 'max-turns':
      return `stopped at its turn limit (${outcome.maxTurns})`
    case 'error':
      return `failed (${outcome.error ?? 'error'})`
    default:
      return outcome.status
  }
}

function jobAnnouncement(job: AgentJob, outcome: SubagentOutcome): Announcement {
  const summary = job.summary()
  const head = `Background agent ${job.id} (${outcome.type}: ${summary.description ?? ''}) has ended: ${summary.status}.`
  const body = job.answerRead()
    ? 'You already read its answer with TaskOutput.'
    : `Its answer:\n${formatOutcome(outcome)}`
  return {
    content: `<background-agent id="${job.id}" status="${summary.status}">\n${head}\n${body}\n</background-agent>`,
    note: `background agent ${job.id} ${summary.status}: its result was given to the model`,
    taskId: job.id,
    label: `Background agent ${job.id}`,
  }
}

function agentsAnnouncement(change: AgentChange): Announcement {
  const lines = ['<agents-changed>']
  if (change.added.length) {
    lines.push("New agent types you can use as the Agent tool's subagent_type:")
    for (const a of change.added) lines.push(`- ${a.name}: ${a.description}`)
  }
  if (change.removed.length)
    lines.push(`No longer available: ${change.removed.map((a) => a.name).join(', ')}.`)
  lines.push('</agents-changed>')
  return { content: lines.join('\n'), note: 'the model was told which agents changed' }
}

function compact(n: number): string {
  return n < 1000 ? String(n) : `${(n / 1000).toFixed(1)}k`
}
