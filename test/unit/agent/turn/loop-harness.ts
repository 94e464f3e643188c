import { z } from 'zod'
import { DEFAULT_BREAKER, type CircuitBreakerConfig } from '../../../../source/agent/turn/circuit-breaker.js'
import { type TurnDeps, runTurn } from '../../../../source/agent/turn/loop.js'
import type { PermissionGate } from '../../../../source/permissions/gate.js'
import { buildToolDefinitions } from '../../../../source/agent/prompt/tool-definitions.js'
import { createOpenAIProvider } from '../../../../source/provider/client.js'
import type { Action } from '../../../../source/store/actions.js'
import { createStore, type Store } from '../../../../source/store/create-store.js'
import { initialState } from '../../../../source/store/state.js'
import { type AnyTool, defineTool, ToolError, type ToolContext } from '../../../../source/tools/types.js'

/** A gate that allows everything: loop tests are about the loop, permissions have their own tests. */
export const allowAllGate: PermissionGate = {
  mode: () => 'dangerous',
  resolveTarget: async (target) => target,
  check: () => ({ decision: 'allow', reason: 'test' }),
  suggestRule: (tool) => tool,
  canAsk: () => false,
  request: async () => ({ kind: 'deny' }),
}

export function echoTool(log: string[] = []): AnyTool {
  return defineTool({
    name: 'Echo',
    description: 'Echoes text',
    schema: z.strictObject({ text: z.string().describe('text') }),
    risk: 'read',
    isReadOnly: () => true,
    permissionTarget: () => ({ kind: 'none' }),
    preview: async () => ({ kind: 'none' }),
    summarize: (a) => `Echo ${a.text}`,
    async execute(a) {
      log.push(`start ${a.text}`)
      await new Promise((r) => setImmediate(r))
      log.push(`end ${a.text}`)
      return { forModel: `echo: ${a.text}` }
    },
  })
}

export function failingTool(): AnyTool {
  return defineTool({
    name: 'Fail',
    description: 'Always fails',
    schema: z.strictObject({ path: z.string().describe('path') }),
    risk: 'read',
    isReadOnly: () => true,
    permissionTarget: () => ({ kind: 'none' }),
    preview: async () => ({ kind: 'none' }),
    summarize: (a) => `Fail ${a.path}`,
    async execute(a) {
      throw new ToolError('not_found', `no such file: ${a.path}`)
    },
  })
}

/** Blocks until its signal aborts — stands in for a long-running command. */
export function blockingTool(started: () => void): AnyTool {
  return defineTool({
    name: 'Block',
    description: 'Blocks until aborted',
    schema: z.strictObject({}),
    risk: 'exec',
    isReadOnly: () => false,
    permissionTarget: () => ({ kind: 'none' }),
    preview: async () => ({ kind: 'none' }),
    summarize: () => 'Block',
    execute: (_a, ctx: ToolContext) =>
      new Promise((_resolve, reject) => {
        started()
        ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })
      }),
  })
}

export interface Harness {
  store: Store
  deps: TurnDeps
  run(text: string, signal?: AbortSignal): ReturnType<typeof runTurn>
}

export function makeHarness(opts: {
  baseUrl: string
  tools: AnyTool[]
  maxSteps?: number
  breaker?: Partial<CircuitBreakerConfig>
  interactive?: boolean
  vision?: boolean
  allowedTools?: boolean
  /** Provider attempts per step (default 5). */
  maxAttempts?: number
  /** Sees every action after it was reduced. */
  observe?: (action: Action) => void
}): Harness {
  const store = createStore(
    initialState(
      { id: 's', cwd: process.cwd(), model: 'test-model', baseUrl: opts.baseUrl, title: '', startedAt: 0 },
      'dangerous',
    ),
    opts.observe,
  )
  const provider = createOpenAIProvider({
    baseUrl: opts.baseUrl,
    baseDelayMs: 1,
    ...(opts.maxAttempts !== undefined ? { maxAttempts: opts.maxAttempts } : {}),
  })
  let n = 0
  const deps: TurnDeps = {
    store,
    provider,
    model: () => 'test-model',
    systemPrompt: 'You are a test.',
    toolDefinitions: buildToolDefinitions(opts.tools),
    executor: {
      tools: new Map(opts.tools.map((t) => [t.name, t])),
      gate: allowAllGate,
      dispatch: store.dispatch,
      makeContext: (signal, onProgress, callId) => ({
        callId,
        mode: () => 'dangerous',
        workspace: process.cwd(),
        cwd: () => process.cwd(),
        setCwd: () => undefined,
        signal,
        sessionId: 's',
        files: {
          recordRead: () => undefined,
          recordWrite: () => undefined,
          get: () => undefined,
          clear: () => undefined,
        },
        spill: {
          dir: '/tmp',
          spill: async () => '/tmp/x',
          open: () => {
            throw new Error('this test streams no output to spill files')
          },
          isSpillPath: () => false,
        },
        onProgress,
        supportsVision: opts.vision ?? false,
      }),
      now: Date.now,
    },
    planModeToolNames: opts.tools.map((t) => t.name),
    supportsAllowedTools: () => opts.allowedTools ?? false,
    supportsVision: () => opts.vision ?? false,
    maxSteps: opts.maxSteps ?? 50,
    breaker: { ...DEFAULT_BREAKER, ...opts.breaker },
    interactive: opts.interactive ?? false,
    takeQueued: () => [],
    newId: (p) => `${p}-${++n}`,
    now: Date.now,
  }
  return {
    store,
    deps,
    run: (text, signal = new AbortController().signal) => runTurn(deps, { content: text, text }, signal),
  }
}
