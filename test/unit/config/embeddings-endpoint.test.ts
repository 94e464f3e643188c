import { describe, expect, it } from 'vitest'
import { resolveEmbeddings } from '../../../source/config/embeddings-endpoint.ts'

const chat = { baseUrl: 'https://llm.example/v1', apiKey: 'sk-chat', headers: { 'x-route': 'r1' } }

function resolve(
  settings: Parameters<typeof resolveEmbeddings>[0]['settings'],
  env: Record<string, string> = {},
) {
  const warnings: string[] = []
  const out = resolveEmbeddings({ model: settings?.model ?? 'e', settings, chat, env, warnings })
  return { out, warnings }
}

describe('resolveEmbeddings', () => {
  it('nothing without a model', () => {
    expect(
      resolveEmbeddings({ model: undefined, settings: undefined, chat, env: {}, warnings: [] }),
    ).toBeUndefined()
  })

  it('defaults to the chat endpoint, with its key and headers', () => {
    expect(resolve({ model: 'e' }).out).toEqual({
      model: 'e',
      baseUrl: 'https://llm.example/v1',
      apiKey: 'sk-chat',
      headers: { 'x-route': 'r1' },
      images: false,
      batchSize: 64,
      api: 'openai',
    })
  })

  it('another path of the same origin still gets them', () => {
    expect(resolve({ model: 'e', baseUrl: 'https://llm.example/embed/v1/' }).out).toMatchObject({
      baseUrl: 'https://llm.example/embed/v1',
      apiKey: 'sk-chat',
      headers: { 'x-route': 'r1' },
    })
  })

  it.each([
    ['another host', 'https://voyage.example/v1'],
    ['another port', 'https://llm.example:8443/v1'],
    ['plain http of the same host', 'http://llm.example/v1'],
  ])('%s gets neither the chat key nor its headers', (_name, baseUrl) => {
    const { out } = resolve({ model: 'e', baseUrl })
    expect(out?.apiKey).toBeUndefined()
    expect(out?.headers).toBeUndefined()
  })

  it('its own key, from the settings or the variable apiKeyEnv names; a missing variable is a warning', () => {
    expect(resolve({ model: 'e', baseUrl: 'https://v.example/v1', apiKey: 'sk-v' }).out?.apiKey).toBe('sk-v')
    expect(
      resolve({ model: 'e', baseUrl: 'https://v.example/v1', apiKeyEnv: 'VOYAGE' }, { VOYAGE: 'sk-env' }).out
        ?.apiKey,
    ).toBe('sk-env')
    const missing = resolve({ model: 'e', baseUrl: 'https://v.example/v1', apiKeyEnv: 'VOYAGE' })
    expect(missing.out?.apiKey).toBeUndefined()
    expect(missing.warnings).toEqual([
      '"embeddings.apiKeyEnv" names VOYAGE, which is not set: no key is sent for embeddings',
    ])
  })

  it('dimensions, images, batchSize and api pass through', () => {
    expect(
      resolve({ model: 'e', dimensions: 256, images: true, batchSize: 8, api: 'voyage-multimodal' }).out,
    ).toMatchObject({
      dimensions: 256,
      images: true,
      batchSize: 8,
      api: 'voyage-multimodal',
    })
    expect(resolve({ model: 'e' }).out?.api).toBe('openai')
  })
})
