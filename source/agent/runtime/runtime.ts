import type { Store } from '../../store/create-store.js'
import type { Mode, TurnResult } from '../../store/domain.js'
import { type ModeChange, modeChangeRefusal } from '../../permissions/modes.js'
import type { ContextManager } from '../context/context-manager.js'
import type { Announcement, Announcements } from './announcements.js'
import { pinRefusal } from '../../store/pins.js'
import type { CompactionPreview, ContextReport } from '../context/types.js'
import { type CommandTurns, withGrants } from '../turn/command-turn.js'
import type { CommandInvocation, TurnCommands, SubmitInput } from './commands.js'
import type { ExecutorDeps } from '../tool-call/pipeline.js'
import { type TurnDeps, type UserInput, runTurn } from '../turn/loop.js'
import { createToolReplyCheck } from '../turn/tool-reply-check.js'
import { modeInstruction } from '../turn/mode-instructions.js'
import type { SessionHooks } from './lifecycle-hooks.js'
import type { MessageIntake } from '../turn/message-intake.js'
import { userInputFor } from '../turn/user-input.js'
import { mcpPromptInput } from '../turn/mcp-mentions.js'
import { runUserShell } from '../turn/user-shell.js'
import type { SessionTools } from './session-tools.js'
import { executorDepsFor, type TurnSources, turnDepsFor } from './parts.js'
import type { ToolHost } from '../tool-call/tool-host.js'
import { createRuntimeParts } from './parts.js'
import { switchMainAgent } from './main-agent.js'
import type { RuntimeOptions } from './options.js'

export type { ModelCapabilities, RuntimeOptions } from './options.js'

/**
 * The only writer of conversation state. Commands are fire-and-forget for the UI; `runTurn` returns the
 * turn's result for headless callers.
 */
export class Runtime implements TurnCommands {
  private readonly opts: RuntimeOptions
  private readonly now: () => number
  private readonly tools: SessionTools
  /** Replaced only when the main session switches agent (a new prompt prefix, announced to the user). */
  private systemPrompt: string
  private readonly intake: MessageIntake
  private controller: AbortController | null = null
  private current: Promise<TurnResult> | null = null
  /** The context of every tool call: the current directory, foreground commands, the session's services. */
  private readonly host: ToolHost
  /** The model of the turn running now, when a user command chose one. */
  private turnModel: string | null = null
  private readonly commandTurns: CommandTurns
  private counter = 0
  private readonly newContext: (systemPrompt: string) => ContextManager
  /**
   * Assembles every request: compaction summary, masking, truncation; telemetry (docs/context.md). Made anew
   * only when the main session switches agent (its prompt and tools are part of every estimate).
   */
  context: ContextManager
  /** SessionStart, SessionEnd, Notification, PreCompact, SubagentStop (null: no hooks in this session). */
  readonly sessionHooks: SessionHooks | null
  /** SessionStart's context must be in the history before the first turn's request. */
  private started: Promise<void> = Promise.resolve()
  /** Finished background work the model hears of at its next step (see announcements.ts). */
  private readonly announcements: Announcements
  /** Says once when the endpoint writes tool calls as text (the session's first-turn probe). */
  private readonly toolReplyCheck = createToolReplyCheck()

  constructor(opts: RuntimeOptions) {
    this.opts = opts
    this.now = opts.now ?? Date.now
    this.systemPrompt = opts.systemPrompt
    const parts = createRuntimeParts(opts, {
      newId: (prefix) => this.newId(prefix),
      notice: (level, text) => this.notice(level, text),
      now: () => this.now(),
      model: () => this.model(),
      setTurnModel: (model) => {
        this.turnModel = model
      },
      setMode: (mode) => this.setMode(mode),
      setModel: (model) => this.setModel(model),
      executorDeps: () => this.executorDeps(),
      context: () => this.context,
    })
    this.tools = parts.tools
    this.intake = parts.intake
    this.sessionHooks = parts.sessionHooks
    this.host = parts.host
    this.commandTurns = parts.commandTurns
    this.newContext = parts.newContext
    this.announcements = parts.announcements
    this.context = this.contextFor()
  }

  /**
   * Tells the model about finished background work at its next step (or, while idle, with the next turn),
   * as a message; `notice` is shown to the user now. For background jobs and subagents alike.
   */
  announce(announcement: Announcement, notice?: string): void {
    this.announcements.add(announcement, notice)
  }

  get store(): Store {
    return this.opts.store
  }

  /** Made anew only when the main session switches agent: the system prompt is part of every estimate. */
  private contextFor(): ContextManager {
    return this.newContext(this.systemPrompt)
  }

  isBusy(): boolean {
    return this.current !== null
  }

  /** Runs one turn to completion (headless), or queues when a turn is running. */
  async runTurn(input: SubmitInput): Promise<TurnResult> {
    return this.runUserTurn(this.turnInput(input))
  }

  /** The message as the model gets it: no image parts for a model without vision (see user-input.ts). */
  private userInput(input: SubmitInput): UserInput {
    const { user, warning } = userInputFor(
      input,
      this.opts.capabilities(this.opts.store.getState().session.model).supportsVision,
      this.opts.store.getState().session.model,
    )
    if (warning) this.notice('warn', warning)
    return user
  }

  /** SessionStart (`startup` or `resume`): the first turn waits for it. */
  startSession(source: 'startup' | 'resume'): Promise<void> {
    this.started = this.sessionHooks?.start(source) ?? Promise.resolve()
    return this.started
  }

  /** The directory hooks run in and report as `cwd` (Bash's `cd` moves it). */
  currentDirectory(): string {
    return this.host.cwd()
  }

  private async runUserTurn(input: TurnInput): Promise<TurnResult> {
    while (this.current) await this.current.catch(() => undefined)
    this.sessionHooks?.disarmIdle()
    const controller = new AbortController()
    this.controller = controller
    // SessionStart's context goes into the history before the first request.
    const started = this.started
    const command = input.command ? this.commandTurns.begin(input.command) : undefined
    const turn = started
      .then(() => this.intake.prepare(input, controller.signal))
      .then((user) => {
        // What finished while the agent was idle comes just before the user's message.
        this.announcements.deliver()
        return runTurn(withGrants(this.turnDeps(), command?.grants), user, controller.signal)
      })
    this.current = turn
    try {
      return await turn
    } finally {
      command?.end()
      this.current = null
      this.controller = null
      // A queued message still reading its `@server:uri` resources is sent once it has them. After an
      // interrupt nothing is sent behind the user's back: the queue waits for their next message.
      const send = !controller.signal.aborted
      this.intake.whenSettled(() => this.sendQueued(true, send))
    }
  }

  /** The next queued message, if any; after a turn (not a /compact) with none, the idle hook is armed. */
  private sendQueued(afterTurn = true, send = true): void {
    if (this.current) return
    const next = send ? this.intake.take(1)[0] : undefined
    if (next) void this.runUserTurn(next).catch(() => undefined)
    else if (afterTurn && this.intake.length === 0) this.sessionHooks?.armIdle()
  }

  submit(input: SubmitInput): void {
    // Queued behind the running turn, or behind messages held after an interrupt (they go first).
    if (this.current || this.intake.length > 0) {
      this.intake.enqueue(this.turnInput(input), input)
      if (!this.current) this.intake.whenSettled(() => this.sendQueued(false))
      return
    }
    void this.runTurn(input).catch((err: unknown) => this.notice('error', `turn failed: ${String(err)}`))
  }

  unqueue(): SubmitInput | null {
    return this.intake.unqueue()
  }

  interrupt(): void {
    this.controller?.abort(new Error('interrupted by user'))
  }

  /** Waits for the running turn (if any) to settle. */
  async idle(): Promise<void> {
    while (this.current) await this.current.catch(() => undefined)
  }

  /** Refuses what the mode policy forbids (dangerous or ci when the session was not launched in it). */
  setMode(mode: Mode): ModeChange {
    const { mode: previous, launchMode } = this.opts.store.getState()
    const refusal = modeChangeRefusal(mode, launchMode)
    if (refusal) return { ok: false, reason: refusal }
    if (previous === mode) return { ok: true, mode }
    this.opts.store.dispatch({ type: 'mode/changed', mode })
    const message = modeInstruction(previous, mode)
    if (message) this.pendingInjections.push(message)
    return { ok: true, mode }
  }

  private readonly pendingInjections: string[] = []

  backgroundForeground(): boolean {
    return this.host.backgroundForeground((level, text) => this.notice(level, text))
  }

  runShell(command: string): Promise<void> {
    const deps = { tools: this.tools, host: this.host, store: this.opts.store }
    return runUserShell({ ...deps, newId: () => this.newId('user') }, command)
  }

  clear(): void {
    if (this.current) {
      this.notice('warn', 'the agent is working: press Esc to interrupt it, then /clear')
      return
    }
    this.intake.clear()
    this.pendingInjections.length = 0
    this.announcements.clear()
    // The model no longer remembers reading anything, so Write/Edit must Read again first.
    this.opts.files.clear()
    const clearConversation = () => this.opts.store.dispatch({ type: 'conversation/cleared' })
    if (this.sessionHooks) this.started = this.sessionHooks.restart(clearConversation)
    else clearConversation()
  }

  compactionPreview(focus?: string): Promise<CompactionPreview> {
    return this.context.preview(focus)
  }

  /** `/compact [focus]`: summarises the older history now. Refused while a turn runs. */
  async compact(focus?: string): Promise<boolean> {
    if (this.current) {
      this.notice('warn', 'the agent is working: press Esc to interrupt it, then /compact')
      return false
    }
    const controller = new AbortController()
    this.controller = controller
    const store = this.opts.store
    store.dispatch({ type: 'phase/changed', phase: 'requesting' })
    const run = this.context.compact({
      trigger: 'manual',
      ...(focus ? { focus } : {}),
      signal: controller.signal,
    })
    this.current = run.then((outcome) => ({
      kind: outcome.ok ? ('completed' as const) : ('error' as const),
      text: '',
      steps: 0,
    }))
    try {
      return (await run).ok
    } finally {
      store.dispatch({ type: 'phase/changed', phase: 'idle' })
      this.current = null
      this.controller = null
      this.intake.whenSettled(() => this.sendQueued(false))
    }
  }

  /**
   * Pins (or unpins) a transcript item — a message or a tool result — so masking and compaction keep it
   * verbatim. Returns why it cannot be pinned, or null when done.
   */
  setPinned(id: string, pinned: boolean): string | null {
    const item = this.opts.store.getState().transcript.items[id]
    const refusal = pinRefusal(item)
    if (refusal !== null || !item || item.kind === 'notice' || item.kind === 'hook') {
      return refusal ?? 'only messages and tool results can be pinned'
    }
    if (Boolean(item.pinned) !== pinned) this.opts.store.dispatch({ type: 'context/pinned', id, pinned })
    return null
  }

  contextReport(): ContextReport {
    return { ...this.context.report(), tools: this.tools.report() }
  }

  setModel(model: string): void {
    this.opts.store.dispatch({ type: 'model/changed', model })
  }

  switchAgent(name: string): Promise<string> {
    return switchMainAgent({
      name,
      store: this.opts.store,
      agents: this.opts.agents,
      busy: () => this.current !== null,
      apply: (next) => {
        this.systemPrompt = next.systemPrompt
        this.tools.replaceCore(next.tools)
        this.context = this.contextFor()
      },
      setModel: (model) => this.setModel(model),
    })
  }

  async runMcpPrompt(command: string, args: string): Promise<void> {
    const input = await this.mcpPrompt(command, args)
    if (this.current) this.intake.enqueue(input, { text: input.text })
    else
      void this.runUserTurn(input).catch((err: unknown) =>
        this.notice('error', `turn failed: ${String(err)}`),
      )
  }

  /** Headless `-p "/mcp__server__prompt args"`: the prompt as the run's turn; rejects as runMcpPrompt does. */
  async runMcpPromptTurn(command: string, args: string): Promise<TurnResult> {
    return this.runUserTurn(await this.mcpPrompt(command, args))
  }

  private mcpPrompt(command: string, args: string): Promise<UserInput> {
    const { supportsVision } = this.opts.capabilities(this.opts.store.getState().session.model)
    return mcpPromptInput(this.opts.mcp, command, args, supportsVision)
  }

  /** Stops the session; the UI's exit and the session's close both call it, and it runs once. */
  shutdown(): Promise<void> {
    this.stopping ??= (async () => {
      // Jobs stopped on the way out are nobody's news.
      this.announcements.stop()
      this.interrupt()
      this.opts.gate.cancelAll('agent-tui is exiting')
      this.opts.questions?.cancelAll()
      await this.idle()
      await this.started.catch(() => undefined)
      await this.sessionHooks?.end(this.opts.interactive ? 'prompt_input_exit' : 'other')
      const { tasks, checkpoints, hooks } = this.opts
      await Promise.all([tasks?.stopAll(), checkpoints?.close(), hooks?.dispose()])
    })()
    return this.stopping
  }

  private stopping: Promise<void> | undefined

  private turnInput(input: SubmitInput): TurnInput {
    const user = this.userInput(input)
    const command = input.command
    return command ? { ...user, command, prepare: this.commandTurns.prepare(command) } : user
  }

  private model(): string {
    return this.turnModel ?? this.opts.store.getState().session.model
  }

  private sources(): TurnSources {
    return {
      opts: this.opts,
      tools: this.tools,
      host: this.host,
      sessionHooks: this.sessionHooks,
      systemPrompt: this.systemPrompt,
      context: this.context,
      toolReplyCheck: this.toolReplyCheck,
      model: () => this.model(),
      newId: (prefix) => this.newId(prefix),
      now: this.now,
      takeQueued: () => {
        const injected = this.pendingInjections.splice(0)
        for (const content of injected) {
          this.opts.store.dispatch({ type: 'history/appended', message: { role: 'user', content } })
        }
        this.announcements.deliver()
        // A queued user command runs as a turn of its own (its calls run first, its grants hold for it).
        return this.intake.take(Number.POSITIVE_INFINITY, (queued: TurnInput) => queued.command !== undefined)
      },
      queuedCount: () => this.intake.length,
    }
  }

  /** The pipeline's deps, also for calls outside a turn (`mcp serve --expose-tools`, app/mcp-serve/). */
  executorDeps(): ExecutorDeps {
    return executorDepsFor(this.sources())
  }

  private turnDeps(): TurnDeps {
    return turnDepsFor(this.sources())
  }

  private notice(level: 'info' | 'warn' | 'error', text: string): void {
    this.opts.store.dispatch({ type: 'notice/added', id: this.newId('notice'), level, text })
  }

  /** Ids for what the runtime and the session's services add to the store (unique in the session). */
  newId(prefix: string): string {
    this.counter++
    return `${prefix}-${this.now().toString(36)}-${this.counter}`
  }
}

/** A turn's input; a user command's carries the command (its grants and model hold for its turn). */
type TurnInput = UserInput & { command?: CommandInvocation }
