import { describe, expect, it } from 'vitest'
import {
  chooseCut,
  compactedEntries,
  keptBefore,
  recentCount,
  summariserPrompt,
  summaryBudget,
  summaryMessage,
} from '../../../../source/agent/context/compaction.js'
import type { ChatMessage } from '../../../../source/store/messages.js'
import type { CompactionRecord } from '../../../../source/store/domain.js'
import { checkPairing } from '../../../support/pairing-check.ts'

const user = (text: string): ChatMessage => ({ role: 'user', content: text })
const reply = (text: string): ChatMessage => ({ role: 'assistant', content: text })
const call = (...ids: string[]): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'Read', arguments: '{}' } })),
})
const result = (id: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content: `result ${id}` })

/** user, then `steps` × (call with two results), then a reply. */
function history(steps: number): ChatMessage[] {
  const out: ChatMessage[] = [user('task')]
  for (let i = 0; i < steps; i++) out.push(call(`a${i}`, `b${i}`), result(`a${i}`), result(`b${i}`))
  out.push(reply('done'))
  return out
}

describe('budgets (docs/context.md#compaction)', () => {
  it.each([
    [4096, 500],
    [8192, 500],
    [32_768, 1638],
    [40_000, 2000],
    [1_000_000, 2000],
  ])('summary budget for a %i-token window is %i', (window, budget) => {
    expect(summaryBudget(window)).toBe(budget)
  })

  it.each([
    [4096, 6],
    [32_768, 8],
    [128_000, 32],
  ])('keeps about window/4000 recent messages (≥ 6): %i → %i', (window, count) => {
    expect(recentCount(window)).toBe(count)
  })
})

describe('chooseCut', () => {
  const tokens = () => 10

  it('never starts the recent part with a tool result', () => {
    const messages = history(5) // 17 messages
    for (let keep = 1; keep < messages.length; keep++) {
      const cut = chooseCut(messages, { start: 0, keep, tokens, recentTokenBudget: 1e9 })
      if (cut === null) continue
      expect(messages[cut]?.role).not.toBe('tool')
      expect(checkPairing([user('summary'), ...messages.slice(cut)])).toBeNull()
    }
  })

  it('keeps fewer recent messages when they alone would take too much of the window', () => {
    const messages = history(5)
    const big = (i: number) => (i >= 10 ? 1000 : 10)
    // 8 recent would start at index 9, a result: back to its call at 7 (7,030 tokens); too many, so
    // forward group by group to 13 (the last call, its results and the reply: 4,000).
    expect(chooseCut(messages, { start: 0, keep: 8, tokens: big, recentTokenBudget: 4500 })).toBe(13)
    // It never leaves only the last message, even over budget.
    expect(chooseCut(messages, { start: 0, keep: 8, tokens: big, recentTokenBudget: 100 })).toBe(13)
  })

  it('returns null when fewer than two messages could be summarised', () => {
    expect(chooseCut(history(1), { start: 0, keep: 6, tokens, recentTokenBudget: 1e9 })).toBeNull()
    const messages = history(5)
    expect(chooseCut(messages, { start: 14, keep: 2, tokens, recentTokenBudget: 1e9 })).toBeNull()
  })
})

describe('keptBefore', () => {
  it('keeps the latest user request and whole groups of pinned calls or results', () => {
    const messages = history(4) // 0 user, 1 call a0 b0, 2, 3, 4 call a1 b1, 5, 6, 7 call…, 10 call a3 b3, 11, 12, 13 reply
    // Pin the result b1 (index 6): its call (4) and both results (5, 6) stay, so the pairing holds.
    const kept = keptBefore(messages, 10, { pinned: (i) => i === 6, latestUserRequest: 0 })
    expect(kept).toEqual([0, 4, 5, 6])
    expect(checkPairing(kept.map((i) => messages[i]))).toBeNull()
  })
})

describe('compactedEntries', () => {
  const record: CompactionRecord = {
    id: 'c1',
    summary: 'FILES MODIFIED: none',
    cut: 7,
    request: 0,
    trigger: 'manual',
    summarised: 5,
    tokensBefore: 100,
    tokensAfter: 40,
    at: 0,
  }

  it('puts the summary first, then the kept messages, then everything from the cut', () => {
    const messages = history(4)
    const entries = compactedEntries(messages, { record, summary: summaryMessage(record) }, [0])
    expect(entries.map((e) => e.source)).toEqual([-1, 0, 7, 8, 9, 10, 11, 12, 13])
    expect(entries[0]?.role).toBe('summary')
    expect(String(entries[0]?.message.content)).toContain('FILES MODIFIED: none')
    expect(entries[1]?.message).toBe(messages[0]) // the same object: byte for byte
    expect(checkPairing(entries.map((e) => e.message))).toBeNull()
  })
})

describe('summariserPrompt', () => {
  it('asks for the five sections, the focus, and folding in an earlier summary', () => {
    const text = summariserPrompt({ budget: 1638, focus: 'the parser bug', hasEarlierSummary: true })
    for (const section of [
      'FILES MODIFIED',
      'DECISIONS MADE',
      'ERRORS ENCOUNTERED',
      'CURRENT STATE',
      'KEY CODE PATTERNS',
    ])
      expect(text).toContain(`${section}:`)
    expect(text).toContain('FOCUS: the user asked the summary to concentrate on: the parser bug')
    expect(text).toContain('earlier summary')
    expect(text).toContain('Stay under 1638 tokens')
  })
})
