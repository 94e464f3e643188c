import type { HookService } from '../../user-hooks/hook-service.js'
import type { Dispatch, Store } from '../../store/create-store.js'
import type { UserInput } from './user-input.js'
import { showCards } from '../tool-call/tool-hooks.js'

/**
 * UserPromptSubmit and Stop around a turn (the loop's side of source/user-hooks/): whether a prompt goes to
 * the model and with what context, and whether the agent may stop.
 */

export interface TurnHooks {
  service: HookService
  dispatch: Dispatch
}

/**
 * How many times in one turn a Stop hook may keep the agent working. Claude Code leaves loops to the hook
 * (`stop_hook_active`); a hook that ignores it would otherwise run the turn into its step cap.
 */
export const MAX_STOP_CONTINUATIONS = 5

export type PromptVerdict =
  /** `show` puts the hooks' cards in the transcript: after the prompt, once it is there. */
  | { kind: 'send'; context: string | null; show(): void }
  /** Not sent: a hook blocked it (exit 2, `decision: block`) or stopped the turn (`continue: false`). */
  | { kind: 'blocked'; why: string }

/** UserPromptSubmit: block the prompt (its cards are shown at once), or add context the model reads right after it. */
export async function checkPrompt(
  hooks: TurnHooks,
  prompt: string,
  id: string,
  signal: AbortSignal,
): Promise<PromptVerdict> {
  const verdict = await hooks.service.run('UserPromptSubmit', { prompt }, { signal })
  const cards = verdict.cards.map((card) =>
    // The prompt is not in the conversation: keep it where the user can copy it back.
    verdict.block !== null || verdict.stop !== null
      ? { ...card, detail: `${card.detail}\n\nYour prompt (not sent):\n${prompt}` }
      : card,
  )
  const show = () => showCards(hooks.dispatch, `hook-prompt-${id}`, cards)
  if (verdict.stop !== null || verdict.block !== null) show()
  if (verdict.stop !== null)
    return { kind: 'blocked', why: `UserPromptSubmit hook stopped the turn: ${verdict.stop}` }
  if (verdict.block !== null) {
    return { kind: 'blocked', why: `UserPromptSubmit hook blocked the prompt: ${firstLine(verdict.block)}` }
  }
  const context = verdict.context.length
    ? `Context added by a UserPromptSubmit hook:\n${verdict.context.join('\n\n')}`
    : null
  return { kind: 'send', context, show }
}

export type StopVerdict = { kind: 'stop' } | { kind: 'continue'; feedback: string } | { kind: 'cap' }

/** Stop: the model is done; a hook may send it back to work with a reason (at most MAX_STOP_CONTINUATIONS times). */
export async function checkStop(
  hooks: TurnHooks,
  opts: { continuations: number; lastText: string; id: string },
  signal: AbortSignal,
): Promise<StopVerdict> {
  const verdict = await hooks.service.run(
    'Stop',
    { stop_hook_active: opts.continuations > 0, last_assistant_message: opts.lastText },
    { signal },
  )
  showCards(hooks.dispatch, `hook-stop-${opts.id}-${opts.continuations}`, verdict.cards)
  // `continue: false` wins over `decision: block`, as in Claude Code.
  if (verdict.stop !== null || verdict.block === null) return { kind: 'stop' }
  if (opts.continuations >= MAX_STOP_CONTINUATIONS) return { kind: 'cap' }
  return { kind: 'continue', feedback: `Stop hook feedback:\n${verdict.block}` }
}

/**
 * One user message into the history, after UserPromptSubmit hooks: with the context they add right after
 * it, or not at all when one blocks it. `turnId` marks a turn's first message.
 */
export async function submitPrompt(
  deps: { store: Store; hooks?: TurnHooks; newId(prefix: string): string },
  input: UserInput,
  turnId: string | undefined,
  signal: AbortSignal,
): Promise<'sent' | { kind: 'stopped' | 'interrupted'; why?: string }> {
  const id = deps.newId('user')
  const verdict = deps.hooks?.service.has('UserPromptSubmit')
    ? await checkPrompt(deps.hooks, input.text, id, signal)
    : { kind: 'send' as const, context: null, show: () => undefined }
  if (signal.aborted && verdict.kind === 'blocked') return { kind: 'interrupted' }
  if (verdict.kind === 'blocked') return { kind: 'stopped', why: verdict.why }
  const dispatch = deps.store.dispatch
  dispatch({
    type: 'user/submitted',
    id,
    content: input.content,
    text: input.text,
    ...(turnId ? { turnId } : {}),
    ...(input.attachments?.length ? { attachments: input.attachments } : {}),
  })
  verdict.show()
  if (verdict.context)
    dispatch({ type: 'history/appended', message: { role: 'user', content: verdict.context } })
  return 'sent'
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.trim() ?? ''
}
