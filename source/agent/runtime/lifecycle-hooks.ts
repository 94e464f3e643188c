import type { EventFields } from '../../user-hooks/protocol.js'
import type { HookService } from '../../user-hooks/hook-service.js'
import { EMPTY_VERDICT, type HookVerdict } from '../../user-hooks/verdict.js'
import type { Store } from '../../store/create-store.js'
import { showCards, type ToolHooks } from '../tool-call/tool-hooks.js'
import { MAX_STOP_CONTINUATIONS, type TurnHooks } from '../turn/turn-hooks.js'

/**
 * The session-level hook events: SessionStart and SessionEnd, Notification, and the two the context
 * manager and subagents fire (PreCompact, SubagentStop). Every run's cards go to the transcript; a hook
 * failure never stops the session.
 */

/** How long the agent waits idle for the user before `Notification` with `idle_prompt` (Claude Code's 60 s). */
export const IDLE_NOTIFY_MS = 60_000

export interface SessionHooksOptions {
  service: HookService
  store: Store
  newId(prefix: string): string
  /** Interactive sessions tell a waiting user (idle_prompt); headless ones have nobody waiting. */
  interactive: boolean
  /** For `tool_response.filePath`. */
  workspace: string
  /** Where the runtime's relative paths resolve: `tool_input.file_path` is given absolute. */
  cwd?(): string
  /** Default IDLE_NOTIFY_MS. */
  idleMs?: number
}

export interface SubagentStopInput {
  /** The subagent is already working again because of a SubagentStop hook (Claude Code's loop guard). */
  stopHookActive: boolean
  agentId?: string
  agentType?: string
  lastText?: string
}

export interface SessionHooks {
  /** What the executor needs (PreToolUse, PostToolUse). */
  readonly tool: ToolHooks
  /** What the loop needs (UserPromptSubmit, Stop). */
  readonly turn: TurnHooks
  /** SessionStart: context its hooks print (or answer as `additionalContext`) is added to the history. */
  start(source: EventFields['SessionStart']['source']): Promise<void>
  end(reason: EventFields['SessionEnd']['reason']): Promise<void>
  /** `/clear`: the conversation is cleared at once; then SessionEnd and SessionStart run, as in Claude Code. */
  restart(clear: () => void): Promise<void>
  /** Fire and forget: nobody waits for a Notification hook. */
  notify(type: string, message: string): void
  /** After a turn: `idle_prompt` once the user has not answered for IDLE_NOTIFY_MS. */
  armIdle(): void
  disarmIdle(): void
  /**
   * PreCompact, before every compaction (the context manager's `beforeCompact`): the verdict says what the
   * hooks printed or answered (their cards are already in the transcript). It never rejects, and, as in
   * Claude Code, cannot block the compaction.
   */
  preCompact(
    trigger: 'manual' | 'auto',
    customInstructions: string,
    signal?: AbortSignal,
  ): Promise<HookVerdict>
  /**
   * SubagentStop, for the subagent runner: `continueWith` is the feedback to send the subagent when a hook
   * keeps it working (null: it may stop). Bounded like Stop (MAX_STOP_CONTINUATIONS).
   */
  subagentStop(
    input: SubagentStopInput & { continuations: number },
    signal?: AbortSignal,
  ): Promise<{ continueWith: string | null }>
}

export function createSessionHooks(opts: SessionHooksOptions): SessionHooks {
  const { service, store } = opts
  const dispatch = store.dispatch
  let idle: NodeJS.Timeout | undefined
  const show = (verdict: HookVerdict, prefix: string) =>
    showCards(dispatch, opts.newId(prefix), verdict.cards)
  const failed = (event: string, err: unknown) =>
    dispatch({
      type: 'notice/added',
      id: opts.newId('notice'),
      level: 'error',
      text: `${event} hooks failed: ${err instanceof Error ? err.message : String(err)}`,
    })

  const hooks: SessionHooks = {
    tool: {
      service,
      dispatch,
      workspace: opts.workspace,
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      notify: (type, message) => hooks.notify(type, message),
      newId: opts.newId,
    },
    turn: { service, dispatch },
    async restart(clear) {
      clear()
      await hooks.end('clear')
      await hooks.start('clear')
    },
    async start(source) {
      if (!service.has('SessionStart')) return
      try {
        const model = store.getState().session.model
        const verdict = await service.run('SessionStart', { source, model })
        show(verdict, 'hook-start')
        if (verdict.context.length) {
          const content = `Context added by a SessionStart hook:\n${verdict.context.join('\n\n')}`
          dispatch({ type: 'history/appended', message: { role: 'user', content } })
        }
      } catch (err) {
        failed('SessionStart', err)
      }
    },
    async end(reason) {
      hooks.disarmIdle()
      if (!service.has('SessionEnd')) return
      try {
        show(await service.run('SessionEnd', { reason }), 'hook-end')
      } catch (err) {
        failed('SessionEnd', err)
      }
    },
    notify(type, message) {
      if (!service.has('Notification')) return
      service.run('Notification', { message, notification_type: type, title: 'agent-tui' }).then(
        (verdict) => show(verdict, 'hook-note'),
        (err: unknown) => failed('Notification', err),
      )
    },
    armIdle() {
      hooks.disarmIdle()
      if (!opts.interactive || !service.has('Notification')) return
      idle = setTimeout(
        () => hooks.notify('idle_prompt', 'agent-tui is waiting for your input'),
        opts.idleMs ?? IDLE_NOTIFY_MS,
      )
      idle.unref()
    },
    disarmIdle() {
      if (idle) clearTimeout(idle)
      idle = undefined
    },
    async preCompact(trigger, customInstructions, signal) {
      try {
        const verdict = await service.run(
          'PreCompact',
          { trigger, custom_instructions: customInstructions },
          signal ? { signal } : {},
        )
        show(verdict, 'hook-compact')
        return verdict
      } catch (err) {
        failed('PreCompact', err)
        return EMPTY_VERDICT
      }
    },
    async subagentStop(input, signal) {
      const verdict = await service.run(
        'SubagentStop',
        {
          stop_hook_active: input.stopHookActive,
          ...(input.agentId ? { agent_id: input.agentId } : {}),
          ...(input.agentType ? { agent_type: input.agentType } : {}),
          ...(input.lastText !== undefined ? { last_assistant_message: input.lastText } : {}),
        },
        signal ? { signal } : {},
      )
      show(verdict, 'hook-subagent')
      if (verdict.stop !== null || verdict.block === null || input.continuations >= MAX_STOP_CONTINUATIONS)
        return { continueWith: null }
      return { continueWith: `SubagentStop hook feedback:\n${verdict.block}` }
    },
  }
  return hooks
}
