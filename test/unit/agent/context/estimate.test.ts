import { describe, expect, it } from 'vitest'
import { encodingFor, loadCounter, TokenEstimator } from '../../../../source/agent/context/estimate.js'

describe('encodingFor', () => {
  it.each([
    ['gpt-4o', 'o200k_base'],
    ['openai/gpt-4o-mini', 'o200k_base'],
    ['gpt-4.1-nano', 'o200k_base'],
    ['gpt-5-codex', 'o200k_base'],
    ['o3-mini', 'o200k_base'],
    ['gpt-oss-20b', 'o200k_base'],
    ['gpt-4-turbo', 'cl100k_base'],
    ['gpt-3.5-turbo', 'cl100k_base'],
    ['qwen2.5-coder:32b', null],
    ['claude-sonnet-4', null],
    ['deepseek-chat', null],
  ])('%s → %s', (model, encoding) => {
    expect(encodingFor(model)).toBe(encoding)
  })
})

describe('TokenEstimator', () => {
  it("uses the profile's characters per token until a tokenizer is loaded", async () => {
    const estimator = new TokenEstimator({ ratio: () => 3.5, encoding: () => null })
    expect(estimator.text('x'.repeat(35))).toBe(10)
    await estimator.ready()
    expect(estimator.exact).toBe(false)
    expect(estimator.text('x'.repeat(36))).toBe(11)
  })

  it('counts exactly with the encoding of an OpenAI model, loaded only when asked for', async () => {
    let loads = 0
    const estimator = new TokenEstimator({
      ratio: () => 4,
      encoding: () => 'o200k_base',
      load: async (encoding) => {
        loads++
        return loadCounter(encoding)
      },
    })
    const text = 'The quick brown fox jumps over the lazy dog.'
    expect(estimator.exact).toBe(false)
    expect(loads).toBe(0)
    expect(estimator.text(text)).toBe(Math.ceil(text.length / 4))
    await Promise.all([estimator.ready(), estimator.ready()])
    expect(loads).toBe(1)
    expect(estimator.exact).toBe(true)
    expect(estimator.text(text)).toBe(10) // o200k_base: 9 words and the full stop
  })

  it('counts a message once per object, images by part and never their base64', () => {
    const estimator = new TokenEstimator({ ratio: () => 4, encoding: () => null })
    const message = {
      role: 'user' as const,
      content: [
        { type: 'text' as const, text: 'what is this?' },
        { type: 'image_url' as const, image_url: { url: `data:image/png;base64,${'A'.repeat(400_000)}` } },
      ],
    }
    const first = estimator.message(message)
    expect(first).toBe(4 + Math.ceil(13 / 4) + 765)
    expect(estimator.message(message)).toBe(first)
    const call = {
      role: 'assistant' as const,
      content: null,
      tool_calls: [
        { id: 'c', type: 'function' as const, function: { name: 'Read', arguments: '{"file_path":"a.ts"}' } },
      ],
    }
    expect(estimator.message(call)).toBeGreaterThan(8)
  })
})
