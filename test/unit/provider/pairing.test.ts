import { describe, expect, it } from 'vitest'
import type { ChatMessage, ToolMessage } from '../../../source/store/messages.js'
import { cancelledToolResult, repairPairing } from '../../../source/provider/pairing.js'
import { checkPairing } from '../../support/scripted-server.ts'

const call = (id: string, name = 'Read') => ({
  id,
  type: 'function' as const,
  function: { name, arguments: '{}' },
})
const assistant = (...ids: string[]): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: ids.map((id) => call(id)),
})
const tool = (id: string, content = `result ${id}`): ToolMessage => ({
  role: 'tool',
  tool_call_id: id,
  content,
})
const user = (content = 'u'): ChatMessage => ({ role: 'user', content })
const system: ChatMessage = { role: 'system', content: 's' }

function isCancelled(message: ChatMessage | undefined, id: string): boolean {
  if (message?.role !== 'tool' || message.tool_call_id !== id) return false
  const body = JSON.parse(message.content) as { category: string; message: string }
  return body.category === 'aborted' && body.message.includes('cancelled by user')
}

describe('repairPairing', () => {
  it('returns the same array when the history already obeys the rule', () => {
    const history = [
      system,
      user(),
      assistant('a', 'b'),
      tool('a'),
      tool('b'),
      { role: 'assistant', content: 'done' } as ChatMessage,
    ]
    expect(repairPairing(history)).toBe(history)
    const empty: ChatMessage[] = []
    expect(repairPairing(empty)).toBe(empty)
  })

  it('synthesises cancelled results for unanswered calls after the answered ones', () => {
    const history = [user(), assistant('a', 'b', 'c'), tool('a'), user('next')]
    const fixed = repairPairing(history)
    expect(fixed).toHaveLength(6)
    expect(fixed[2]).toBe(history[2])
    expect(isCancelled(fixed[3], 'b')).toBe(true)
    expect(isCancelled(fixed[4], 'c')).toBe(true)
    expect(fixed.at(-1)).toEqual(user('next'))
    expect(checkPairing(fixed)).toBeNull()
  })

  it('handles an interrupt at the very end of the history', () => {
    const fixed = repairPairing([user(), assistant('a')])
    expect(isCancelled(fixed[2], 'a')).toBe(true)
    expect(JSON.parse((fixed[2] as ToolMessage).content)).toMatchObject({ tool: 'Read', retryable: false })
    expect(checkPairing(fixed)).toBeNull()
  })

  it('reorders results into call order and drops orphans and duplicates', () => {
    const history = [
      tool('stray'),
      user(),
      assistant('a', 'b'),
      tool('b'),
      tool('x'),
      tool('a'),
      tool('a', 'again'),
      user(),
    ]
    const fixed = repairPairing(history)
    expect(fixed).toEqual([user(), assistant('a', 'b'), tool('a'), tool('b'), user()])
    expect(checkPairing(fixed)).toBeNull()
  })

  it('moves a result that landed after a user message back under its call', () => {
    const history = [
      user(),
      assistant('a'),
      user('image follows'),
      tool('a'),
      { role: 'assistant', content: 'ok' } as ChatMessage,
    ]
    const fixed = repairPairing(history)
    expect(fixed.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant'])
    expect(fixed[2]).toBe(history[3])
    expect(checkPairing(fixed)).toBeNull()
  })

  it('never lets a result jump over a later assistant message', () => {
    const history = [user(), assistant('a'), { role: 'assistant', content: 'x' } as ChatMessage, tool('a')]
    const fixed = repairPairing(history)
    expect(isCancelled(fixed[2], 'a')).toBe(true)
    expect(fixed).toHaveLength(4)
    expect(fixed[3]).toEqual({ role: 'assistant', content: 'x' })
    expect(checkPairing(fixed)).toBeNull()
  })

  it('builds the cancelled envelope from the call', () => {
    const result = cancelledToolResult(call('z', 'Bash'))
    expect(result.tool_call_id).toBe('z')
    expect(JSON.parse(result.content)).toMatchObject({ tool: 'Bash', category: 'aborted', retryable: false })
  })
})
