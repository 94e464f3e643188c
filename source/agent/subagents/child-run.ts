import type { Checkpoints } from '../../checkpoints/lazy.js'
import type { HookService } from '../../user-hooks/hook-service.js'
import type { QuestionBroker } from '../../permissions/question-broker.js'
import type { BashSandbox } from '../../sandbox/bash-sandbox.js'
import type { HostPrograms } from '../../util/host-programs.js'
import type { UnaskedCall } from '../tool-call/pipeline.js'
import type { ProcessGroupTracker } from '../../tasks/process-groups.js'
import { addUsage, ZERO_USAGE } from '../../store/messages.js'
import type { ChatProvider } from '../../provider/types.js'
import type { Action } from '../../store/actions.js'
import { createStore, type Store } from '../../store/create-store.js'
import type { TurnResult } from '../../store/domain.js'
import { initialState, type State } from '../../store/state.js'
import { createFileStateTracker } from '../../tools/file-state.js'
import type {
  AnyTool,
  OutputSpiller,
  SubagentLauncher,
  SubagentOutcome,
  SubagentRequest,
  SubagentStatus,
} from '../../tools/types.js'
import type { ModelProfile } from '../../provider/model-profiles.js'
import type { CircuitBreakerConfig } from '../turn/circuit-breaker.js'
import type { ContextSettings } from '../context/context-manager.js'
import type { DefinitionBuilder } from '../prompt/tool-definitions.js'
import type { DeferMode } from '../toolset/deferral.js'
import type { ToolList } from '../toolset/mask.js'
import { type ModelCapabilities, Runtime, type RuntimeOptions } from '../runtime/runtime.js'
import { childGate } from './child-gate.js'
import { type AgentProfile, withholdsMcp } from './agent-profiles.js'
import type { OwnedTasks } from './task-directory.js'

/**
 * One subagent run: a child `Runtime` — the same loop, executor and request assembly as the main session
 * — with its own store (history, transcript, usage), system prompt and tool set, on the same provider.
 * Its permission requests go to the main session's prompt, labelled; its tokens count in the session's.
 */

/** What the parent session lends its subagents. */
export interface SubagentHost {
  /** The main session's store: mode, turn, usage totals and notices. */
  mainStore: Store
  provider: ChatProvider
  gate: RuntimeOptions['gate']
  workspace: string
  sessionId: string
  spill: OutputSpiller
  capabilities(model: string): ModelCapabilities
  /** Turn limit of a profile that sets none (the session's step cap). */
  defaultMaxTurns: number
  breaker: CircuitBreakerConfig
  questions?: QuestionBroker
  checkpoints?: Checkpoints
  /** The session's tool definitions, generated once per tool. */
  definitions?: DefinitionBuilder
  /** Model profiles and context settings: a subagent's history is masked and compacted like the main one. */
  profile?: (model: string) => ModelProfile
  context?: ContextSettings
  /**
   * The session's MCP servers: their tools go to subagents whose agent takes every tool (no `tools`
   * list, not read-only), fixed at their first request like the main session's.
   */
  mcp?: RuntimeOptions['mcp']
  /** The OS sandbox Bash runs in: a subagent's commands are fenced like the main session's. */
  sandbox?: BashSandbox
  /** bash and ripgrep by absolute path, outside the workspace (the main session's). */
  programs?: HostPrograms
  /** Told before a call nobody was asked about runs (the main session's window opens). */
  unasked?: (call: UnaskedCall) => void
  /** The session's hooks: PreToolUse and PostToolUse run for a subagent's calls too. */
  hooks?: HookService
  /** SubagentStop (the main session's hooks): feedback that keeps the subagent working, or null. */
  subagentStop?(
    input: {
      stopHookActive: boolean
      agentId: string
      agentType: string
      lastText: string
      continuations: number
    },
    signal: AbortSignal,
  ): Promise<{ continueWith: string | null }>
  /** Live foreground process groups (killed on every exit path): a subagent's commands are tracked too. */
  processes?: ProcessGroupTracker
  /** `--tools` / the `tools` setting: a subagent is offered no tool the session is not. */
  toolList?: ToolList
  /** `deferTools`, as the main session's. */
  deferTools?: DeferMode
  /** Told of each file a subagent's file tools write (CodeSearch updates it before its next query). */
  onWrite?: (absPath: string) => void
  now(): number
}

/** What a running subagent reports, for a progress line, a task row and a log. */
export type ChildEvent =
  | { kind: 'step'; steps: number }
  | { kind: 'tool-started'; summary: string }
  | { kind: 'tool-finished'; summary: string; status: string; durationMs: number; preview: string }
  | { kind: 'usage'; tokens: number }
  | { kind: 'notice'; level: string; text: string }

export interface ChildSpec {
  profile: AgentProfile
  request: SubagentRequest
  systemPrompt: string
  tools: AnyTool[]
  /** Shown on its consent prompts: `explore a1 · Find the tests`. */
  label: string
  /** Its id for hooks (`agent_id`): the task id of a background one, else one the manager gives it. */
  id: string
  tasks: OwnedTasks
  /** Present when this child may start subagents of its own. */
  subagents?: SubagentLauncher
  onEvent(event: ChildEvent): void
}

export interface ChildRun {
  readonly store: Store
  readonly model: string
  readonly maxTurns: number
  /** Runs the child's one turn; resolves (never rejects) once it ended and its own jobs are stopped. */
  run(signal: AbortSignal): Promise<SubagentOutcome>
}

export function createChildRun(host: SubagentHost, spec: ChildSpec): ChildRun {
  const { profile, request } = spec
  const main = host.mainStore.getState()
  const model = request.model ?? profile.model ?? main.session.model
  const limit = profile.maxTurns ?? host.defaultMaxTurns
  const maxTurns = request.maxTurns ? Math.min(request.maxTurns, limit) : limit
  const tools = new Map<string, number>()
  // Called with the state the action produced (the store publishes it only afterwards).
  const observe = (action: Action, state: State) => {
    switch (action.type) {
      case 'step/started':
        spec.onEvent({ kind: 'step', steps: action.step })
        return
      case 'tool/started':
        spec.onEvent({ kind: 'tool-started', summary: action.summary })
        return
      case 'tool/finished':
        tools.set(action.name, (tools.get(action.name) ?? 0) + 1)
        spec.onEvent({
          kind: 'tool-finished',
          summary: action.summary,
          status: action.status,
          durationMs: action.durationMs,
          preview: action.preview,
        })
        return
      case 'usage/recorded': {
        host.mainStore.dispatch({ type: 'usage/subagent', usage: action.usage, agent: spec.label })
        const used = state.usage.session
        spec.onEvent({ kind: 'usage', tokens: used.input + used.output })
        return
      }
      case 'notice/added':
        if (action.level !== 'info') spec.onEvent({ kind: 'notice', level: action.level, text: action.text })
        return
    }
  }
  const store = createStore(
    initialState(
      {
        id: `${host.sessionId}/${spec.label}`,
        cwd: host.workspace,
        model,
        baseUrl: main.session.baseUrl,
        title: request.description,
        startedAt: host.now(),
      },
      main.mode,
    ),
    observe,
  )
  const runtime = new Runtime({
    store,
    provider: host.provider,
    tools: spec.tools,
    gate: childGate(host.gate, { readOnly: profile.readOnly, label: spec.label, name: profile.name }),
    workspace: host.workspace,
    sessionId: host.sessionId,
    // Its own record: a subagent must Read a file before it edits it, like any agent.
    files: createFileStateTracker(host.onWrite ? { onWrite: host.onWrite } : {}),
    spill: host.spill,
    systemPrompt: spec.systemPrompt,
    capabilities: host.capabilities,
    ...(host.profile ? { profile: host.profile } : {}),
    ...(host.context ? { context: host.context } : {}),
    maxSteps: maxTurns,
    breaker: host.breaker,
    // Nobody can answer "continue?" for it: the breaker's headless behaviour applies.
    interactive: false,
    tasks: spec.tasks,
    ...(host.processes ? { processes: host.processes } : {}),
    ...(host.sandbox ? { sandbox: host.sandbox } : {}),
    ...(host.programs ? { programs: host.programs } : {}),
    ...(host.unasked ? { unasked: host.unasked } : {}),
    ...(host.mcp && profile.tools === null && !profile.readOnly && !withholdsMcp(profile)
      ? { mcp: host.mcp }
      : {}),
    ...(host.questions ? { questions: host.questions } : {}),
    ...(host.checkpoints
      ? {
          checkpoints: host.checkpoints,
          // Its changes belong to the main session's turn (the last one when it runs between turns).
          checkpointTurn: () => {
            const state = host.mainStore.getState()
            return state.run.turnId ?? state.turns.at(-1)?.id ?? null
          },
        }
      : {}),
    ...(spec.subagents ? { subagents: spec.subagents } : {}),
    canSwitchMode: false,
    ...(host.hooks ? { hooks: host.hooks, hookScope: 'tools' as const } : {}),
    ...(host.definitions ? { definitions: host.definitions } : {}),
    ...(host.toolList ? { toolList: host.toolList } : {}),
    ...(host.deferTools ? { deferTools: host.deferTools } : {}),
    now: host.now,
  })

  /** A SubagentStop hook may keep a subagent that finished working (bounded, like Stop). */
  const keepWorking = async (first: TurnResult, signal: AbortSignal): Promise<TurnResult> => {
    let result = first
    for (let continuations = 0; host.subagentStop && result.kind === 'completed' && !signal.aborted; ) {
      const { continueWith } = await host.subagentStop(
        {
          stopHookActive: continuations > 0,
          agentId: spec.id,
          agentType: profile.name,
          lastText: result.text,
          continuations,
        },
        signal,
      )
      if (!continueWith || signal.aborted) break
      continuations++
      const more = await runtime.runTurn({ text: continueWith })
      result = { ...more, steps: result.steps + more.steps }
    }
    return result
  }

  return {
    store,
    model,
    maxTurns,
    async run(signal) {
      const started = host.now()
      // The parent's mode bounds the child's: it follows every change while it runs.
      const unfollow = host.mainStore.subscribe(() => {
        const mode = host.mainStore.getState().mode
        if (store.getState().mode !== mode) store.dispatch({ type: 'mode/changed', mode })
      })
      const interrupt = () => runtime.interrupt()
      signal.addEventListener('abort', interrupt, { once: true })
      let result: TurnResult
      try {
        result = signal.aborted
          ? { kind: 'interrupted', text: '', steps: 0 }
          : await runtime.runTurn({ text: request.prompt })
        result = await keepWorking(result, signal)
      } catch (err) {
        result = { kind: 'error', text: '', error: `the subagent failed: ${String(err)}`, steps: 0 }
      } finally {
        signal.removeEventListener('abort', interrupt)
        unfollow()
      }
      // Not runtime.shutdown(): the questions broker and checkpoints it holds are the main session's.
      const stoppedJobs = await spec.tasks.stopOwned()
      const usage = store.getState().usage.session
      return {
        type: profile.name,
        model,
        status: statusOf(result),
        text: result.text,
        ...(result.error ? { error: result.error } : {}),
        steps: result.steps,
        maxTurns,
        tools: [...tools.entries()],
        usage: addUsage(ZERO_USAGE, usage),
        durationMs: host.now() - started,
        stoppedJobs,
      }
    },
  }
}

function statusOf(result: TurnResult): SubagentStatus {
  switch (result.kind) {
    case 'completed':
      return 'completed'
    case 'max-steps':
      return 'max-turns'
    case 'interrupted':
      return 'interrupted'
    case 'stopped':
      return 'stopped'
    default:
      return 'error'
  }
}
