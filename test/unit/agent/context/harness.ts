import type { HookService } from '../../../../source/user-hooks/hook-service.js'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { DEFAULT_BREAKER } from '../../../../source/agent/turn/circuit-breaker.js'
import { type ContextSettings, ContextManager } from '../../../../source/agent/context/context-manager.js'
import { Runtime } from '../../../../source/agent/runtime/runtime.js'
import { buildToolDefinitions } from '../../../../source/agent/prompt/tool-definitions.js'
import { createOpenAIProvider } from '../../../../source/provider/client.js'
import type { ChatMessage, ToolDefinition } from '../../../../source/store/messages.js'
import { type ModelProfile, resolveProfile } from '../../../../source/provider/model-profiles.js'
import { createStore, type Store } from '../../../../source/store/create-store.js'
import { initialState } from '../../../../source/store/state.js'
import { createFileStateTracker } from '../../../../source/tools/file-state.js'
import { createOutputSpiller } from '../../../../source/tools/spill.js'
import { type AnyTool, defineTool } from '../../../../source/tools/types.js'
import { allowAllGate } from '../turn/loop-harness.js'

/** Deterministic text of about `chars` characters, in numbered lines (like a file a tool read). */
export function filler(chars: number, tag = 'x'): string {
  let text = ''
  for (let i = 1; text.length < chars; i++)
    text += `${tag} line ${i}: the quick brown fox jumps over the lazy dog\n`
  return text.slice(0, chars)
}

/** A read-only tool whose result is `filler(size)`: stands in for Read in loop-level tests. */
export function bigTool(size = 1500): AnyTool {
  return defineTool({
    name: 'Big',
    description: 'Returns a long text',
    schema: z.strictObject({ tag: z.string().describe('tag') }),
    risk: 'read',
    isReadOnly: () => true,
    permissionTarget: () => ({ kind: 'none' }),
    preview: async () => ({ kind: 'none' }),
    summarize: (a) => `Big ${a.tag}`,
    execute: async (a) => ({ forModel: filler(size, a.tag) }),
  })
}

export function makeStore(model = 'test-model'): Store {
  return createStore(
    initialState(
      { id: 's', cwd: process.cwd(), model, baseUrl: 'http://x', title: '', startedAt: 0 },
      'dangerous',
    ),
  )
}

export interface Fixture {
  store: Store
  context: ContextManager
  spillDir: string
  cleanup(): Promise<void>
}

/** A ContextManager over a fresh store, a real spiller in a temp dir and the real provider. */
export async function makeContext(opts: {
  baseUrl: string
  model?: string
  profile?: Partial<ModelProfile>
  settings?: Partial<ContextSettings>
  store?: Store
  /** The tool definitions every request carries (default: the Big tool's). */
  toolDefinitions?: ToolDefinition[]
}): Promise<Fixture> {
  const spillDir = await mkdtemp(join(tmpdir(), 'agent-tui-ctx-'))
  const store = opts.store ?? makeStore(opts.model)
  let n = 0
  const context = new ContextManager({
    store,
    provider: createOpenAIProvider({ baseUrl: opts.baseUrl, baseDelayMs: 1, maxAttempts: 1 }),
    spill: createOutputSpiller(spillDir),
    systemPrompt: 'You are a test.',
    toolDefinitions: opts.toolDefinitions ?? buildToolDefinitions([bigTool()]),
    model: () => store.getState().session.model,
    profile: (model) => ({ ...resolveProfile(model), ...opts.profile }),
    settings: { masking: true, ...opts.settings },
    newId: (prefix) => `${prefix}-${++n}`,
    now: () => 1_000,
  })
  return { store, context, spillDir, cleanup: () => rm(spillDir, { recursive: true, force: true }) }
}

/** Appends one user message, a reply calling `calls` tools, and their results of `size` chars each. */
export function addStep(
  store: Store,
  i: number,
  opts: { calls?: number; size?: number; text?: string } = {},
): void {
  const calls = opts.calls ?? 1
  store.dispatch({
    type: 'user/submitted',
    id: `user-${i}`,
    content: opts.text ?? `request ${i}`,
    text: opts.text ?? `request ${i}`,
  })
  const toolCalls = Array.from({ length: calls }, (_, k) => ({
    id: `call-${i}-${k}`,
    type: 'function' as const,
    function: { name: 'Big', arguments: JSON.stringify({ tag: `t${i}-${k}` }) },
  }))
  store.dispatch({
    type: 'assistant/settled',
    id: `assistant-${i}`,
    message: { role: 'assistant', content: `working on ${i}`, tool_calls: toolCalls },
  })
  for (const call of toolCalls) {
    store.dispatch({
      type: 'tool/finished',
      callId: call.id,
      name: 'Big',
      summary: `Big ${call.id}`,
      status: 'done',
      content: filler(opts.size ?? 1500, call.id),
      preview: '',
      display: null,
      durationMs: 1,
    })
  }
}

export function makeRuntime(opts: {
  store: Store
  baseUrl: string
  spillDir: string
  tools?: AnyTool[]
  profile?: Partial<ModelProfile>
  settings?: Partial<ContextSettings>
  maxSteps?: number
  hooks?: HookService
}): Runtime {
  return new Runtime({
    store: opts.store,
    provider: createOpenAIProvider({ baseUrl: opts.baseUrl, baseDelayMs: 1, maxAttempts: 1 }),
    tools: opts.tools ?? [bigTool()],
    gate: {
      ...allowAllGate,
      resolve: () => undefined,
      cancelAll: () => undefined,
      describeRules: () => ({ allow: [], ask: [], deny: [], savedTo: 'settings.local.json' }),
    },
    workspace: process.cwd(),
    sessionId: 's',
    files: createFileStateTracker(),
    spill: createOutputSpiller(opts.spillDir),
    systemPrompt: 'You are a test.',
    capabilities: () => ({ supportsVision: false, supportsAllowedTools: false }),
    profile: (model) => ({ ...resolveProfile(model), ...opts.profile }),
    context: { masking: true, ...opts.settings },
    maxSteps: opts.maxSteps ?? 50,
    breaker: { ...DEFAULT_BREAKER, warnAt: 500, pauseAt: 600, hardStopAt: 700 },
    interactive: false,
    ...(opts.hooks ? { hooks: opts.hooks } : {}),
  })
}

export type WireMessage = { role: string; content?: unknown; tool_call_id?: string; tool_calls?: unknown[] }

export const textOf = (m: ChatMessage | WireMessage | undefined): string =>
  typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content ?? '')
