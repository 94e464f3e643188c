import { Announcements } from './announcements.js'
import { parseRule, type Rule } from '../../permissions/rules.js'
import type { ModeChange } from '../../permissions/modes.js'
import { type ModelProfile, resolveProfile } from '../../provider/model-profiles.js'
import type { Mode } from '../../store/domain.js'
import { type CommandTurns, createCommandTurns } from '../turn/command-turn.js'
import { ContextManager } from '../context/context-manager.js'
import type { CheckpointHook, ExecutorDeps } from '../tool-call/pipeline.js'
import type { Checkpoints } from '../../checkpoints/lazy.js'
import { fileMentions } from '../turn/mentions.js'
import { MessageIntake } from '../turn/message-intake.js'
import type { RuntimeOptions } from './options.js'
import { createRuntimeSettings, sessionSettings } from './settings.js'
import { createSessionHooks, type SessionHooks } from './lifecycle-hooks.js'
import { SessionTools } from './session-tools.js'
import { createToolHost, type ToolHost } from '../tool-call/tool-host.js'
import type { TurnDeps } from '../turn/loop.js'
import type { ToolReplyCheck } from '../turn/tool-reply-check.js'
import type { UserInput } from '../turn/user-input.js'

/** What the runtime drives: its tools, message intake, hooks, tool host and command turns. */
export interface RuntimeParts {
  tools: SessionTools
  intake: MessageIntake
  sessionHooks: SessionHooks | null
  host: ToolHost
  commandTurns: CommandTurns
  /** Finished background work and new skills, told to the model at its next step (watching jobs already). */
  announcements: Announcements
  /** The context economy for a system prompt (made anew when the main session switches agent). */
  newContext(systemPrompt: string): ContextManager
}

/** The runtime's own callbacks the parts are wired to (the runtime stays the only writer of turns). */
export interface RuntimeCallbacks {
  newId(prefix: string): string
  notice(level: 'info' | 'warn' | 'error', text: string): void
  now(): number
  /** The model of the turn running now. */
  model(): string
  setTurnModel(model: string | null): void
  setMode(mode: Mode): ModeChange
  setModel(model: string): void
  executorDeps(): ExecutorDeps
  /** The context economy in use now. */
  context(): ContextManager
}

/** Builds the parts once, for the runtime's constructor. */
export function createRuntimeParts(opts: RuntimeOptions, rt: RuntimeCallbacks): RuntimeParts {
  const { store } = opts
  const tools = new SessionTools({
    core: opts.tools,
    ...(opts.definitions ? { definitions: opts.definitions } : {}),
    mcpCore: opts.mcp?.tools ?? [],
    ...(opts.mcp ? { mcp: opts.mcp.runtime } : {}),
    store,
    newId: rt.newId,
    startupWaitMs: opts.mcp?.startupWaitMs ?? 0,
    ...(opts.toolList ? { only: opts.toolList } : {}),
    denyRules: () => bareDenyRules(opts.gate.describeRules().deny),
    window: () => {
      const context = rt.context()
      return { tokens: context.limit(), charsPerToken: context.profile().charToTokenRatio }
    },
    ...(opts.deferTools ? { deferMode: opts.deferTools } : {}),
  })
  const intake = new MessageIntake({
    mcp: opts.mcp?.runtime,
    spill: opts.spill,
    warn: (text) => rt.notice('warn', text),
    dispatch: store.dispatch,
    newId: rt.newId,
    files: fileMentions({
      workspace: opts.workspace,
      gate: opts.gate,
      // What the user mentions is theirs to read, whatever tools the model is offered.
      read: () => tools.own('Read'),
      // The host is built below; mentions are read only once a message arrives.
      context: (callId, signal) => host.context(signal, () => undefined, callId),
      spill: opts.spill,
      // A script sees refusals as notices; the TUI shows them on the message.
      ...(opts.interactive ? {} : { refused: (text: string) => rt.notice('warn', text) }),
    }),
  })
  const sessionHooks = opts.hooks
    ? // The host is made below; the hooks ask it only once a call runs.
      createSessionHooks({ ...opts, service: opts.hooks, newId: rt.newId, cwd: () => host.cwd() })
    : null
  const newContext = (systemPrompt: string) =>
    new ContextManager({
      store,
      provider: opts.provider,
      spill: opts.spill,
      systemPrompt,
      // Read at each use: the definitions are fixed when the first request goes out (SessionTools).
      get toolDefinitions() {
        return tools.definitions()
      },
      model: () => store.getState().session.model,
      profile: opts.profile ?? tableProfiles(),
      settings: opts.context ?? { masking: true },
      newId: rt.newId,
      now: rt.now,
      beforeCompact: async (trigger, focus, signal) => {
        if (opts.hookScope !== 'tools') await sessionHooks?.preCompact(trigger, focus, signal)
      },
    })
  const settings = createRuntimeSettings(
    sessionSettings({
      store,
      context: { window: () => rt.context().window(), compactAt: () => rt.context().compactAt() },
      setModel: rt.setModel,
    }),
  )
  const host = createToolHost({
    ...opts,
    settings,
    mode: () => store.getState().mode,
    ...(opts.canSwitchMode === false ? {} : { switchMode: rt.setMode }),
    supportsVision: () => opts.capabilities(rt.model()).supportsVision,
  })
  const commandTurns = createCommandTurns({
    executor: rt.executorDeps,
    toolContext: (signal, onProgress, callId) => host.context(signal, onProgress, callId),
    dispatch: store.dispatch,
    notice: (text) => rt.notice('info', text),
    // Its own id: a headless run writes it to stderr (run-headless.ts).
    warn: (text) =>
      store.dispatch({ type: 'notice/added', id: rt.newId('command-sandbox'), level: 'warn', text }),
    newId: rt.newId,
    setModel: rt.setTurnModel,
  })
  const announcements = new Announcements(store, (text) => rt.notice('info', text))
  announcements.watchTasks()
  if (opts.takeAnnouncements) announcements.addSource(opts.takeAnnouncements)
  return { tools, intake, sessionHooks, host, commandTurns, newContext, announcements }
}

/** The deny rules as the gate shows them, parsed (those that no longer parse take nothing out). */
function bareDenyRules(views: ReadonlyArray<{ text: string; source: string }>): Rule[] {
  return views.flatMap((view) => {
    try {
      return [parseRule(view.text, view.source)]
    } catch {
      return []
    }
  })
}

/** The built-in table's profile of each model id, resolved once (the context manager asks on every use). */
function tableProfiles(): (model: string) => ModelProfile {
  const resolved = new Map<string, ModelProfile>()
  return (model) => {
    const known = resolved.get(model)
    if (known !== undefined) return known
    const profile = resolveProfile(model)
    resolved.set(model, profile)
    return profile
  }
}

/** What the runtime hands a turn and its tool calls: read from the runtime at the moment a turn starts. */
export interface TurnSources {
  opts: RuntimeOptions
  tools: SessionTools
  host: ToolHost
  sessionHooks: SessionHooks | null
  systemPrompt: string
  context: ContextManager
  /** The session's first-turn probe (one per session, so it says its notice once). */
  toolReplyCheck?: ToolReplyCheck
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
    prepareStep: async (signal) => {
      await tools.prepare(signal)
      await opts.announcementsReady?.()
    },
    context: src.context,
    executor: executorDepsFor(src),
    get planModeToolNames() {
      return tools.planModeToolNames()
    },
    supportsAllowedTools: () => opts.capabilities(src.model()).supportsAllowedTools,
    textToolCalls: () => opts.capabilities(src.model()).textToolCalls,
    supportsVision: () => opts.capabilities(src.model()).supportsVision,
    maxSteps: opts.maxSteps,
    breaker: opts.breaker,
    interactive: opts.interactive,
    takeQueued: src.takeQueued,
    queuedCount: src.queuedCount,
    ...(src.sessionHooks && opts.hookScope !== 'tools' ? { hooks: src.sessionHooks.turn } : {}),
    newId: src.newId,
    now: src.now,
    ...(src.toolReplyCheck ? { toolReplyCheck: src.toolReplyCheck } : {}),
  }
}

/** The pipeline's snapshot hook: snapshots around the calls of the turn that is running. */
export function checkpointHook(checkpoints: Checkpoints, turnId: () => string | null): CheckpointHook {
  return {
    before: (kind) => checkpoints.beforeChange(turnId(), kind),
    after: () => checkpoints.afterChange(turnId()),
  }
}
