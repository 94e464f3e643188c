import { describe, expect, it } from 'vitest'
import { createQuestionBroker } from '../../../source/permissions/question-broker.js'
import type { Question } from '../../../source/store/domain.js'
import { createTestStore } from '../tools/question-fixtures.js'

const question: Question = {
  question: 'Which one?',
  header: 'Pick',
  options: [
    { label: 'A', description: 'first' },
    { label: 'B', description: 'second' },
  ],
  multiSelect: false,
}

function setup() {
  const store = createTestStore()
  let n = 0
  const broker = createQuestionBroker({ dispatch: store.dispatch, newId: () => `q${++n}`, now: () => 1234 })
  return { store, broker }
}

describe('question broker', () => {
  it('files a request in the store and resolves it with the answer', async () => {
    const { store, broker } = setup()
    const pending = broker.ask(
      { kind: 'questions', questions: [question] },
      new AbortController().signal,
      'call-7',
    )
    expect(store.getState().questions.queue).toEqual(['q1'])
    expect(store.getState().questions.byId.q1).toEqual({
      id: 'q1',
      kind: 'questions',
      callId: 'call-7',
      questions: [question],
      createdAt: 1234,
    })
    expect(broker.pending().map((r) => r.id)).toEqual(['q1'])
    expect(broker.answer('q1', { kind: 'questions', answers: { 'Which one?': 'B' } })).toBe(true)
    await expect(pending).resolves.toEqual({ kind: 'questions', answers: { 'Which one?': 'B' } })
    expect(store.getState().questions.queue).toEqual([])
    expect(broker.pending()).toEqual([])
    // A second answer finds nothing pending.
    expect(broker.answer('q1', { kind: 'cancelled' })).toBe(false)
  })

  it('uses an empty callId when none is given, and handles plan approvals', async () => {
    const { store, broker } = setup()
    const pending = broker.ask({ kind: 'plan', plan: '1. do it' }, new AbortController().signal)
    expect(store.getState().questions.byId.q1).toMatchObject({ kind: 'plan', plan: '1. do it', callId: '' })
    expect(() => broker.answer('q1', { kind: 'questions', answers: {} })).toThrow(/asks for a "plan" answer/)
    broker.answer('q1', { kind: 'plan', decision: 'keep-planning', feedback: 'more tests' })
    await expect(pending).resolves.toEqual({
      kind: 'plan',
      decision: 'keep-planning',
      feedback: 'more tests',
    })
  })

  it('withdraws a request when its signal aborts and resolves it as cancelled', async () => {
    const { store, broker } = setup()
    const controller = new AbortController()
    const pending = broker.ask({ kind: 'questions', questions: [question] }, controller.signal)
    expect(store.getState().questions.queue).toEqual(['q1'])
    controller.abort()
    await expect(pending).resolves.toEqual({ kind: 'cancelled' })
    expect(store.getState().questions.queue).toEqual([])
    expect(broker.pending()).toEqual([])
  })

  it('does not file a request whose signal already aborted', async () => {
    const { store, broker } = setup()
    await expect(broker.ask({ kind: 'plan', plan: 'x' }, AbortSignal.abort())).resolves.toEqual({
      kind: 'cancelled',
    })
    expect(store.getState().questions.queue).toEqual([])
  })

  it('cancelAll resolves every pending request as cancelled', async () => {
    const { store, broker } = setup()
    const signal = new AbortController().signal
    const first = broker.ask({ kind: 'questions', questions: [question] }, signal)
    const second = broker.ask({ kind: 'plan', plan: 'p' }, signal)
    expect(store.getState().questions.queue).toEqual(['q1', 'q2'])
    broker.cancelAll()
    await expect(Promise.all([first, second])).resolves.toEqual([
      { kind: 'cancelled' },
      { kind: 'cancelled' },
    ])
    expect(store.getState().questions.queue).toEqual([])
  })
})
