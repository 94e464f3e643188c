import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool } from '../../../../source/tools/types.js'
import { MAX_STEPS_INSTRUCTION } from '../../../../source/agent/turn/loop.js'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'
import { blockingTool, echoTool, failingTool, makeHarness } from './loop-harness.js'

let server: ScriptedServer
afterEach(async () => {
  expect(server.pairingViolations).toEqual([])
  await server.close()
})

const call = (name: string, args: Record<string, unknown> | string, id?: string) => ({
  toolCalls: [{ name, arguments: args, ...(id ? { id } : {}) }],
})

type Msg = { role: string; content?: unknown; tool_call_id?: string }
const messagesOf = (i: number) => server.requests[i]?.body.messages as Msg[]
const toolResults = (i: number) => messagesOf(i).filter((m) => m.role === 'tool')

describe('agent loop', () => {
  it('runs a tool and feeds the result back until the model answers', async () => {
    server = await startScriptedServer({ replies: [call('Echo', { text: 'hi' }), { text: 'done' }] })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [echoTool()] })
    const result = await h.run('say hi')
    expect(result).toMatchObject({ kind: 'completed', text: 'done', steps: 2 })
    expect(toolResults(1).map((m) => m.content)).toEqual(['echo: hi'])
    expect(h.store.getState().usage.requests).toBe(2)
  })

  it('disables tools on the last step without changing the definitions', async () => {
    server = await startScriptedServer({ fallback: call('Echo', { text: 'again' }) })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [echoTool()], maxSteps: 3 })
    server.enqueue(call('Echo', { text: '1' }), call('Echo', { text: '2' }), { text: 'summary of work' })
    const result = await h.run('loop')
    expect(result).toMatchObject({ kind: 'max-steps', steps: 3, text: 'summary of work' })
    expect(server.requests.map((r) => r.body.tool_choice)).toEqual(['auto', 'auto', 'none'])
    expect(JSON.stringify(server.requests[2]?.body.tools)).toBe(
      JSON.stringify(server.requests[0]?.body.tools),
    )
    expect(messagesOf(2).at(-1)).toEqual({ role: 'user', content: MAX_STEPS_INSTRUCTION })
  })

  it('answers tool calls made despite tool_choice none so the history stays paired', async () => {
    server = await startScriptedServer({ fallback: call('Echo', { text: 'x' }) })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [echoTool()], maxSteps: 1 })
    const result = await h.run('go')
    expect(result.kind).toBe('max-steps')
    const last = h.store.getState().messages.at(-1)
    expect(last).toMatchObject({ role: 'tool' })
    expect(String(last?.content)).toContain('tools are disabled')
  })

  it('returns an envelope listing the tools for an unknown tool', async () => {
    server = await startScriptedServer({ replies: [call('Nope', {}), { text: 'ok' }] })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [echoTool(), failingTool()] })
    await h.run('x')
    const env = JSON.parse(String(toolResults(1)[0]?.content))
    expect(env.error).toMatchObject({ tool: 'Nope', category: 'not_found' })
    expect(env.error.hint).toContain('Echo, Fail')
  })

  it('repairs trivially malformed arguments and reports invalid ones with the issues', async () => {
    server = await startScriptedServer({
      replies: [
        { toolCalls: [{ name: 'Echo', arguments: '{"text": "a",}' }] },
        { toolCalls: [{ name: 'Echo', arguments: '{"text": 5}' }] },
        { toolCalls: [{ name: 'Echo', arguments: 'not json' }] },
        { text: 'fin' },
      ],
    })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [echoTool()] })
    await h.run('x')
    expect(toolResults(1)[0]?.content).toBe('echo: a')
    const invalid = JSON.parse(String(toolResults(2)[1]?.content))
    expect(invalid.error).toMatchObject({ category: 'validation' })
    expect(invalid.error.message).toContain('text')
    const broken = JSON.parse(String(toolResults(3)[2]?.content))
    expect(broken.error.message).toContain('not valid JSON')
  })

  it('reminds once after a repeated failing call, then stops when it repeats', async () => {
    server = await startScriptedServer({ fallback: call('Fail', { path: 'missing.txt' }) })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [failingTool()] })
    const result = await h.run('read it')
    expect(result.kind).toBe('stopped')
    expect(result.error).toContain('repeating a failing Fail call')
    const reminders = h.store
      .getState()
      .messages.filter((m) => m.role === 'user' && String(m.content).startsWith('Reminder:'))
    expect(reminders).toHaveLength(1)
    expect(server.requests).toHaveLength(4)
  })

  it('stops at the circuit breaker pause in headless mode', async () => {
    server = await startScriptedServer({ fallback: (req) => call('Echo', { text: String(req.receivedAt) }) })
    const h = makeHarness({
      baseUrl: server.baseUrl,
      tools: [echoTool()],
      breaker: { warnAt: 2, pauseAt: 3, hardStopAt: 10 },
    })
    const result = await h.run('go')
    expect(result.kind).toBe('stopped')
    expect(result.error).toContain('3 tool calls')
    const notices = Object.values(h.store.getState().transcript.items).filter((i) => i.kind === 'notice')
    expect(notices.map((n) => (n.kind === 'notice' ? n.text : ''))).toContainEqual(
      expect.stringContaining('2 tool calls'),
    )
  })

  it('runs consecutive read-only calls concurrently and keeps results in call order', async () => {
    const log: string[] = []
    server = await startScriptedServer({
      replies: [
        {
          toolCalls: [
            { name: 'Echo', arguments: { text: 'a' } },
            { name: 'Echo', arguments: { text: 'b' } },
          ],
        },
        { text: 'ok' },
      ],
    })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [echoTool(log)] })
    await h.run('x')
    expect(log.slice(0, 2)).toEqual(['start a', 'start b'])
    expect(toolResults(1).map((m) => m.content)).toEqual(['echo: a', 'echo: b'])
  })

  it('runs consecutive spawn calls concurrently, and a call that changes things on its own', async () => {
    const log: string[] = []
    const spawn = (name: string, risk: 'spawn' | 'exec') =>
      defineTool({
        name,
        description: name,
        schema: z.strictObject({ text: z.string().describe('text') }),
        risk,
        isReadOnly: () => false,
        permissionTarget: () => ({ kind: 'none' }),
        preview: async () => ({ kind: 'none' }),
        summarize: (a) => `${name} ${a.text}`,
        async execute(a) {
          log.push(`start ${a.text}`)
          await new Promise((r) => setTimeout(r, 5))
          log.push(`end ${a.text}`)
          return { forModel: `${name}: ${a.text}` }
        },
      })
    server = await startScriptedServer({
      replies: [
        {
          toolCalls: [
            { name: 'Spawn', arguments: { text: 'a' } },
            { name: 'Spawn', arguments: { text: 'b' } },
            { name: 'Echo', arguments: { text: 'c' } },
            { name: 'Run', arguments: { text: 'd' } },
            { name: 'Spawn', arguments: { text: 'e' } },
          ],
        },
        { text: 'ok' },
      ],
    })
    const h = makeHarness({
      baseUrl: server.baseUrl,
      tools: [spawn('Spawn', 'spawn'), spawn('Run', 'exec'), echoTool(log)],
    })
    await h.run('x')
    // a, b and c overlap; d (exec) runs alone; e after it.
    expect(log.slice(0, 3)).toEqual(['start a', 'start b', 'start c'])
    expect(log.indexOf('start d')).toBeGreaterThan(log.indexOf('end b'))
    expect(log.indexOf('start e')).toBeGreaterThan(log.indexOf('end d'))
    expect(toolResults(1).map((m) => m.content)).toEqual([
      'Spawn: a',
      'Spawn: b',
      'echo: c',
      'Run: d',
      'Spawn: e',
    ])
  })

  it('interrupt during a tool keeps partial text and synthesises results for unfinished calls', async () => {
    let started!: () => void
    const toolStarted = new Promise<void>((r) => {
      started = r
    })
    server = await startScriptedServer({
      replies: [
        {
          text: 'Working on it',
          toolCalls: [
            { name: 'Block', arguments: {} },
            { name: 'Echo', arguments: { text: 'never' } },
          ],
        },
        { text: 'after interrupt' },
      ],
    })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [blockingTool(() => started()), echoTool()] })
    const controller = new AbortController()
    const turn = h.run('x', controller.signal)
    await toolStarted
    controller.abort()
    const result = await turn
    expect(result).toMatchObject({ kind: 'interrupted', text: 'Working on it' })
    const statuses = Object.values(h.store.getState().transcript.items)
      .filter((i) => i.kind === 'tool')
      .map((i) => (i.kind === 'tool' ? i.status : ''))
    expect(statuses).toEqual(['cancelled', 'cancelled'])
    // the next turn's request must still satisfy the pairing rule (checked in afterEach)
    await h.run('continue')
    expect(toolResults(1)).toHaveLength(2)
  })

  it('interrupt during streaming keeps the partial assistant text', async () => {
    server = await startScriptedServer({
      replies: [{ text: 'partial answer that hangs', chunkSize: 4, hangAfterChunks: 3 }],
    })
    const h = makeHarness({ baseUrl: server.baseUrl, tools: [echoTool()] })
    const controller = new AbortController()
    const seen = new Promise<void>((resolve) => {
      const off = h.store.subscribe(() => {
        if (h.store.getState().transcript.liveId) {
          off()
          resolve()
        }
      })
    })
    const turn = h.run('x', controller.signal)
    await seen
    controller.abort()
    const result = await turn
    expect(result.kind).toBe('interrupted')
    expect(result.text.length).toBeGreaterThan(0)
    expect('partial answer that hangs'.startsWith(result.text)).toBe(true)
    expect(h.store.getState().messages.at(-1)).toMatchObject({ role: 'assistant', content: result.text })
    const notices = Object.values(h.store.getState().transcript.items).filter((i) => i.kind === 'notice')
    expect(notices.map((n) => (n.kind === 'notice' ? n.text : ''))).toContainEqual(
      expect.stringContaining('Interrupted'),
    )
  })
})
