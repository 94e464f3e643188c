import { afterEach, describe, expect, it } from 'vitest'
import type { QuestionAnswer } from '../../../source/store/domain.js'
import { askUserQuestionTool } from '../../../source/tools/ask-user-question.js'
import { createTestEnv, run, runError, type TestEnv } from './helpers.js'
import { createAnsweringUser } from './question-fixtures.js'

let env: TestEnv | undefined
afterEach(async () => {
  await env?.cleanup()
})

const options = [
  { label: 'Postgres', description: 'Relational, already used by the billing service' },
  { label: 'SQLite', description: 'Single file, no server' },
]
const args = {
  questions: [
    { question: 'Which database should the cache use?', header: 'Database', options, multiSelect: false },
    {
      question: 'Which features do you need?',
      header: 'Features',
      options: [
        { label: 'Auth', description: 'Login' },
        { label: 'Logging', description: 'Structured logs' },
        { label: 'Metrics', description: 'Prometheus' },
      ],
      multiSelect: true,
    },
  ],
}

describe('AskUserQuestion', () => {
  it('refuses when nobody can answer', async () => {
    env = await createTestEnv()
    const error = await runError(askUserQuestionTool, args, env.ctx)
    expect(error.category).toBe('permission')
    expect(error.message).toBe('no user available; decide yourself and say so')
  })

  it('asks through the broker and formats the answers, passing "Other" text through', async () => {
    const user = createAnsweringUser(() => ({
      kind: 'questions',
      answers: {
        'Which database should the cache use?': 'Redis, "the one we run"',
        'Which features do you need?': 'Auth, Metrics',
      },
    }))
    env = await createTestEnv({ questions: user.broker })
    const result = await run(askUserQuestionTool, args, env.ctx)
    expect(result.forModel).toBe(
      'The user answered:\n' +
        '"Which database should the cache use?" = "Redis, \\"the one we run\\""\n' +
        '"Which features do you need?" = "Auth, Metrics"\n' +
        'Continue with these answers in mind.',
    )
    expect(result.display).toEqual({
      kind: 'text',
      text:
        'Which database should the cache use? → Redis, "the one we run"\n' +
        'Which features do you need? → Auth, Metrics',
    })
    expect(user.seen).toHaveLength(1)
    expect(user.seen[0]).toMatchObject({ kind: 'questions', questions: args.questions })
    // Answered requests leave the store.
    expect(user.store.getState().questions.queue).toEqual([])
  })

  it('turns a dismissed dialog into an aborted error', async () => {
    const user = createAnsweringUser((): QuestionAnswer => ({ kind: 'cancelled' }))
    env = await createTestEnv({ questions: user.broker })
    const error = await runError(askUserQuestionTool, args, env.ctx)
    expect(error.category).toBe('aborted')
    expect(error.message).toContain('dismissed')
  })

  it('refuses duplicate question texts and an explicit "Other" option before asking', async () => {
    const user = createAnsweringUser(() => ({ kind: 'cancelled' }))
    env = await createTestEnv({ questions: user.broker })
    const q = args.questions[0]!
    const error = await runError(
      askUserQuestionTool,
      {
        questions: [
          q,
          { ...q, header: 'Again', options: [...options, { label: 'Other', description: 'x' }] },
        ],
      },
      env.ctx,
    )
    expect(error.category).toBe('validation')
    expect(error.message).toContain('question 2 repeats the text')
    expect(error.message).toContain('has an option "Other"')
    expect(user.seen).toHaveLength(0)
  })

  it('validates the limits in the schema: header ≤ 12 chars, 2–4 options, 1–4 questions', () => {
    const q = args.questions[0]!
    const parse = (value: unknown) => askUserQuestionTool.schema.safeParse(value).success
    expect(parse({ questions: [{ ...q, header: 'Thirteen char' }] })).toBe(false)
    expect(parse({ questions: [{ ...q, options: options.slice(0, 1) }] })).toBe(false)
    expect(parse({ questions: [] })).toBe(false)
    expect(parse({ questions: [q, q, q, q, q] })).toBe(false)
    expect(parse({ questions: [q] })).toBe(true)
    expect(askUserQuestionTool.summarize(askUserQuestionTool.schema.parse(args))).toBe(
      'AskUserQuestion: Database (+1 more)',
    )
    expect(askUserQuestionTool.description).toContain('type a custom answer')
  })
})
