import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Store } from '../../../../source/store/create-store.js'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'
import { addStep, makeRuntime, makeStore, textOf, type WireMessage } from './harness.js'
import { OVERFLOW_WORDINGS } from './overflow-wordings.js'

let server: ScriptedServer
let spillDir: string
beforeEach(async () => {
  server = await startScriptedServer()
  spillDir = await mkdtemp(join(tmpdir(), 'agent-tui-recovery-'))
})
afterEach(async () => {
  expect(server.pairingViolations).toEqual([])
  await server.close()
  await rm(spillDir, { recursive: true, force: true })
})

const messagesOf = (i: number) => server.requests[i]?.body.messages as WireMessage[]

function notices(store: Store): string[] {
  const state = store.getState()
  return state.transcript.order.flatMap((id) => {
    const item = state.transcript.items[id]
    return item?.kind === 'notice' ? [item.text] : []
  })
}

/** A conversation long enough to be compacted. */
function longStore(): Store {
  const store = makeStore()
  for (let i = 0; i < 8; i++) addStep(store, i)
  return store
}

describe('context overflow recovery: one compaction and a retry of the step', () => {
  it.each(OVERFLOW_WORDINGS.map((w) => [w.server, w] as const))(
    '%s: compacts, retries the step and finishes the turn',
    async (_name, w) => {
      const store = longStore()
      const runtime = makeRuntime({ store, baseUrl: server.baseUrl, spillDir })
      server.enqueue(
        { status: w.status, body: w.body },
        { text: 'SUMMARY OF EARLIER WORK' },
        { text: 'done' },
      )
      const result = await runtime.runTurn({ text: 'carry on' })
      expect(result).toMatchObject({ kind: 'completed', text: 'done' })
      expect(server.requests).toHaveLength(3)
      // The retried step sends the summary in place of the older history, and the user's request.
      const retried = messagesOf(2)
      expect(textOf(retried[1])).toContain('SUMMARY OF EARLIER WORK')
      expect(textOf(retried.at(-1))).toBe('carry on')
      expect(JSON.stringify(retried).length).toBeLessThan(JSON.stringify(messagesOf(0)).length)
      const said = notices(store).find((t) => t.startsWith('The endpoint says the conversation does not fit'))
      expect(said).toContain('compacting and retrying once')
      if (w.figures.limit !== undefined) {
        expect(said).toContain(`(${w.figures.requested} tokens sent for a window of ${w.figures.limit})`)
        // A window the endpoint names beats the profile's, if smaller.
        expect(store.getState().context.learnedLimit).toBe(w.figures.limit < 32_768 ? w.figures.limit : null)
      } else
        expect(said).toMatch(
          /\(about \d+ tokens sent; the endpoint named no window, so assuming one of about \d+\)/,
        )
      expect(store.getState().context.compaction?.trigger).toBe('overflow')
    },
  )

  it('stops the turn with the figures when the retried step overflows too', async () => {
    const store = longStore()
    const runtime = makeRuntime({ store, baseUrl: server.baseUrl, spillDir })
    const vllm = OVERFLOW_WORDINGS.find((w) => w.server === 'vLLM')
    if (!vllm) throw new Error('vLLM wording missing')
    server.enqueue({ status: 400, body: vllm.body }, { text: 'SUMMARY' }, { status: 400, body: vllm.body })
    const result = await runtime.runTurn({ text: 'carry on' })
    expect(result.kind).toBe('error')
    expect(result.error).toMatch(
      /still does not fit the model's context window after compacting: 5120 tokens sent, window 4096 tokens/,
    )
    expect(server.requests).toHaveLength(3)
    expect(notices(store).at(-1)).toContain('still does not fit')
  })

  it('retries even when there is nothing to summarise, masking to the window the endpoint named', async () => {
    const store = makeStore()
    addStep(store, 0, { size: 12_000 })
    const runtime = makeRuntime({ store, baseUrl: server.baseUrl, spillDir, settings: { masking: false } })
    const llama = OVERFLOW_WORDINGS.find((w) => w.server === 'llama.cpp')
    if (!llama) throw new Error('llama.cpp wording missing')
    const small = {
      error: {
        ...(llama.body as { error: object }).error,
        message: 'request (4200 tokens) exceeds the available context size (2048 tokens), try increasing it',
      },
    }
    server.enqueue({ status: 400, body: small }, { text: 'ok' })
    const result = await runtime.runTurn({ text: 'go on' })
    expect(result.kind).toBe('completed')
    const retried = messagesOf(1)
    // Nothing is cut: the big older result goes as a placeholder, and the retry fits the named window.
    expect(retried.some((m) => textOf(m).includes('[earlier messages truncated'))).toBe(false)
    expect(retried.some((m) => textOf(m).startsWith('[Tool result masked: 12000 chars'))).toBe(true)
    expect(retried.some((m) => textOf(m) === 'request 0')).toBe(true)
    expect(store.getState().context.lastRequest?.estimatedTokens).toBeLessThanOrEqual(2048)
    expect(textOf(retried.at(-1))).toBe('go on')
    expect(store.getState().context.learnedLimit).toBe(2048)
    expect(notices(store)).toContain(
      'Compaction stopped: nothing to summarise yet (only 4 messages so far; the recent ones are always kept). The history is kept as it was.',
    )
  })
})
