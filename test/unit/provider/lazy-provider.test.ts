import { describe, expect, it, vi } from 'vitest'
import { createLazyProvider } from '../../../source/provider/lazy-provider.js'
import type { ChatProvider, StepResponse } from '../../../source/provider/types.js'

const response: StepResponse = {
  text: 'hi',
  reasoning: '',
  toolCalls: [],
  finishReason: 'stop',
  usage: null,
  aborted: false,
}

function fakeProvider(): ChatProvider {
  return { stream: vi.fn(async () => response), listModels: vi.fn(async () => [{ id: 'm' }]) }
}

describe('createLazyProvider', () => {
  it('loads the provider on first use, once, and delegates to it', async () => {
    const inner = fakeProvider()
    const load = vi.fn(async () => inner)
    const provider = createLazyProvider(load)
    expect(load).not.toHaveBeenCalled()
    const request = { model: 'm', messages: [], tools: [] } as unknown as Parameters<
      ChatProvider['stream']
    >[0]
    await expect(provider.stream(request, {})).resolves.toBe(response)
    await expect(provider.listModels()).resolves.toEqual([{ id: 'm' }])
    expect(load).toHaveBeenCalledTimes(1)
    expect(inner.stream).toHaveBeenCalledWith(request, {})
  })

  it('starts loading on preload, and a failed load surfaces as the first request’s error', async () => {
    const load = vi.fn(async (): Promise<ChatProvider> => {
      throw new Error('cannot load the openai module')
    })
    const provider = createLazyProvider(load)
    provider.preload()
    expect(load).toHaveBeenCalledTimes(1)
    await expect(provider.listModels()).rejects.toThrow('cannot load the openai module')
  })
})
