/**
 * What the model gets, and whether the turn goes on, after the user answers a consent prompt (issue #21
 * items 1 and 4): the real consent broker, the real loop, the scripted server.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { PermissionGate } from '../../../../source/permissions/gate.js'
import { createConsentBroker } from '../../../../source/permissions/broker.js'
import type { Store } from '../../../../source/store/create-store.js'
import type { ConsentDecision } from '../../../../source/store/domain.js'
import { type AnyTool, defineTool } from '../../../../source/tools/types.js'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'
import { waitFor } from '../../tasks/helpers.ts'
import { echoTool, makeHarness } from '../turn/loop-harness.js'

let server: ScriptedServer
afterEach(async () => {
  expect(server.pairingViolations).toEqual([])
  await server.close()
})

type Msg = { role: string; content?: unknown; tool_call_id?: string }
const messagesOf = (i: number) => (server.requests[i]?.body.messages ?? []) as Msg[]
const toolResults = (i: number) => messagesOf(i).filter((m) => m.role === 'tool')
const envelopeOf = (m: Msg | undefined) => JSON.parse(String(m?.content)).error

/** A command-like tool that always needs consent and records what ran. */
function guardedTool(ran: string[], risk: 'exec' | 'read' = 'exec'): AnyTool {
  return defineTool({
    name: risk === 'exec' ? 'Run' : 'Peek',
    description: 'needs consent',
    schema: z.strictObject({ what: z.string().describe('what') }),
    risk,
    isReadOnly: () => risk === 'read',
    permissionTarget: () => ({ kind: 'none' }),
    preview: async () => ({ kind: 'none' }),
    summarize: (a) => `${risk === 'exec' ? 'Run' : 'Peek'} ${a.what}`,
    async execute(a) {
      ran.push(a.what)
      return { forModel: `ran ${a.what}` }
    },
  })
}

/** The loop with a gate that asks for every call, answered through the real broker. */
function consentHarness(tools: AnyTool[]) {
  const h = makeHarness({ baseUrl: server.baseUrl, tools, interactive: true })
  const broker = createConsentBroker({ dispatch: h.store.dispatch, policy: 'interactive' })
  const gate: PermissionGate = {
    mode: () => 'safe',
    resolveTarget: async (t) => t,
    check: () => ({ decision: 'ask', reason: 'safe mode asks' }),
    suggestRule: (tool) => tool,
    canAsk: () => true,
    request: (req, signal) => broker.request(req, signal),
  }
  h.deps.executor.gate = gate
  return { ...h, broker }
}

/** Answers the next consent request the store shows with `decision`. */
async function answer(
  store: Store,
  broker: { resolve(id: string, d: ConsentDecision): boolean },
  decision: ConsentDecision,
) {
  await waitFor(() => store.getState().consent.queue.length > 0, 'a consent request')
  const id = store.getState().consent.queue[0] as string
  broker.resolve(id, decision)
}

describe('answers at the consent prompt', () => {
  it('allow with a note: the note reaches the model with the result and stays in the session', async () => {
    server = await startScriptedServer({
      replies: [{ toolCalls: [{ name: 'Run', arguments: { what: 'build' } }] }, { text: 'ok' }],
    })
    const ran: string[] = []
    const h = consentHarness([guardedTool(ran)])
    const run = h.run('go')
    await answer(h.store, h.broker, { kind: 'once', note: 'use the release profile' })
    expect(await run).toMatchObject({ kind: 'completed' })
    expect(ran).toEqual(['build'])
    const result = String(toolResults(1)[0]?.content)
    expect(result).toContain('ran build')
    expect(result).toContain('use the release profile')
    // The session log is the action stream: the stored tool result carries the note too.
    const stored = h.store.getState().messages.find((m) => m.role === 'tool')
    expect(String(stored?.content)).toContain('use the release profile')
    const notices = Object.values(h.store.getState().transcript.items).filter((i) => i.kind === 'notice')
    expect(notices.map((n) => (n.kind === 'notice' ? n.text : ''))).toContainEqual(
      expect.stringContaining('use the release profile'),
    )
  })

  it('a plain deny ends the step: later calls of the message are not run and nothing more is requested', async () => {
    server = await startScriptedServer({
      replies: [
        {
          toolCalls: [
            { name: 'Run', arguments: { what: 'rm' } },
            { name: 'Echo', arguments: { text: 'after' } },
          ],
        },
        { text: 'should not be asked for' },
      ],
    })
    const ran: string[] = []
    const h = consentHarness([guardedTool(ran), echoTool()])
    const run = h.run('clean up')
    await answer(h.store, h.broker, { kind: 'deny' })
    const result = await run
    expect(result.kind).toBe('stopped')
    expect(server.requests).toHaveLength(1)
    expect(ran).toEqual([])
    const [denied, notRun] = h.store.getState().messages.filter((m) => m.role === 'tool')
    expect(envelopeOf(denied)).toMatchObject({ category: 'permission', message: 'the user denied Run' })
    expect(envelopeOf(notRun).message).toMatch(/^not run: the user denied Run rm/)
    const notices = Object.values(h.store.getState().transcript.items).filter((i) => i.kind === 'notice')
    expect(notices.map((n) => (n.kind === 'notice' ? n.text : ''))).toContainEqual(
      expect.stringContaining('waits for you'),
    )
    // The user's next message goes out with every call answered (the server checks the pairing).
    server.enqueue({ text: 'fine' })
    expect(await h.run('leave it')).toMatchObject({ kind: 'completed' })
    expect(toolResults(1)).toHaveLength(2)
  })

  it('a deny with a note goes on with the note', async () => {
    server = await startScriptedServer({
      replies: [
        {
          toolCalls: [
            { name: 'Run', arguments: { what: 'npm install' } },
            { name: 'Run', arguments: { what: 'npm test' } },
          ],
        },
        { text: 'using npm ci' },
      ],
    })
    const ran: string[] = []
    const h = consentHarness([guardedTool(ran)])
    const run = h.run('set up')
    await answer(h.store, h.broker, { kind: 'deny', note: 'use npm ci' })
    expect(await run).toMatchObject({ kind: 'completed', text: 'using npm ci' })
    expect(ran).toEqual([])
    const [first, second] = toolResults(1)
    expect(envelopeOf(first).message).toBe('the user denied Run and said: use npm ci')
    expect(envelopeOf(second).message).toMatch(/^not run/)
    expect(h.store.getState().consent.queue).toEqual([])
  })

  it('a deny nobody gave (the prompt timed out) is an ordinary refusal: the model goes on', async () => {
    server = await startScriptedServer({
      replies: [{ toolCalls: [{ name: 'Run', arguments: { what: 'deploy' } }] }, { text: 'skipped it' }],
    })
    const h = consentHarness([guardedTool([])])
    const run = h.run('go')
    await answer(h.store, h.broker, { kind: 'deny', note: 'no answer within 5s', automatic: true })
    expect(await run).toMatchObject({ kind: 'completed', text: 'skipped it' })
    expect(envelopeOf(toolResults(1)[0]).message).toBe('Run was denied: no answer within 5s')
  })

  it('a deny withdraws the other prompts of concurrent calls of the same message', async () => {
    server = await startScriptedServer({
      replies: [
        {
          toolCalls: [
            { name: 'Peek', arguments: { what: 'a' } },
            { name: 'Peek', arguments: { what: 'b' } },
          ],
        },
      ],
    })
    const ran: string[] = []
    const h = consentHarness([guardedTool(ran, 'read')])
    const run = h.run('look')
    await waitFor(() => h.store.getState().consent.queue.length === 2, 'both prompts')
    h.broker.resolve(h.store.getState().consent.queue[0] as string, { kind: 'deny' })
    expect((await run).kind).toBe('stopped')
    expect(h.store.getState().consent.queue).toEqual([])
    expect(ran).toEqual([])
    const results = h.store.getState().messages.filter((m) => m.role === 'tool')
    expect(results.map((m) => envelopeOf(m).message)).toEqual([
      'the user denied Peek',
      expect.stringMatching(/^not run: the user denied Peek a/),
    ])
  })
})
