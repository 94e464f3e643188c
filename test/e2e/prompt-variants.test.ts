/**
 * The session picks the compact system prompt and tool descriptions for a small-window model, and the
 * full ones otherwise; the bytes sent do not change from one request to the next.
 */
import { describe, expect, it } from 'vitest'
import { COMPACT_DESCRIPTIONS } from '../../source/agent/prompt/compact-tools.ts'
import { setupE2eEnv } from '../support/e2e-env.ts'

const env = setupE2eEnv()

type Request = {
  messages: Array<{ role: string; content: string }>
  tools?: Array<{ function: { name: string; description: string } }>
}
const request = (i: number) => env.server.requests[i]?.body as Request

describe('prompt variants', () => {
  it.each([
    ['llama3:8b', 'compact'],
    ['llama3.1:8b', 'full'],
  ])('%s gets the %s prompt, the same bytes on every request', async (model, variant) => {
    env.server.enqueue({ toolCalls: [{ name: 'Glob', arguments: { pattern: '*' } }] }, { text: 'ok' })
    const r = await env.cli(['-p', 'hi', '--model', model])
    expect(r.code, r.stderr).toBe(0)
    expect(env.server.requests).toHaveLength(2)
    const [first, second] = [request(0), request(1)]
    const system = first.messages[0]?.content ?? ''
    const read = first.tools?.find((t) => t.function.name === 'Read')?.function.description
    if (variant === 'compact') {
      expect(read).toBe(COMPACT_DESCRIPTIONS.Read)
      expect(system).not.toContain('How to work:')
    } else {
      expect(read).not.toBe(COMPACT_DESCRIPTIONS.Read)
      expect(system).toContain('How to work:')
    }
    expect(second.messages[0]?.content).toBe(system)
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools))
  })
})
