import { afterEach, describe, expect, it } from 'vitest'
import type { Mode } from '../../../source/store/domain.js'
import { exitPlanModeTool } from '../../../source/tools/exit-plan-mode.js'
import { createTestEnv, run, runError, type TestEnv } from './helpers.js'
import { createAnsweringUser } from './question-fixtures.js'

let env: TestEnv | undefined
afterEach(async () => {
  await env?.cleanup()
})

const plan = '## Plan\n1. Add the parser\n2. Test it'

describe('ExitPlanMode', () => {
  it('errors outside plan mode without asking', async () => {
    const user = createAnsweringUser(() => ({ kind: 'plan', decision: 'approve-auto' }))
    env = await createTestEnv({ mode: 'auto', questions: user.broker })
    const error = await runError(exitPlanModeTool, { plan }, env.ctx)
    expect(error.category).toBe('validation')
    expect(error.message).toBe('ExitPlanMode is only meaningful in plan mode; you are in auto mode')
    expect(user.seen).toEqual([])
  })

  it('errors when nobody can approve', async () => {
    env = await createTestEnv({ mode: 'plan' })
    const error = await runError(exitPlanModeTool, { plan }, env.ctx)
    expect(error.category).toBe('permission')
    expect(error.message).toMatch(/^no user available to approve the plan; /)
  })

  it('approve-auto switches to auto mode and tells the model to proceed', async () => {
    const switched: Mode[] = []
    const user = createAnsweringUser(() => ({ kind: 'plan', decision: 'approve-auto' }))
    env = await createTestEnv({ mode: 'plan', questions: user.broker, switchMode: (m) => switched.push(m) })
    const result = await run(exitPlanModeTool, { plan }, env.ctx)
    expect(switched).toEqual(['auto'])
    expect(user.seen[0]).toMatchObject({ kind: 'plan', plan })
    expect(result.forModel).toContain('The user approved the plan. You are now in auto mode')
    expect(result.forModel).toContain('Start implementing it now')
    // The approved plan stays in the transcript with what was decided.
    expect(result.display).toEqual({ kind: 'plan', verdict: 'Plan approved — AUTO mode', plan })
  })

  it('approve-safe switches to safe mode, where edits ask', async () => {
    const switched: Mode[] = []
    const user = createAnsweringUser(() => ({
      kind: 'plan',
      decision: 'approve-safe',
      feedback: 'small commits',
    }))
    env = await createTestEnv({ mode: 'plan', questions: user.broker, switchMode: (m) => switched.push(m) })
    const result = await run(exitPlanModeTool, { plan }, env.ctx)
    expect(switched).toEqual(['safe'])
    expect(result.forModel).toContain('safe mode: each file edit and command will ask')
    expect(result.forModel).toContain('The user added: "small commits"')
  })

  it('approval that the mode policy refuses stays in plan mode and says why', async () => {
    const user = createAnsweringUser(() => ({ kind: 'plan', decision: 'approve-auto' }))
    env = await createTestEnv({ mode: 'plan', questions: user.broker })
    const refusing = {
      ...env.ctx,
      switchMode: () => ({ ok: false as const, reason: 'auto mode is off here' }),
    }
    const result = await run(exitPlanModeTool, { plan }, refusing)
    expect(result.forModel).toContain('the mode could not be switched (auto mode is off here)')
    expect(result.forModel).toContain('you are still in plan mode')
    expect(result.display).toEqual({
      kind: 'plan',
      verdict: 'Plan approved (mode unchanged: auto mode is off here)',
      plan,
    })
  })

  it('keep-planning stays in plan mode and passes the feedback on', async () => {
    const switched: Mode[] = []
    const user = createAnsweringUser(() => ({
      kind: 'plan',
      decision: 'keep-planning',
      feedback: 'cover errors too',
    }))
    env = await createTestEnv({ mode: 'plan', questions: user.broker, switchMode: (m) => switched.push(m) })
    const result = await run(exitPlanModeTool, { plan }, env.ctx)
    expect(switched).toEqual([])
    expect(result.forModel).toContain('The user wants to keep planning. Their feedback: "cover errors too"')
    expect(result.forModel).toContain('You are still in plan mode')
  })

  it('a dismissed dialog is an aborted error and does not switch', async () => {
    const switched: Mode[] = []
    const user = createAnsweringUser(() => ({ kind: 'cancelled' }))
    env = await createTestEnv({ mode: 'plan', questions: user.broker, switchMode: (m) => switched.push(m) })
    const error = await runError(exitPlanModeTool, { plan }, env.ctx)
    expect(error.category).toBe('aborted')
    expect(switched).toEqual([])
  })
})
