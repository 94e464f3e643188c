import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { type ExecutorDeps, executeCall } from '../../../../source/agent/tool-call/pipeline.js'
import { throttledProgress } from '../../../../source/agent/tool-call/progress.js'
import type { Action } from '../../../../source/store/actions.js'
import { defineTool, type ToolContext } from '../../../../source/tools/types.js'
import { allowAllGate } from '../turn/loop-harness.js'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('throttledProgress', () => {
  it('shows nothing before the call has run one interval, then the latest output', () => {
    const shown: string[] = []
    const progress = throttledProgress(
      100,
      () => Date.now(),
      (text) => shown.push(text),
    )
    progress.push('a')
    vi.advanceTimersByTime(50)
    progress.push('a\nb')
    expect(shown).toEqual([])
    vi.advanceTimersByTime(50)
    expect(shown).toEqual(['a\nb'])
  })

  it('shows at most one preview per interval, and what came after the last one once the interval is up', () => {
    const shown: string[] = []
    const progress = throttledProgress(
      100,
      () => Date.now(),
      (text) => shown.push(text),
    )
    vi.advanceTimersByTime(150)
    progress.push('1')
    progress.push('2')
    expect(shown).toEqual(['1'])
    vi.advanceTimersByTime(99)
    expect(shown).toEqual(['1'])
    vi.advanceTimersByTime(1)
    expect(shown).toEqual(['1', '2'])
    // Output that stops arriving leaves no timer behind.
    vi.advanceTimersByTime(1_000)
    expect(shown).toEqual(['1', '2'])
    expect(vi.getTimerCount()).toBe(0)
  })

  it('drops a pending preview when the call ends', () => {
    const shown: string[] = []
    const progress = throttledProgress(
      100,
      () => Date.now(),
      (text) => shown.push(text),
    )
    progress.push('done quickly')
    progress.stop()
    vi.advanceTimersByTime(1_000)
    expect(shown).toEqual([])
    expect(vi.getTimerCount()).toBe(0)
  })
})

/** A tool that prints `lines`, `gapMs` apart, then returns. */
const printer = defineTool({
  name: 'Print',
  description: 'Prints lines',
  schema: z.strictObject({ lines: z.array(z.string()), gapMs: z.number() }),
  risk: 'read',
  isReadOnly: () => true,
  permissionTarget: () => ({ kind: 'none' }),
  preview: async () => ({ kind: 'none' }),
  summarize: () => 'Print',
  async execute(args, ctx) {
    let out = ''
    for (const line of args.lines) {
      out += `${line}\n`
      ctx.onProgress(out)
      await new Promise((resolve) => setTimeout(resolve, args.gapMs))
    }
    return { forModel: out }
  },
})

function run(args: { lines: string[]; gapMs: number }) {
  const actions: Action[] = []
  const deps: ExecutorDeps = {
    tools: new Map([['Print', printer]]),
    gate: allowAllGate,
    dispatch: (action) => actions.push(action),
    makeContext: (signal, onProgress) => ({ signal, onProgress }) as unknown as ToolContext,
    now: () => Date.now(),
  }
  const call = {
    id: 'c1',
    type: 'function' as const,
    function: { name: 'Print', arguments: JSON.stringify(args) },
  }
  const outcome = executeCall(call, deps, new AbortController().signal)
  return { actions, outcome }
}

describe('live output of a tool call', () => {
  it('a call done within the interval sends its result with no preview update before it', async () => {
    const { actions, outcome } = run({ lines: ['hello'], gapMs: 5 })
    await vi.advanceTimersByTimeAsync(5)
    expect((await outcome).status).toBe('done')
    await vi.advanceTimersByTimeAsync(1_000)
    expect(actions.map((a) => a.type)).toEqual(['tool/started'])
  })

  it('a longer call shows its latest output while it runs', async () => {
    const { actions, outcome } = run({ lines: ['one', 'two', 'three'], gapMs: 80 })
    await vi.advanceTimersByTimeAsync(240)
    expect((await outcome).content).toBe('one\ntwo\nthree\n')
    const previews = actions.flatMap((a) => (a.type === 'tool/progress' ? [a.preview] : []))
    // One at 100 ms (what had arrived by then), one at 200 ms; none after the call ended.
    expect(previews).toEqual(['one\ntwo', 'one\ntwo\nthree'])
  })
})
