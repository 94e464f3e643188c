import type { Dispatch } from '../store/create-store.js'
import type { QuestionAnswer, QuestionRequest } from '../store/domain.js'
import type { QuestionAsker } from './question-types.js'

/**
 * The question broker: AskUserQuestion and ExitPlanMode await a promise; the question dialog (through
 * the runtime) settles it. Like the consent broker it is an app-owned instance whose state lives in
 * the closure; only plain data goes through the store.
 */

export interface QuestionBrokerOptions {
  dispatch: Dispatch
  newId?: () => string
  now?: () => number
}

export type QuestionInput = Parameters<QuestionAsker['ask']>[0]

export interface QuestionBroker extends QuestionAsker {
  /**
   * Files a request (dispatching `question/requested`) and resolves with the user's answer. An abort
   * of `signal` withdraws it and resolves `{kind: 'cancelled'}`; it never rejects. `callId` ties the
   * dialog to the tool card ('' when unknown).
   */
  ask(request: QuestionInput, signal: AbortSignal, callId?: string): Promise<QuestionAnswer>
  /**
   * Settles a pending request and dispatches `question/resolved`. Returns false when the id is not
   * pending (already answered or withdrawn). Throws when the answer's kind does not fit the request
   * (answers to questions for a plan approval or the reverse): that is a bug in the caller.
   */
  answer(id: string, answer: QuestionAnswer): boolean
  /** Resolves every pending request as cancelled (shutdown, turn end). */
  cancelAll(): void
  /** Pending requests, oldest first. */
  pending(): QuestionRequest[]
}

interface Entry {
  request: QuestionRequest
  resolve: (answer: QuestionAnswer) => void
  cleanup: () => void
}

export function createQuestionBroker(opts: QuestionBrokerOptions): QuestionBroker {
  const { dispatch } = opts
  const now = opts.now ?? Date.now
  let counter = 0
  const newId = opts.newId ?? (() => `question-${++counter}`)
  const entries = new Map<string, Entry>()

  const settle = (id: string, answer: QuestionAnswer): boolean => {
    const entry = entries.get(id)
    if (!entry) return false
    entries.delete(id)
    entry.cleanup()
    dispatch({ type: 'question/resolved', id })
    entry.resolve(answer)
    return true
  }

  return {
    ask(input, signal, callId = '') {
      if (signal.aborted) return Promise.resolve({ kind: 'cancelled' })
      const base = { id: newId(), callId, createdAt: now() }
      const request: QuestionRequest =
        input.kind === 'plan'
          ? { ...base, kind: 'plan', plan: input.plan }
          : { ...base, kind: 'questions', questions: input.questions }
      return new Promise<QuestionAnswer>((resolve) => {
        const onAbort = () => settle(request.id, { kind: 'cancelled' })
        signal.addEventListener('abort', onAbort, { once: true })
        entries.set(request.id, {
          request,
          resolve,
          cleanup: () => signal.removeEventListener('abort', onAbort),
        })
        dispatch({ type: 'question/requested', request })
      })
    },

    answer(id, answer) {
      const entry = entries.get(id)
      if (!entry) return false
      if (answer.kind !== 'cancelled' && answer.kind !== entry.request.kind) {
        throw new Error(`question ${id} asks for a "${entry.request.kind}" answer, got "${answer.kind}"`)
      }
      return settle(id, answer)
    },

    cancelAll() {
      for (const id of [...entries.keys()]) settle(id, { kind: 'cancelled' })
    },

    pending: () => [...entries.values()].map((e) => e.request),
  }
}
