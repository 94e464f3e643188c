import { Announcements } from './announcements.js'
import type { ModeChange } from '../permissions/modes.js'
import { type ModelProfile, resolveProfile } from '../provider/profiles.js'
import type { Mode } from '../store/domain.js'
import { type CommandTurns, createCommandTurns } from './command-turn.js'
import { ContextManager } from './context/manager.js'
import type { ExecutorDeps } from './executor.js'
import { fileMentions } from './mentions.js'
import { MessageIntake } from './message-intake.js'
import type { RuntimeOptions } from './runtime-options.js'
import { createRuntimeSettings, sessionSettings } from './runtime-settings.js'
import { createSessionHooks, type SessionHooks } from './session-hooks.js'
import { SessionTools } from './session-tools.js'
import { createToolHost, type ToolHost } from './tool-host.js'

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
      read: () => tools.lookup.get('Read'),
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
    newId: rt.newId,
    setModel: rt.setTurnModel,
  })
  const announcements = new Announcements(store, (text) => rt.notice('info', text))
  announcements.watchTasks()
  if (opts.takeAnnouncements) announcements.addSource(opts.takeAnnouncements)
  return { tools, intake, sessionHooks, host, commandTurns, newContext, announcements }
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
