import { afterEach, describe, expect, it } from 'vitest'
import { resolveEndpoint } from '../../../source/config/endpoint.js'
import {
  llamaCppWindow,
  mayHaveNativeApi,
  ollamaLoadedWindow,
  ollamaShowWindow,
} from '../../../source/config/served-window.js'
import {
  type ScriptedServer,
  type ScriptedServerOptions,
  startScriptedServer,
} from '../../support/scripted-server.ts'

let server: ScriptedServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function resolved(opts: ScriptedServerOptions, model?: string) {
  server = await startScriptedServer(opts)
  return resolveEndpoint({ baseUrl: server.baseUrl, ...(model ? { model } : {}), listTimeoutMs: 10_000 })
}

describe("the endpoint's real window, where the server says it", () => {
  it('vLLM-like: max_model_len in /v1/models', async () => {
    const r = await resolved({ models: [{ id: 'Qwen/Qwen2.5-Coder-7B', max_model_len: 16_384 }] })
    expect(r).toMatchObject({
      contextLength: 16_384,
      contextSource: "max_model_len in the endpoint's model listing",
    })
  })

  it('Ollama-like: the loaded model in /api/ps beats /api/show', async () => {
    const r = await resolved(
      {
        models: [{ id: 'qwen2.5-coder:7b' }],
        native: {
          ollamaPs: {
            models: [{ name: 'qwen2.5-coder:7b', model: 'qwen2.5-coder:7b', context_length: 8192 }],
          },
          ollamaShow: () => ({ parameters: 'num_ctx 16384', model_info: { 'qwen2.context_length': 32_768 } }),
        },
      },
      'qwen2.5-coder:7b',
    )
    expect(r).toMatchObject({ contextLength: 8192, contextSource: "Ollama's /api/ps, for the loaded model" })
  })

  it("Ollama-like, not loaded: /api/show's num_ctx, else Ollama's default rather than the trained-for figure", async () => {
    const withNumCtx = await resolved(
      {
        models: [{ id: 'llama3.1' }],
        native: {
          ollamaPs: { models: [] },
          ollamaShow: (model) =>
            model === 'llama3.1'
              ? {
                  parameters: 'stop "<|eot_id|>"\nnum_ctx                        12288',
                  model_info: { 'llama.context_length': 131_072 },
                }
              : undefined,
        },
      },
      'llama3.1',
    )
    expect(withNumCtx).toMatchObject({
      contextLength: 12_288,
      contextSource: "the num_ctx of Ollama's /api/show",
    })
    await server?.close()
    const trainedOnly = await resolved(
      {
        models: [{ id: 'llama3.1' }],
        native: { ollamaShow: () => ({ model_info: { 'llama.context_length': 131_072 } }) },
      },
      'llama3.1',
    )
    expect(trainedOnly).toMatchObject({ contextLength: 4096 })
    expect(trainedOnly.kind !== 'none' && trainedOnly.contextSource).toMatch(
      /^Ollama's default window: .*131,072/,
    )
  })

  it("llama.cpp-like: /props' n_ctx beats the listing's n_ctx_train", async () => {
    const r = await resolved({
      models: [{ id: 'model.gguf', meta: { n_ctx_train: 131_072 } }],
      native: { props: { default_generation_settings: { n_ctx: 8192 } } },
    })
    expect(r).toMatchObject({ contextLength: 8192, contextSource: "llama.cpp's /props, n_ctx" })
  })

  it('a listing that says the window is believed without asking further', async () => {
    const r = await resolved({
      models: [{ id: 'm', context_length: 65_536 }],
      native: { props: { default_generation_settings: { n_ctx: 8192 } } },
    })
    expect(r).toMatchObject({
      contextLength: 65_536,
      contextSource: "context_length in the endpoint's model listing",
    })
    expect(server?.requests).toHaveLength(0)
  })

  it('servedWindow: false asks nothing beyond the listing (the TUI asks after its first frame)', async () => {
    server = await startScriptedServer({
      models: [{ id: 'model.gguf', meta: { n_ctx_train: 131_072 } }],
      native: { props: { default_generation_settings: { n_ctx: 8192 } } },
    })
    const r = await resolveEndpoint({ baseUrl: server.baseUrl, servedWindow: false, listTimeoutMs: 10_000 })
    expect(r).toMatchObject({
      contextLength: 131_072,
      contextSource: "meta.n_ctx_train in the endpoint's model listing",
    })
  })

  it('nothing said anywhere: no window, the profile decides', async () => {
    const r = await resolved({ models: [{ id: 'm' }] })
    expect(r.kind !== 'none' && r.contextLength).toBeUndefined()
  })
})

describe('the parsers, on odd answers', () => {
  it.each([
    [{ default_generation_settings: { n_ctx: 4096 } }, 4096],
    [{ n_ctx: 2048 }, 2048],
    [{ default_generation_settings: { n_ctx: 'big' } }, undefined],
    [null, undefined],
    [[1, 2], undefined],
  ])('llama.cpp /props %j → %s', (props, expected) => {
    expect(llamaCppWindow(props)).toBe(expected)
  })
  it('Ollama names: qwen2.5 is qwen2.5:latest', () => {
    expect(
      ollamaLoadedWindow({ models: [{ name: 'qwen2.5:latest', context_length: 6000 }] }, 'qwen2.5'),
    ).toBe(6000)
    expect(
      ollamaLoadedWindow({ models: [{ name: 'qwen2.5:7b', context_length: 6000 }] }, 'qwen2.5'),
    ).toBeUndefined()
    expect(ollamaLoadedWindow({ models: 'x' }, 'qwen2.5')).toBeUndefined()
  })
  it('Ollama /api/show: num_ctx from the parameters text, the trained-for figure from model_info', () => {
    expect(ollamaShowWindow({ parameters: 'temperature 0.2\nnum_ctx 9000' })).toEqual({ numCtx: 9000 })
    expect(ollamaShowWindow({ parameters: 'num_ctx_extra 9000' })).toEqual({})
    expect(ollamaShowWindow({ model_info: { 'gemma3.context_length': 131_072 } })).toEqual({
      trained: 131_072,
    })
  })
  it.each([
    ['http://127.0.0.1:11434/v1', true],
    ['http://localhost:8080/v1', true],
    ['http://192.168.1.20:11434/v1', true],
    ['http://gpu-box:8000/v1', true],
    ['http://studio.local:1234/v1', true],
    ['https://api.openai.com/v1', false],
    ['https://openrouter.ai/api/v1', false],
    ['http://8.8.8.8/v1', false],
    ['not a url', false],
  ])('asks %s its own API: %s', (url, expected) => {
    expect(mayHaveNativeApi(url)).toBe(expected)
  })
})

describe('settings that give a larger window than the endpoint serves', () => {
  it('keep the settings, remember what is served, and warn with what works', async () => {
    const { resolveProfile } = await import('../../../source/provider/model-profiles.js')
    const { servedWindowWarning } = await import('../../../source/agent/context/definitions-warning.js')
    const source = "Ollama's /api/ps, for the loaded model"
    const profile = resolveProfile('qwen2.5-coder:7b', {
      overrides: { 'qwen2.5*': { contextLimit: 32_768 } },
      endpointContextLength: 4096,
      endpointContextSource: source,
    })
    expect(profile).toMatchObject({
      contextLimit: 32_768,
      contextLimitSource: 'settings',
      servedContextLimit: { tokens: 4096, source },
    })
    const warned = servedWindowWarning({
      model: 'qwen2.5-coder:7b',
      window: 32_768,
      served: profile.servedContextLimit,
    })
    expect(warned?.warning).toEqual({
      kind: 'served_window',
      window: 32_768,
      served: 4096,
      served_source: source,
    })
    expect(warned?.text).toMatch(
      /but the endpoint serves it with 4,096 \(Ollama's \/api\/ps, for the loaded model\)/,
    )
    expect(warned?.text).toContain('OLLAMA_CONTEXT_LENGTH=32768 ollama serve')
    // Settings at or under what is served: nothing to say.
    const smaller = resolveProfile('qwen2.5-coder:7b', {
      overrides: { 'qwen2.5*': { contextLimit: 4096 } },
      endpointContextLength: 8192,
    })
    expect(smaller.servedContextLimit).toBeUndefined()
    expect(servedWindowWarning({ model: 'm', window: 4096, served: undefined })).toBeNull()
  })
})
