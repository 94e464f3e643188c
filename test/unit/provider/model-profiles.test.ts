import { describe, expect, it } from 'vitest'
import {
  DEFAULT_PROFILE,
  matchesModelPattern,
  readsBareJson,
  resolveProfile,
} from '../../../source/provider/model-profiles.js'

describe('model profiles', () => {
  it.each([
    ['qwen2.5-coder:32b', 'qwen2.5', 32_768, 0.7, 4, 3.5, 'dense'],
    ['Qwen/Qwen2.5-Coder-32B-Instruct', 'qwen2.5', 32_768, 0.7, 4, 3.5, 'dense'],
    ['glm-4.7-flash', 'glm-4.7-flash', 128_000, 0.75, 8, 4.0, 'moe'],
    ['zai-org/GLM-4.7', 'glm-4.7', 200_000, 0.7, 8, 4.0, 'moe'],
    ['deepseek-chat', 'deepseek-v3', 128_000, 0.8, 8, 3.8, 'mla'],
    ['deepseek-ai/DeepSeek-V3.2', 'deepseek-v3', 128_000, 0.8, 8, 3.8, 'mla'],
    ['deepseek-r1-distill-qwen-32b', 'deepseek-r1-distill', 32_768, 0.7, 4, 4.0, 'dense'],
    ['moonshotai/Kimi-K2.5', 'kimi', 256_000, 0.7, 8, 4.0, 'moe'],
    ['MiniMax-M2', 'minimax', 1_000_000, 0.85, 12, 4.0, 'hybrid'],
    ['gemma3:12b', 'gemma-3', 131_072, 0.65, 2, 3.5, 'dense'],
    ['wizardcoder-15b', 'wizard', 4096, 0.6, 2, 4.0, 'dense'],
    ['llama-3.3-70b', 'llama3.x', 131_072, 0.7, 8, 4.0, 'dense'],
  ])('%s → %s', (id, family, contextLimit, compactAt, observationWindow, charToTokenRatio, architecture) => {
    expect(resolveProfile(id)).toMatchObject({
      family,
      contextLimit,
      compactAt,
      observationWindow,
      charToTokenRatio,
      architecture,
    })
  })

  it('knows current OpenAI models support vision and allowed_tools; proxied Claude/Gemini only vision', () => {
    for (const id of ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'openai/gpt-5.1', 'gpt-5-mini', 'o3', 'o4-mini']) {
      expect(resolveProfile(id), id).toMatchObject({
        supportsVision: true,
        supportsAllowedTools: true,
        supportsTools: true,
      })
    }
    for (const id of ['anthropic/claude-sonnet-4.5', 'claude-opus-4-1', 'google/gemini-2.5-pro']) {
      expect(resolveProfile(id), id).toMatchObject({
        supportsVision: true,
        supportsAllowedTools: false,
        supportsTools: true,
      })
    }
    expect(resolveProfile('gpt-4o').contextLimit).toBe(128_000)
    expect(resolveProfile('gemini-2.5-flash').contextLimit).toBe(1_048_576)
  })

  it('defaults to 32768/0.70/4/4.0 dense without vision or allowed_tools', () => {
    expect(resolveProfile('some-unknown-model')).toEqual({ ...DEFAULT_PROFILE })
    expect(DEFAULT_PROFILE).toMatchObject({
      contextLimit: 32_768,
      compactAt: 0.7,
      observationWindow: 4,
      charToTokenRatio: 4,
      architecture: 'dense',
      supportsVision: false,
      supportsAllowedTools: false,
    })
  })

  it('lets the endpoint-reported context length beat the table', () => {
    expect(resolveProfile('qwen2.5-coder:7b', { endpointContextLength: 131_072 })).toMatchObject({
      contextLimit: 131_072,
      contextLimitSource: 'endpoint',
    })
    const table = resolveProfile('qwen2.5-coder:7b', { endpointContextLength: 0 })
    expect(table.contextLimit).toBe(32_768)
    expect(table.contextLimitSource).toBeUndefined()
  })

  it('lets settings overrides beat both, applying every matching pattern in order', () => {
    const profile = resolveProfile('qwen2.5-coder:7b', {
      endpointContextLength: 131_072,
      overrides: {
        'qwen*': { contextLimit: 65_536, observationWindow: 6 },
        'qwen2.5-coder:7b': { observationWindow: 3, supportsVision: undefined },
        'gpt-*': { contextLimit: 1 },
      },
    })
    expect(profile).toMatchObject({
      family: 'qwen2.5',
      contextLimit: 65_536,
      contextLimitSource: 'settings',
      observationWindow: 3,
      supportsVision: false,
    })
  })

  it('matches globs case-insensitively against the whole id or its last segment', () => {
    expect(matchesModelPattern('gpt-4o*', 'openai/GPT-4o-mini')).toBe(true)
    expect(matchesModelPattern('openai/*', 'openai/gpt-4o')).toBe(true)
    expect(matchesModelPattern('gpt-4?', 'gpt-4o')).toBe(true)
    expect(matchesModelPattern('qwen2.5*', 'qwen205')).toBe(false)
    expect(matchesModelPattern('gpt-4o', 'gpt-4o-mini')).toBe(false)
  })
})

describe('local model families: windows and tool-call formats', () => {
  it.each([
    // id (as Ollama, llama.cpp, LM Studio or Hugging Face name it) → family, window, format
    ['qwen2.5-coder:7b', 'qwen2.5', 32_768, 'hermes'],
    ['Qwen/Qwen3-8B', 'qwen3', 32_768, 'hermes'],
    ['qwen3:14b', 'qwen3', 32_768, 'hermes'],
    ['qwen3-coder:30b', 'qwen3-coder', 262_144, 'hermes'],
    ['Qwen/Qwen3-Coder-30B-A3B-Instruct', 'qwen3-coder', 262_144, 'hermes'],
    ['llama3.1:8b', 'llama3.x', 131_072, 'llama'],
    ['meta-llama/Llama-3.2-3B-Instruct', 'llama3.x', 131_072, 'llama'],
    ['lmstudio-community/Meta-Llama-3.1-8B-Instruct-GGUF', 'llama3.x', 131_072, 'llama'],
    ['llama3:8b', 'llama3', 8192, 'llama'],
    ['mistral:7b-instruct-v0.3', 'mistral', 32_768, 'mistral'],
    ['mistral-nemo:12b', 'mistral-128k', 131_072, 'mistral'],
    ['mistralai/Mistral-Small-3.1-24B-Instruct-2503', 'mistral-128k', 131_072, 'mistral'],
    ['devstral:24b', 'devstral', 131_072, 'mistral'],
    ['mistralai/Devstral-Small-2505', 'devstral', 131_072, 'mistral'],
    ['devstral-small-2:24b', 'devstral-2', 262_144, 'mistral'],
    ['deepseek-coder:6.7b', 'deepseek-coder', 16_384, 'deepseek'],
    ['deepseek-coder-v2:16b', 'deepseek-coder-v2', 131_072, 'deepseek'],
    ['deepseek-r1-distill-qwen-7b', 'deepseek-r1-distill', 32_768, 'deepseek'],
    ['gpt-oss:20b', 'gpt-oss', 131_072, 'harmony'],
    ['gemma3:4b', 'gemma-3', 131_072, 'none'],
    ['gemma3:1b', 'gemma-3-1b', 32_768, 'none'],
    ['gemma2:9b', 'gemma-2', 8192, 'none'],
  ])('%s → %s, %i tokens, %s calls', (id, family, contextLimit, toolCallFormat) => {
    expect(resolveProfile(id)).toMatchObject({ family, contextLimit, toolCallFormat, textToolCalls: true })
  })
})

describe('text tool calls: on for local models and endpoints, off for hosted APIs', () => {
  it.each([
    // model, base URL, on?
    ['qwen2.5-coder:7b', 'http://127.0.0.1:11434/v1', true],
    ['qwen2.5-coder:7b', 'http://gpu-box.local:8000/v1', true],
    ['qwen2.5-coder:7b', 'https://llm.corp.example/v1', true],
    ['qwen/qwen-2.5-coder-32b-instruct', 'https://openrouter.ai/api/v1', false],
    ['deepseek-chat', 'https://api.deepseek.com/v1', false],
    ['mistral-small-latest', 'https://api.mistral.ai/v1', false],
    ['llama-3.3-70b-versatile', 'https://api.groq.com/openai/v1', false],
    ['gpt-4o', 'https://api.openai.com/v1', false],
    ['gpt-4o', 'https://my-deploy.openai.azure.com/openai/v1', false],
    // Hosted families stay off wherever they are served.
    ['gpt-4o', 'http://127.0.0.1:4000/v1', false],
    ['claude-sonnet-4.5', 'http://localhost:4000/v1', false],
    // A model of unknown family: on for a server on this machine or its network, off elsewhere.
    ['my-finetune', 'http://127.0.0.1:8080/v1', true],
    ['my-finetune', 'http://192.168.1.20:1234/v1', true],
    ['my-finetune', 'http://[::1]:8080/v1', true],
    ['my-finetune', 'https://llm.corp.example/v1', false],
  ])('%s at %s → %s', (model, baseUrl, on) => {
    expect(resolveProfile(model, { baseUrl }).textToolCalls).toBe(on)
  })

  it('settings decide last: on for a hosted model, off for a local one', () => {
    const hosted = resolveProfile('qwen/qwen3-coder', {
      baseUrl: 'https://openrouter.ai/api/v1',
      overrides: { 'qwen*': { textToolCalls: true } },
    })
    expect(hosted.textToolCalls).toBe(true)
    const local = resolveProfile('qwen3:8b', {
      baseUrl: 'http://127.0.0.1:11434/v1',
      overrides: { 'qwen3*': { textToolCalls: false } },
    })
    expect(local.textToolCalls).toBe(false)
  })

  it('reads Llama’s bare JSON only for Llama families and models of unknown family', () => {
    expect(readsBareJson(resolveProfile('llama3.1:8b').toolCallFormat)).toBe(true)
    expect(readsBareJson(resolveProfile('my-finetune').toolCallFormat)).toBe(true)
    expect(readsBareJson(resolveProfile('qwen3:8b').toolCallFormat)).toBe(false)
    expect(readsBareJson(resolveProfile('gpt-oss:20b').toolCallFormat)).toBe(false)
  })
})

describe('prompt variant: compact for small windows', () => {
  it.each([
    // model, window from the endpoint (or none: the table's), variant
    ['gemma2:9b', undefined, 'compact'],
    ['deepseek-coder:6.7b', undefined, 'compact'],
    ['llama3:8b', undefined, 'compact'],
    ['qwen2.5-coder:7b', undefined, 'full'],
    ['qwen2.5-coder:7b', 16_384, 'compact'],
    ['qwen2.5-coder:7b', 16_385, 'full'],
    ['llama3.1:8b', 4096, 'compact'],
    ['gpt-4o', undefined, 'full'],
  ])('%s with a %s-token window → %s', (model, window, variant) => {
    expect(resolveProfile(model, window ? { endpointContextLength: window } : {}).promptVariant).toBe(variant)
  })

  it('a settings window chooses it too, and an explicit variant beats the window', () => {
    expect(resolveProfile('qwen3:8b', { overrides: { 'qwen*': { contextLimit: 8192 } } }).promptVariant).toBe(
      'compact',
    )
    const full = resolveProfile('qwen3:8b', {
      overrides: { 'qwen*': { contextLimit: 8192, promptVariant: 'full' } },
    })
    expect(full.promptVariant).toBe('full')
    const compact = resolveProfile('gpt-4o', { overrides: { 'gpt-4o': { promptVariant: 'compact' } } })
    expect(compact.promptVariant).toBe('compact')
  })
})
