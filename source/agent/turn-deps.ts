import type { TurnDeps } from './loop.js'
import type { ContextManager } from './context/manager.js'
import { checkpointHook } from './checkpoint-hook.js'
import type { ExecutorDeps } from './executor.js'
import type { RuntimeOptions } from './runtime-options.js'
import type { SessionHooks } from './session-hooks.js'
import type { SessionTools } from './session-tools.js'
import type { ToolHost } from './tool-host.js'
import type { UserInput } from './user-input.js'

/** What the runtime hands a turn and its tool calls: read from the runtime at the moment a turn starts. */
export interface TurnSources {
  opts: RuntimeOptions
  tools: SessionTools
  host: ToolHost
  sessionHooks: SessionHooks | null
  systemPrompt: string
  context: ContextManager
  /** The model of the turn running now (a user command may choose one). */
  model(): string
  newId(prefix: string): string
  now(): number
  /** At each step: what the model is told first (mode changes, new skills, subagents), then queued messages. */
  takeQueued(): UserInput[]
  queuedCount(): number
}

export function executorDepsFor(src: TurnSources): ExecutorDeps {
  const { opts, host } = src
  const store = opts.store
  return {
    tools: src.tools.lookup,
    gate: opts.gate,
    dispatch: store.dispatch,
    makeContext: (signal, onProgress, callId) => {
      // The first tool call of a session brings the shadow index up to date in the background.
      opts.checkpoints?.warm()
      return host.context(signal, onProgress, callId)
    },
    now: src.now,
    ...(opts.unasked ? { unasked: opts.unasked } : {}),
    ...(src.sessionHooks ? { hooks: src.sessionHooks.tool } : {}),
    ...(opts.checkpoints
      ? {
          checkpoint: checkpointHook(
            opts.checkpoints,
            opts.checkpointTurn ?? (() => store.getState().run.turnId),
          ),
        }
      : {}),
  }
}

export function turnDepsFor(src: TurnSources): TurnDeps {
  const { opts, tools } = src
  return {
    store: opts.store,
    provider: opts.provider,
    model: src.model,
    systemPrompt: src.systemPrompt,
    get toolDefinitions() {
      return tools.definitions()
    },
    prepareStep: (signal) => tools.prepare(signal),
    context: src.context,
    executor: executorDepsFor(src),
    get planModeToolNames() {
      return tools.planModeToolNames()
    },
    supportsAllowedTools: () => opts.capabilities(src.model()).supportsAllowedTools,
    supportsVision: () => opts.capabilities(src.model()).supportsVision,
    maxSteps: opts.maxSteps,
    breaker: opts.breaker,
    interactive: opts.interactive,
    takeQueued: src.takeQueued,
    queuedCount: src.queuedCount,
    ...(src.sessionHooks && opts.hookScope !== 'tools' ? { hooks: src.sessionHooks.turn } : {}),
    newId: src.newId,
    now: src.now,
  }
}
