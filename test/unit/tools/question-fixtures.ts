import { createQuestionBroker, type QuestionBroker } from '../../../source/permissions/question-broker.js'
import { createStore, type Store } from '../../../source/store/create-store.js'
import type { QuestionAnswer, QuestionRequest } from '../../../source/store/domain.js'
import { initialState } from '../../../source/store/state.js'

/** A real store with a fresh session, as the runtime builds it. */
export function createTestStore(): Store {
  return createStore(
    initialState(
      { id: 's1', cwd: '/tmp', model: 'test-model', baseUrl: 'http://localhost', title: '', startedAt: 0 },
      'safe',
    ),
  )
}

/**
 * A real question broker on a real store, plus a stand-in for the user: whenever a request appears in
 * the store it is answered with `reply(request)`, as the question dialog would. `seen` records the
 * requests as the store held them.
 */
export function createAnsweringUser(reply: (request: QuestionRequest) => QuestionAnswer): {
  store: Store
  broker: QuestionBroker
  seen: QuestionRequest[]
} {
  const store = createTestStore()
  const broker = createQuestionBroker({ dispatch: store.dispatch })
  const seen: QuestionRequest[] = []
  store.subscribe(() => {
    const { queue, byId } = store.getState().questions
    const request = queue[0] === undefined ? undefined : byId[queue[0]]
    if (!request || seen.includes(request)) return
    seen.push(request)
    queueMicrotask(() => broker.answer(request.id, reply(request)))
  })
  return { store, broker, seen }
}
