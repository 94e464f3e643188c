import { describe, expect, it } from 'vitest'
import { childGate, readOnlyRefusal } from '../../../../source/agent/subagents/child-gate.js'
import type { RuntimeOptions } from '../../../../source/agent/runtime/runtime.js'
import type { ConsentRequest } from '../../../../source/store/domain.js'

describe('a read-only agent', () => {
  it.each([
    [{ risk: 'edit', readOnly: false }, 'makes no edits'],
    [{ risk: 'config', readOnly: false }, 'changes no settings'],
    [{ risk: 'exec', readOnly: false }, 'runs only read-only commands'],
    [{ risk: 'exec', readOnly: true }, null],
    [{ risk: 'read', readOnly: true }, null],
    [{ risk: 'network', readOnly: true }, null],
  ] as const)('%o → %s', (input, refusal) => {
    const result = readOnlyRefusal({ tool: 'X', target: { kind: 'none' }, ...input }, 'explore')
    if (refusal === null) expect(result).toBeNull()
    else expect(result).toContain(refusal)
  })
})

describe('a subagent gate', () => {
  const requests: Array<Omit<ConsentRequest, 'id' | 'createdAt'>> = []
  let cancelled = 0
  let mode: 'safe' | 'plan' = 'safe'
  const parent: RuntimeOptions['gate'] = {
    mode: () => mode,
    resolveTarget: async (target) => target,
    check: () => ({ decision: mode === 'plan' ? 'deny' : 'ask', reason: `${mode} asks` }),
    suggestRule: (tool) => tool,
    canAsk: () => true,
    request: async (req) => {
      requests.push(req)
      return { kind: 'once' }
    },
    resolve: () => undefined,
    cancelAll: () => {
      cancelled++
    },
    describeRules: () => ({ allow: [], ask: [], deny: [], savedTo: '' }),
  }
  const gate = childGate(parent, { readOnly: true, label: 'explore a1 · Look', name: 'explore' })
  const bash = { tool: 'Bash', risk: 'exec' as const, target: { kind: 'none' as const }, readOnly: true }

  it("follows the parent's mode live and refuses what a read-only profile may not do", () => {
    expect(gate.check(bash)).toEqual({ decision: 'ask', reason: 'safe asks' })
    mode = 'plan'
    expect(gate.mode()).toBe('plan')
    expect(gate.check(bash).decision).toBe('deny')
    expect(gate.check({ ...bash, readOnly: false }).reason).toContain('read-only')
    mode = 'safe'
  })

  it("labels its consent requests with who asks and never cancels the parent's", async () => {
    await gate.request(
      {
        callId: 'c',
        tool: 'Bash',
        risk: 'exec',
        summary: 'ls',
        reason: 'r',
        preview: { kind: 'none' },
        suggestedRule: 'Bash',
      },
      new AbortController().signal,
    )
    expect(requests[0]?.agent).toBe('explore a1 · Look')
    gate.cancelAll('bye')
    expect(cancelled).toBe(0)
  })
})
