import { afterEach, describe, expect, it } from 'vitest'
import { CONTINUE_INSTRUCTION } from '../../../../source/agent/turn/output-limit.js'
import type { Action } from '../../../../source/store/actions.js'
import type { State } from '../../../../source/store/state.js'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'
import { echoTool, makeHarness } from './loop-harness.js'

let server: ScriptedServer
afterEach(async () => {
  expect(server.pairingViolations).toEqual([])
  await server.close()
})

type Msg = {
  role: string
  content?: unknown
  tool_call_id?: string
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>
}
const messagesOf = (i: number) => server.requests[i]?.body.messages as Msg[]

function notices(state: State): Array<{ id: string; level: string; text: string }> {
  return state.transcript.order
    .map((id) => state.transcript.items[id])
    .flatMap((item) => (item?.kind === 'notice' ? [{ id: item.id, level: item.level, text: item.text }] : []))
}

describe('agent loop: cut streams', () => {
  it('runs nothing from a stream cut mid tool call; the step is retried and the retry is what counts', async () => {
    const log: string[] = []
    server = await startScriptedServer({
      replies: [
        {
          text: 'Let me echo.',
          toolCalls: [{ name: 'Echo', arguments: '{"text":"from the cut stream"}' }],
          // Cut right after the closing quote: `{"text":"from the cut stream"` — one `}` short.
          chunkSize: 5,
          cutAfterChunks: 11,
        },
        { text: 'Let me echo again.', toolCalls: [{ name: 'Echo', arguments: { text: 'whole' } }] },
        { text: 'done' },
      ],
    })
    const actions: Action[] = []
    const h = makeHarness({
      baseUrl: server.baseUrl,
      tools: [echoTool(log)],
      observe: (a) => actions.push(a),
    })
    const result = await h.run('echo something')
    expect(result).toMatchObject({ kind: 'completed', text: 'done', steps: 2 })
    expect(log).toEqual(['start whole', 'end whole'])
    expect(server.requests).toHaveLength(3)
    const state = h.store.getState()
    // The cut attempt's text was shown while it streamed, then withdrawn: the transcript and the
    // history hold the retried reply only.
    expect(actions.some((a) => a.type === 'assistant/discarded')).toBe(true)
    const texts = state.transcript.order.map((id) => state.transcript.items[id])
    expect(
      texts.filter((i) => i?.kind === 'assistant').map((i) => (i?.kind === 'assistant' ? i.text : '')),
    ).toEqual(['Let me echo again.', 'done'])
    expect(state.messages.filter((m) => m.role === 'assistant')).toHaveLength(2)
    expect(notices(state)).toEqual([
      {
        id: expect.any(String),
        level: 'info',
        text: `${server.baseUrl} closed the stream mid-reply (no finish_reason and no [DONE]) — recovered on attempt 2 of 5`,
      },
    ])
  })

  it('ends the turn with an error, not completed, when every attempt is cut; one notice says so', async () => {
    const cut = { text: 'partial answer', chunkSize: 4, cutAfterChunks: 3 }
    server = await startScriptedServer({ replies: [cut, cut, cut] })
    const actions: Action[] = []
    const h = makeHarness({
      baseUrl: server.baseUrl,
      tools: [echoTool()],
      maxAttempts: 3,
      observe: (a) => actions.push(a),
    })
    const result = await h.run('answer')
    const reason = `${server.baseUrl} closed the stream mid-reply (no finish_reason and no [DONE])`
    expect(result).toMatchObject({ kind: 'error', text: '', error: `${reason} (gave up after 3 attempts)` })
    const state = h.store.getState()
    expect(state.messages.filter((m) => m.role === 'assistant')).toEqual([])
    expect(Object.values(state.transcript.items).filter((i) => i.kind === 'assistant')).toEqual([])
    expect(notices(state)).toEqual([{ id: expect.any(String), level: 'error', text: result.error }])
    // While it retried, that same notice counted attempts (updated in place, never logged per attempt).
    const updates = actions.filter((a) => a.type === 'notice/updated')
    expect(new Set(updates.map((a) => a.id))).toEqual(new Set([notices(state)[0]?.id]))
    expect(updates.map((a) => a.text)).toContainEqual(expect.stringContaining('attempt 2 of 3 failed'))
  })
})

describe('agent loop: tool arguments that are not JSON', () => {
  it('does not run a call whose arguments miss their closing brace, and sends valid JSON afterwards', async () => {
    const log: string[] = []
    server = await startScriptedServer({
      replies: [
        { toolCalls: [{ id: 'call_cut', name: 'Echo', arguments: '{"text":"touch cutA.txt"' }] },
        { text: 'I will not retry.' },
      ],
    })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [echoTool(log)] })
    const result = await h.run('x')
    expect(result.kind).toBe('completed')
    expect(log).toEqual([])
    const history = messagesOf(1)
    const assistant = history.find((m) => m.role === 'assistant')
    expect(assistant?.tool_calls?.[0]).toMatchObject({
      id: 'call_cut',
      function: { name: 'Echo', arguments: '{}' },
    })
    const answer = history.find((m) => m.role === 'tool')
    const envelope = JSON.parse(String(answer?.content))
    expect(answer?.tool_call_id).toBe('call_cut')
    expect(envelope.error).toMatchObject({ tool: 'Echo', category: 'validation', retryable: false })
    expect(envelope.error.message).toContain('arguments are not valid JSON')
    expect(envelope.error.message).toContain('{"text":"touch cutA.txt"')
  })
})

describe('agent loop: finish_reason length', () => {
  it('asks the model to continue a reply cut by the output limit, and returns the whole text', async () => {
    server = await startScriptedServer({
      replies: [{ text: 'The first half, ', finishReason: 'length' }, { text: 'and the second half.' }],
    })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [echoTool()] })
    const result = await h.run('write a lot')
    expect(result).toMatchObject({
      kind: 'completed',
      text: 'The first half, and the second half.',
      steps: 2,
    })
    const history = messagesOf(1)
    expect(history.at(-2)).toMatchObject({ role: 'assistant', content: 'The first half, ' })
    expect(history.at(-1)).toEqual({ role: 'user', content: CONTINUE_INSTRUCTION })
    expect(notices(h.store.getState()).map((n) => n.text)).toEqual([
      'The reply hit the output token limit (finish_reason: length); asking the model to continue where it stopped (1 of 2)',
    ])
  })

  it('does not run a tool call cut by the limit, and tells the model it was cut off', async () => {
    const log: string[] = []
    server = await startScriptedServer({
      replies: [
        {
          toolCalls: [
            { name: 'Echo', arguments: { text: 'complete' } },
            { name: 'Echo', arguments: '{"text":"a very long text that the limi' },
          ],
          finishReason: 'length',
        },
        { text: 'ok' },
      ],
    })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [echoTool(log)] })
    const result = await h.run('x')
    expect(result.kind).toBe('completed')
    expect(log).toEqual(['start complete', 'end complete'])
    const results = messagesOf(1).filter((m) => m.role === 'tool')
    expect(results[0]?.content).toBe('echo: complete')
    const envelope = JSON.parse(String(results[1]?.content))
    expect(envelope.error.message).toContain('the reply hit the output token limit (finish_reason: length)')
    expect(envelope.error.message).toContain('the call was not run')
    expect(notices(h.store.getState()).map((n) => n.text)).toEqual([
      'The reply hit the output token limit (finish_reason: length) in the middle of the Echo call (not run; the model was told)',
    ])
  })

  it('stops after two continuations in a row when the model always hits the limit', async () => {
    server = await startScriptedServer({ fallback: { text: 'more…', finishReason: 'length' } })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [echoTool()] })
    const result = await h.run('write forever')
    expect(result.kind).toBe('stopped')
    expect(result.error).toContain('hit the output token limit 3 times in a row')
    expect(result.text).toBe('more…more…more…')
    expect(server.requests).toHaveLength(3)
    expect(notices(h.store.getState()).at(-1)).toMatchObject({ level: 'warn', text: result.error })
  })
})
