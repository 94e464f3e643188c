import { afterEach, describe, expect, it } from 'vitest'
import { overflowFigures } from '../../../../source/agent/context/overflow.js'
import { createOpenAIProvider } from '../../../../source/provider/client.js'
import { ProviderError } from '../../../../source/provider/types.js'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'
import { OVERFLOW_WORDINGS, wordingText } from './overflow-wordings.js'

let server: ScriptedServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('context overflow wordings', () => {
  it.each(OVERFLOW_WORDINGS.map((w) => [w.server, w] as const))(
    '%s: the figures in its message',
    (_name, w) => {
      expect(overflowFigures(wordingText(w))).toEqual(w.figures)
    },
  )

  it.each(OVERFLOW_WORDINGS.map((w) => [w.server, w] as const))(
    '%s: its HTTP reply becomes a context_overflow ProviderError that quotes it',
    async (_name, w) => {
      server = await startScriptedServer({ replies: [{ status: w.status, body: w.body }] })
      const provider = createOpenAIProvider({ baseUrl: server.baseUrl, baseDelayMs: 1, maxAttempts: 1 })
      const error = await provider
        .stream(
          {
            model: 'm',
            messages: [{ role: 'user', content: 'hi' }],
            tools: [],
            toolChoice: 'auto',
            signal: new AbortController().signal,
          },
          {},
        )
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ProviderError)
      expect((error as ProviderError).kind).toBe('context_overflow')
      expect((error as ProviderError).message).toContain(wordingText(w))
    },
  )

  it('finds nothing in an unrelated error', () => {
    expect(overflowFigures('rate limited: try again in 20 s')).toEqual({})
  })
})
