import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { denialOf, resultOutcome, thrownFailure } from '../../../../source/agent/tool-call/outcome.js'
import {
  readPreHook,
  resolve,
  run,
  snapshot,
  summaryOf,
  validate,
} from '../../../../source/agent/tool-call/pipeline.js'
import type { PreToolVerdict } from '../../../../source/agent/tool-call/tool-hooks.js'
import type { Authorization } from '../../../../source/permissions/gate.js'
import type { ToolCall } from '../../../../source/store/messages.js'
import { type AnyTool, defineTool, ToolError, type ToolContext } from '../../../../source/tools/types.js'

// The phases of the tool-call pipeline one by one (executeCall composes them; its end-to-end
// behaviour is held by the executor, consent, hook and checkpoint tests).

const write = defineTool({
  name: 'Write',
  description: 'writes',
  schema: z.strictObject({ file_path: z.string(), content: z.string() }),
  risk: 'edit',
  isReadOnly: () => false,
  permissionTarget: (a) => ({ kind: 'path', path: a.file_path, access: 'write' }),
  preview: async () => ({ kind: 'none' }),
  summarize: (a) => `Write ${a.file_path}`,
  execute: async (a) => ({ forModel: `wrote ${a.file_path}` }),
}) as AnyTool

const tools = new Map([['Write', write]])
const call = (name: string, args: string): ToolCall => ({
  id: 'c1',
  type: 'function',
  function: { name, arguments: args },
})

describe('resolve', () => {
  it.each([
    ['Write', 'Write', undefined],
    ['Nope', undefined, 'unknown tool "Nope"'],
  ])('%s', (name, found, message) => {
    const out = resolve(call(name, '{}'), tools)
    if (found) expect('tool' in out && out.tool.name).toBe(found)
    else expect(out).toEqual({ failure: { category: 'not_found', message, hint: 'available tools: Write' } })
  })
})

describe('validate', () => {
  it.each<[string, string, { value: unknown } | undefined, unknown]>([
    ['valid JSON', '{"file_path":"a","content":"x"}', undefined, { file_path: 'a', content: 'x' }],
    [
      'a trailing comma, repaired',
      '{"file_path":"a","content":"x",}',
      undefined,
      { file_path: 'a', content: 'x' },
    ],
    [
      'already parsed: the raw text is not read',
      'not json',
      { value: { file_path: 'b', content: '' } },
      { file_path: 'b', content: '' },
    ],
    ['not JSON', '{"file_path":', undefined, /^arguments are not valid JSON/],
    ['a missing field', '{"file_path":"a"}', undefined, /^invalid arguments for Write: content:/],
    [
      'an unknown field',
      '{"file_path":"a","content":"x","mode":1}',
      undefined,
      /^invalid arguments for Write/,
    ],
  ])('%s', (_what, raw, parsed, expected) => {
    const out = validate(write, raw, parsed)
    if (expected instanceof RegExp) {
      expect('failure' in out && out.failure.category).toBe('validation')
      expect('failure' in out && out.failure.message).toMatch(expected)
    } else expect(out).toEqual({ args: expected, input: expected })
  })
})

describe('preHooks: what a PreToolUse verdict means', () => {
  const checked = { args: { file_path: 'a', content: 'x' }, input: { file_path: 'a', content: 'x' } }
  const verdict = (v: Partial<PreToolVerdict>): PreToolVerdict => ({
    deny: null,
    allow: false,
    ask: null,
    updatedInput: null,
    stop: null,
    ...v,
  })
  it.each<[string, Partial<PreToolVerdict>, Record<string, unknown>]>([
    ['nothing said: go on', {}, { ...checked, hook: { allow: false, ask: null } }],
    ['allow: go on, the gate folds it in', { allow: true }, { ...checked, hook: { allow: true, ask: null } }],
    ['ask: go on, the gate asks', { ask: 'why' }, { ...checked, hook: { allow: false, ask: 'why' } }],
    [
      'updatedInput: validated again, and what hooks see changes',
      { updatedInput: { file_path: 'b', content: 'y' } },
      {
        args: { file_path: 'b', content: 'y' },
        input: { file_path: 'b', content: 'y' },
        hook: { allow: false, ask: null },
        rewritten: true,
      },
    ],
  ])('%s', (_what, v, expected) => {
    expect(readPreHook(verdict(v), write, checked)).toEqual(expected)
  })

  it.each<[string, Partial<PreToolVerdict>, RegExp, string | undefined]>([
    ['deny', { deny: 'no writes today' }, /^Write blocked by a PreToolUse hook: no writes today/, undefined],
    [
      'stop beats deny',
      { stop: 'enough', deny: 'x' },
      /stopped the turn before Write ran: enough/,
      'PreToolUse hook stopped the turn: enough',
    ],
    [
      'a rewrite into invalid arguments',
      { updatedInput: { file_path: 1 } },
      /rewrote the arguments of Write into invalid ones/,
      undefined,
    ],
  ])('%s ends the call', (_what, v, message, stopTurn) => {
    const out = readPreHook(verdict(v), write, checked)
    expect('failure' in out && out.failure.message).toMatch(message)
    expect('stopTurn' in out ? out.stopTurn : undefined).toBe(stopTurn)
  })
})

describe('authorize: what a denial tells the model', () => {
  const verdict = { decision: 'ask' as const, reason: 'safe mode asks before edits' }
  it.each<[string, Extract<Authorization, { decision: 'deny' }>, RegExp, RegExp, boolean]>([
    [
      'a deny rule',
      {
        decision: 'deny',
        by: 'policy',
        verdict: { decision: 'deny', reason: 'rule Edit denies' },
        offer: { rule: 'Edit(a)', noRule: 'rule Edit denies' },
        mode: 'safe',
      },
      /^Write denied: rule Edit denies$/,
      /do not retry/,
      false,
    ],
    [
      'nobody to ask',
      { decision: 'deny', by: 'no-user', verdict, offer: { rule: 'Edit(a)' }, mode: 'ci' },
      /no user is available/,
      /--allowed-tools "Edit\(a\)"/,
      false,
    ],
    [
      'nobody to ask, a protected write',
      {
        decision: 'deny',
        by: 'no-user',
        verdict: { ...verdict, protectedWrite: true },
        offer: { rule: 'Edit(a)' },
        mode: 'ci',
      },
      /no user is available/,
      /protected paths are not opened/,
      false,
    ],
    [
      'the user, plainly',
      { decision: 'deny', by: 'user', answer: { kind: 'deny' } },
      /^the user denied Write$/,
      /stop here/,
      true,
    ],
    [
      'the user, with a note',
      { decision: 'deny', by: 'user', answer: { kind: 'deny', note: ' try b ' } },
      /said: try b$/,
      /do what the user said/,
      true,
    ],
    [
      'the timeout',
      {
        decision: 'deny',
        by: 'user',
        answer: { kind: 'deny', note: 'no answer within 5s', automatic: true },
      },
      /was denied: no answer/,
      /adjust the approach/,
      false,
    ],
  ])('%s', (_what, auth, message, hint, userDenial) => {
    const { failure, userDenial: denial } = denialOf(auth, 'Write')
    expect(failure.message).toMatch(message)
    expect(failure.hint).toMatch(hint)
    expect(failure.status).toBe('denied')
    expect(denial !== undefined).toBe(userDenial)
  })

  it.each<[string, Extract<Authorization, { decision: 'deny' }>, string | undefined, string | undefined]>([
    [
      'ci mode, a rule would lift it',
      { decision: 'deny', by: 'policy', verdict, offer: { rule: 'Edit(a)' }, mode: 'ci' },
      'Edit(a)',
      undefined,
    ],
    [
      'nobody to ask, a rule would lift it',
      { decision: 'deny', by: 'no-user', verdict, offer: { rule: 'Edit(a)' }, mode: 'safe' },
      'Edit(a)',
      undefined,
    ],
    [
      'a deny rule',
      {
        decision: 'deny',
        by: 'policy',
        verdict,
        offer: { rule: 'Edit(a)', noRule: 'rule Edit denies' },
        mode: 'ci',
      },
      undefined,
      'rule Edit denies',
    ],
    [
      'a protected write',
      {
        decision: 'deny',
        by: 'no-user',
        verdict: { ...verdict, protectedWrite: true },
        offer: { rule: 'Edit(a)' },
        mode: 'auto',
      },
      undefined,
      undefined,
    ],
  ])(
    '%s: the allow rule that would lift it is named only when one would',
    (_what, auth, allowRule, noAllowRule) => {
      const { failure } = denialOf(auth, 'Write')
      expect(failure.allowRule).toBe(allowRule)
      expect(failure.noAllowRule).toBe(noAllowRule)
    },
  )
})

describe('snapshot and run', () => {
  const allowed: Extract<Authorization, { decision: 'allow' }> = {
    decision: 'allow',
    target: { kind: 'path', path: '/w/a', access: 'write', real: '/w/a' },
    readOnly: false,
  }
  it('snapshots before a change and closes it after the run, also when the tool throws', async () => {
    const seen: string[] = []
    const hook = {
      before: async (kind: string) => void seen.push(`before ${kind}`),
      after: () => void seen.push('after'),
    }
    expect(await snapshot(hook, write, allowed)).toBe('edit')
    expect(await snapshot(undefined, write, allowed)).toBeNull()
    const failing = { ...write, execute: async () => Promise.reject(new ToolError('execution', 'disk full')) }
    await expect(run(failing, {}, {} as ToolContext, allowed, hook)).rejects.toThrow('disk full')
    expect(seen).toEqual(['before edit', 'after'])
  })

  it('runs the tool against the target the gate judged', async () => {
    let judged: unknown
    const spy = {
      ...write,
      execute: async (_a: unknown, ctx: ToolContext) => {
        judged = ctx.permission
        return { forModel: 'ok' }
      },
    }
    await run(spy, {}, {} as ToolContext, allowed, undefined)
    expect(judged).toBe(allowed.target)
  })
})

describe('outcome', () => {
  it.each<[string, unknown, RegExp, boolean | undefined]>([
    [
      'a ToolError keeps its category, hint and retryability',
      new ToolError('timeout', 'slow', { hint: 'wait', retryable: true }),
      /^slow$/,
      true,
    ],
    ['anything else is a bug of the tool', new Error('boom'), /^Write failed unexpectedly: boom$/, undefined],
  ])('%s', (_what, err, message, retryable) => {
    const failure = thrownFailure(err, 'Write')
    expect(failure.message).toMatch(message)
    expect(failure.retryable).toBe(retryable)
  })

  it('joins the result, the PostToolUse feedback and the user note for the model', () => {
    const out = resultOutcome(
      { call: call('Write', '{}'), name: 'Write', summary: 'Write a' },
      { forModel: 'wrote a' },
      { durationMs: 3, feedback: 'PostToolUse hook feedback:\nlint it', note: 'keep it short', stop: 'done' },
    )
    expect(out.content).toBe(
      'wrote a\n\nPostToolUse hook feedback:\nlint it\n\n[The user allowed this call and added a note: keep it short]',
    )
    expect(out).toMatchObject({
      status: 'done',
      ok: true,
      durationMs: 3,
      stopTurn: 'PostToolUse hook stopped the turn: done',
    })
    expect(summaryOf(write, { file_path: 'a', content: '' }, 'Write')).toBe('Write a')
  })
})
