import { describe, expect, it } from 'vitest'
import { pricesForModel } from '../../../source/provider/prices.js'
import type { Action } from '../../../source/store/actions.js'
import { estimateCost, formatCost } from '../../../source/ui/panes/status/format.js'
import { createTheme } from '../../../source/ui/components/theme.js'
import { StatusBar } from '../../../source/ui/panes/status/status-bar.js'
import { fakeCommands, makeStore, renderPane } from './helpers.js'

const theme = createTheme({ level: 0 })

describe('pricesForModel', () => {
  it('knows the well-known hosted models, dated snapshots and vendor-prefixed ids included', () => {
    expect(pricesForModel('gpt-4o')).toEqual({
      inputPerMillion: 2.5,
      cachedInputPerMillion: 1.25,
      outputPerMillion: 10,
    })
    expect(pricesForModel('gpt-4o-2024-08-06')).toEqual(pricesForModel('gpt-4o'))
    expect(pricesForModel('openai/GPT-4.1')).toEqual(pricesForModel('gpt-4.1'))
    expect(pricesForModel('deepseek-v3')).toEqual(pricesForModel('deepseek-chat'))
    expect(pricesForModel('deepseek/deepseek-chat-v3-0324')).toEqual(pricesForModel('deepseek-chat'))
    for (const model of [
      'gpt-4o-mini',
      'gpt-4.1-mini',
      'gpt-5',
      'gpt-5-mini',
      'o3',
      'o4-mini',
      'deepseek-reasoner',
    ]) {
      expect(pricesForModel(model), model).toBeDefined()
    }
  })

  it('never lets a variant fall back to its base model', () => {
    expect(pricesForModel('gpt-4o-mini')?.inputPerMillion).toBe(0.15)
    expect(pricesForModel('gpt-5-mini')?.inputPerMillion).toBe(0.25)
    expect(pricesForModel('gpt-4o-audio-preview')).toBeUndefined()
    expect(pricesForModel('o3-pro')).toBeUndefined()
  })

  it('is undefined for local and unknown models', () => {
    for (const model of [
      '',
      'test-model',
      'llama3.1:8b',
      'deepseek-v3:671b',
      'qwen2.5-coder',
      'gpt-oss-20b',
    ]) {
      expect(pricesForModel(model), model).toBeUndefined()
    }
  })
})

describe('cost estimate', () => {
  it('prices uncached input, cached input and output separately', () => {
    const prices = { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 }
    // 600k uncached × $2 + 400k cached × $0.50 + 100k out × $8 = 1.2 + 0.2 + 0.8
    expect(estimateCost({ input: 1_000_000, cached: 400_000, output: 100_000 }, prices)).toBeCloseTo(2.2)
  })

  it('formats small sums with enough digits to move', () => {
    expect(formatCost(0)).toBe('$0')
    expect(formatCost(0.0045)).toBe('$0.0045')
    expect(formatCost(0.0123)).toBe('$0.012')
    expect(formatCost(0.5)).toBe('$0.500')
    expect(formatCost(2)).toBe('$2.00')
    expect(formatCost(12.34)).toBe('$12.3')
  })

  it('shows "~$" in the status bar with list prices, and tokens only without', () => {
    const usage: Action = {
      type: 'usage/recorded',
      usage: { input: 4000, output: 500, cached: 2000 },
      contextTokens: 10,
    }
    const prices = pricesForModel('gpt-4.1')
    // 2000 × $2 + 2000 × $0.50 + 500 × $8, per million = $0.009
    const priced = renderPane(
      <StatusBar theme={theme} width={120} contextLimit={100_000} prices={prices} />,
      {
        store: makeStore([usage]),
        commands: fakeCommands(),
      },
    )
    expect(priced.frame()).toContain('4k↑ 500↓ ~$0.0090')
    priced.unmount()
    const unpriced = renderPane(
      <StatusBar theme={theme} width={120} contextLimit={100_000} prices={pricesForModel('test-model')} />,
      { store: makeStore([usage]), commands: fakeCommands() },
    )
    expect(unpriced.frame()).toContain('4k↑ 500↓')
    expect(unpriced.frame()).not.toContain('$')
    unpriced.unmount()
  })
})
