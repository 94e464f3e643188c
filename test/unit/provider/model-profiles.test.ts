import { describe, expect, it } from 'vitest'
import {
  DEFAULT_PROFILE,
  matchesModelPattern,
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
    ['gemma3:12b', 'gemma-3', 8192, 0.65, 2, 3.5, 'dense'],
    ['wizardcoder-15b', 'wizard', 4096, 0.6, 2, 4.0, 'dense'],
    ['llama-3.3-70b', 'default', 32_768, 0.7, 4, 4.0, 'dense'],
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
