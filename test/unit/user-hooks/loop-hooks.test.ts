/**
 * Hooks at the loop's narrow points — PreToolUse and PostToolUse around a call, UserPromptSubmit before
 * the prompt, Stop when the model is done — with real hook processes and the scripted server recording
 * what the model is sent.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { MAX_STOP_CONTINUATIONS } from '../../../source/agent/turn/turn-hooks.js'
import { collectHooks, type HooksSettings } from '../../../source/user-hooks/hook-settings.js'
import { createHookService, type HookService } from '../../../source/user-hooks/hook-service.js'
import type { HookEvent } from '../../../source/user-hooks/types.js'
import { type ScriptedServer, startScriptedServer } from '../../support/scripted-server.ts'
import { echoTool, makeHarness } from '../agent/turn/loop-harness.js'

let server: ScriptedServer
let service: HookService | undefined
afterEach(async () => {
  await service?.dispose()
  service = undefined
  expect(server.pairingViolations).toEqual([])
  await server.close()
})

type Msg = { role: string; content?: unknown }
const messagesOf = (i: number) => (server.requests[i]?.body.messages ?? []) as Msg[]
const toolResult = (i: number) => messagesOf(i).find((m) => m.role === 'tool')?.content as string
const echo = (text: string) => ({ toolCalls: [{ name: 'Echo', arguments: { text } }] })

/** A harness whose session has these hooks (one command each, matcher as given). */
function withHooks(hooks: Partial<Record<HookEvent, Array<{ matcher?: string; command: string }>>>) {
  const settings: HooksSettings = {}
  for (const [event, list] of Object.entries(hooks)) {
    settings[event] = list.map((h) => ({
      ...(h.matcher ? { matcher: h.matcher } : {}),
      hooks: [{ type: 'command', command: h.command }],
    }))
  }
  const collected = collectHooks([{ scope: 'user', label: 'user.json', settings: { hooks: settings } }])
  service = createHookService({
    view: () => ({ active: collected.hooks, inactive: [], warnings: [] }),
    projectDir: process.cwd(),
    common: () => ({
      session_id: 's',
      transcript_path: '/t',
      cwd: process.cwd(),
      permission_mode: 'default',
    }),
  })
  const log: string[] = []
  const h = makeHarness({ baseUrl: server.baseUrl, tools: [echoTool(log)] })
  h.deps.executor.hooks = {
    service,
    dispatch: h.store.dispatch,
    workspace: process.cwd(),
    notify: () => undefined,
    newId: h.deps.newId,
  }
  h.deps.hooks = { service, dispatch: h.store.dispatch }
  const cards = () =>
    Object.values(h.store.getState().transcript.items)
      .filter((i) => i.kind === 'hook')
      .map((i) => (i.kind === 'hook' ? i.text : ''))
  return { ...h, log, cards }
}

const answer = (value: unknown) => `echo '${JSON.stringify(value)}'`

describe('PreToolUse', () => {
  it('exit 2 blocks the call: it does not run and the model reads the reason', async () => {
    server = await startScriptedServer({ replies: [echo('x'), { text: 'ok' }] })
    const h = withHooks({ PreToolUse: [{ matcher: 'Echo', command: 'echo "not today" >&2; exit 2' }] })
    await h.run('go')
    expect(h.log).toEqual([])
    expect(toolResult(1)).toContain('Echo blocked by a PreToolUse hook: not today')
    expect(h.cards()).toEqual(['PreToolUse hook blocked Echo: not today'])
  })

  it('a matcher for another tool leaves the call alone', async () => {
    server = await startScriptedServer({ replies: [echo('x'), { text: 'ok' }] })
    const h = withHooks({ PreToolUse: [{ matcher: 'Bash', command: 'exit 2' }] })
    await h.run('go')
    expect(toolResult(1)).toBe('echo: x')
  })

  it('updatedInput rewrites the arguments; the tool runs with them and PostToolUse sees them', async () => {
    server = await startScriptedServer({ replies: [echo('original'), { text: 'ok' }] })
    const h = withHooks({
      PreToolUse: [{ command: answer({ hookSpecificOutput: { updatedInput: { text: 'rewritten' } } }) }],
      PostToolUse: [{ command: 'cat >&2; exit 2' }],
    })
    await h.run('go')
    expect(h.log).toEqual(['start rewritten', 'end rewritten'])
    // The history sent back says what ran, not what the model asked for.
    const sent = (server.requests[1]?.body.messages ?? []) as Array<{ role: string; tool_calls?: unknown }>
    const assistant = sent.find((m) => m.role === 'assistant')
    expect(assistant?.tool_calls).toMatchObject([
      { function: { name: 'Echo', arguments: '{"text":"rewritten"}' } },
    ])
    expect(h.store.getState().messages.find((m) => m.role === 'assistant')).toMatchObject({
      tool_calls: [{ function: { arguments: '{"text":"rewritten"}' } }],
    })
    const result = toolResult(1)
    expect(result).toMatch(/^echo: rewritten\n\nPostToolUse hook feedback:\n/)
    const seen = JSON.parse(result.split('PostToolUse hook feedback:\n')[1] as string)
    expect(seen).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_name: 'Echo',
      tool_input: { text: 'rewritten' },
      tool_response: { output: 'echo: rewritten', success: true },
    })
  })

  it('a rewrite the tool schema rejects is not run, and the model is told the hook is at fault', async () => {
    server = await startScriptedServer({ replies: [echo('x'), { text: 'ok' }] })
    const h = withHooks({
      PreToolUse: [{ command: answer({ hookSpecificOutput: { updatedInput: { txt: 1 } } }) }],
    })
    await h.run('go')
    expect(h.log).toEqual([])
    expect(toolResult(1)).toContain('a PreToolUse hook rewrote the arguments of Echo into invalid ones')
  })

  it("ask forces a prompt: with nobody to answer, the call is denied with the hook's reason", async () => {
    server = await startScriptedServer({ replies: [echo('x'), { text: 'ok' }] })
    const h = withHooks({
      PreToolUse: [
        {
          command: answer({
            hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'careful' },
          }),
        },
      ],
    })
    await h.run('go')
    expect(h.log).toEqual([])
    expect(toolResult(1)).toContain('needs approval (a PreToolUse hook asks: careful)')
  })

  it('"continue": false stops the turn before the call runs', async () => {
    server = await startScriptedServer({ replies: [echo('x'), { text: 'never' }] })
    const h = withHooks({ PreToolUse: [{ command: answer({ continue: false, stopReason: 'maintenance' }) }] })
    const result = await h.run('go')
    expect(result).toMatchObject({ kind: 'stopped', error: 'PreToolUse hook stopped the turn: maintenance' })
    expect(h.log).toEqual([])
    expect(server.requests).toHaveLength(1)
  })

  it('a hook that fails (exit 1) is shown and ignored', async () => {
    server = await startScriptedServer({ replies: [echo('x'), { text: 'ok' }] })
    const h = withHooks({ PreToolUse: [{ command: 'echo broken >&2; exit 1' }] })
    await h.run('go')
    expect(toolResult(1)).toBe('echo: x')
    expect(h.cards()).toEqual(['PreToolUse hook failed (exit 1): broken'])
  })
})

describe('PostToolUse', () => {
  it('decision block and additionalContext are appended to the result the model reads', async () => {
    server = await startScriptedServer({ replies: [echo('x'), { text: 'ok' }] })
    const h = withHooks({
      PostToolUse: [
        {
          command: answer({
            decision: 'block',
            reason: 'lint failed',
            hookSpecificOutput: { additionalContext: 'run npm run lint' },
          }),
        },
      ],
    })
    await h.run('go')
    expect(toolResult(1)).toBe(
      'echo: x\n\nPostToolUse hook feedback:\nlint failed\n\nAdditional context from a PostToolUse hook:\nrun npm run lint',
    )
  })
})

describe('UserPromptSubmit', () => {
  it("its stdout is context the model reads right after the user's message", async () => {
    server = await startScriptedServer({ replies: [{ text: 'ok' }] })
    const h = withHooks({ UserPromptSubmit: [{ command: 'echo "the sky is green"' }] })
    await h.run('what colour is the sky?')
    expect(messagesOf(0).slice(1)).toEqual([
      { role: 'user', content: 'what colour is the sky?' },
      { role: 'user', content: 'Context added by a UserPromptSubmit hook:\nthe sky is green' },
    ])
  })

  it('exit 2 blocks the prompt: nothing is sent and the user sees why (and the prompt)', async () => {
    server = await startScriptedServer({ replies: [{ text: 'never' }] })
    const h = withHooks({ UserPromptSubmit: [{ command: 'echo "no secrets" >&2; exit 2' }] })
    const result = await h.run('my password is hunter2')
    expect(result).toMatchObject({
      kind: 'stopped',
      error: 'UserPromptSubmit hook blocked the prompt: no secrets',
    })
    expect(server.requests).toHaveLength(0)
    expect(h.store.getState().messages).toEqual([])
    const card = Object.values(h.store.getState().transcript.items).find((i) => i.kind === 'hook')
    expect(card?.kind === 'hook' && card.detail).toContain('Your prompt (not sent):\nmy password is hunter2')
  })
})

describe('Stop', () => {
  it('a block sends the model back to work with the reason; stop_hook_active lets the hook end it', async () => {
    server = await startScriptedServer({ replies: [{ text: 'done?' }, { text: 'really done' }] })
    const h = withHooks({
      Stop: [
        { command: `grep -q '"stop_hook_active":true' && exit 0; echo "run the tests first" >&2; exit 2` },
      ],
    })
    const result = await h.run('work')
    expect(result).toMatchObject({ kind: 'completed', text: 'really done' })
    expect(messagesOf(1).at(-1)).toEqual({
      role: 'user',
      content: 'Stop hook feedback:\nrun the tests first',
    })
    expect(server.requests).toHaveLength(2)
  })

  it(`a hook that always blocks is obeyed ${MAX_STOP_CONTINUATIONS} times, then the turn ends with a notice`, async () => {
    server = await startScriptedServer({ fallback: { text: 'done' } })
    const h = withHooks({ Stop: [{ command: 'echo more >&2; exit 2' }] })
    const result = await h.run('work')
    expect(result.kind).toBe('completed')
    expect(server.requests).toHaveLength(MAX_STOP_CONTINUATIONS + 1)
    const notices = Object.values(h.store.getState().transcript.items).filter((i) => i.kind === 'notice')
    expect(notices.at(-1)?.kind === 'notice' && notices.at(-1)).toMatchObject({
      text: expect.stringContaining(`kept the agent working ${MAX_STOP_CONTINUATIONS} times`),
    })
  })
})
