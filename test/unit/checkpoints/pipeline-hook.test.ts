import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type CheckpointHook, executeCall } from '../../../source/agent/tool-call/pipeline.js'
import { changeKind } from '../../../source/checkpoints/change-kind.js'
import { isReadOnlyCommand } from '../../../source/permissions/classifier.js'
import { createCatalog } from '../../../source/tools/catalog.js'
import { allowAllGate } from '../agent/turn/loop-harness.js'
import { createTestEnv, type TestEnv } from '../tools/helpers.js'

let env: TestEnv
beforeEach(async () => {
  env = await createTestEnv()
})
afterEach(async () => {
  await env.cleanup()
})

describe('changeKind', () => {
  it.each<[string, Parameters<typeof changeKind>, ReturnType<typeof changeKind>]>([
    ['an edit', ['edit', { kind: 'path', path: '/w/a', access: 'write' }, false], 'edit'],
    ['a command that may write', ['exec', { kind: 'command', command: 'sed -i x f' }, false], 'exec'],
    ['a read-only command', ['exec', { kind: 'command', command: 'ls' }, true], null],
    ['stopping a task', ['exec', { kind: 'none' }, false], null],
    ['a read', ['read', { kind: 'path', path: '/w/a', access: 'read' }, true], null],
    ['a settings change', ['config', { kind: 'none' }, false], null],
    [
      'a saved memory (a config call that writes a workspace file)',
      ['config', { kind: 'none' }, false, true],
      'edit',
    ],
  ])('%s', (_name, args, expected) => {
    expect(changeKind(...args)).toBe(expected)
  })
})

describe('executor checkpoint hook', () => {
  function deps(events: string[]) {
    const tools = new Map(createCatalog({ isReadOnlyCommand }).map((t) => [t.name, t]))
    const checkpoint: CheckpointHook = {
      before: async (kind) => {
        events.push(`before ${kind}`)
      },
      after: () => events.push('after'),
    }
    return {
      tools,
      gate: allowAllGate,
      dispatch: () => undefined,
      makeContext: () => env.ctx,
      now: () => 0,
      checkpoint,
    }
  }
  const call = (name: string, args: Record<string, unknown>) => ({
    id: `c-${name}`,
    type: 'function' as const,
    function: { name, arguments: JSON.stringify(args) },
  })

  it('snapshots around Write and a writing Bash command, not around reads or read-only commands', async () => {
    const events: string[] = []
    const d = deps(events)
    const signal = new AbortController().signal
    await executeCall(call('Bash', { command: 'ls' }), d, signal)
    await executeCall(call('Glob', { pattern: '*' }), d, signal)
    expect(events).toEqual([])
    await executeCall(call('Write', { file_path: 'a.txt', content: 'x' }), d, signal)
    await executeCall(call('Bash', { command: 'echo hi > b.txt' }), d, signal)
    expect(events).toEqual(['before edit', 'after', 'before exec', 'after'])
  })

  it('records after a call that failed part-way, and never for a call refused before it ran', async () => {
    const events: string[] = []
    const d = deps(events)
    const signal = new AbortController().signal
    const failed = await executeCall(call('Bash', { command: 'touch made.txt && exit 3' }), d, signal)
    expect(failed.status).toBe('error')
    expect(events).toEqual(['before exec', 'after'])
    events.length = 0
    const denied = await executeCall(
      call('Write', { file_path: 'a.txt', content: 'x' }),
      {
        ...d,
        gate: { ...allowAllGate, check: () => ({ decision: 'deny', reason: 'no' }) },
      },
      signal,
    )
    expect(denied.status).toBe('denied')
    expect(events).toEqual([])
  })
})
