import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createCallTool } from '../../../../source/agent/toolset/finder-tools.js'
import { executeCall, resolve, type ToolLookup } from '../../../../source/agent/tool-call/pipeline.js'
import { createConsentBroker } from '../../../../source/permissions/broker.js'
import { isReadOnlyCommand } from '../../../../source/permissions/classifier.js'
import { createPermissionGate, type RuntimeGate } from '../../../../source/permissions/gate.js'
import { createStore, type Store } from '../../../../source/store/create-store.js'
import type { ConsentRequest } from '../../../../source/store/domain.js'
import { initialState } from '../../../../source/store/state.js'
import { createCatalog } from '../../../../source/tools/catalog.js'
import { createTestEnv, type TestEnv } from '../../tools/helpers.js'

// CallTool {name, arguments} runs the tool it names through the same pipeline: the resolve phase unwraps
// it, so validation, consent, checkpoints and the card all see the real tool.

let env: TestEnv
let store: Store
let gate: RuntimeGate

beforeEach(async () => {
  env = await createTestEnv()
  store = createStore(
    initialState({ id: 's', cwd: env.workspace, model: 'm', baseUrl: 'x', title: '', startedAt: 0 }, 'safe'),
  )
  let gateRef: RuntimeGate | undefined
  const broker = createConsentBroker({
    dispatch: store.dispatch,
    policy: 'interactive',
    recheck: (call) => gateRef?.allowsNow(call) ?? false,
    workspace: env.workspace,
    home: env.root,
  })
  gate = createPermissionGate({
    store,
    rules: { allow: [], ask: [], deny: [] },
    broker,
    workspace: env.workspace,
    home: env.root,
    additionalDirs: [],
    trustedReadDirs: [],
    interactive: true,
    savedTo: '.agent-tui/settings.local.json',
  })
  gateRef = gate
})
afterEach(async () => {
  await env.cleanup()
})

const catalog = new Map(createCatalog({ isReadOnlyCommand }).map((t) => [t.name, t]))
const callTool = createCallTool()
/** Write is "on demand" here: not among the tools sent, still known to the lookup. */
const tools: ToolLookup = {
  get: (name) => (name === 'CallTool' ? callTool : name === 'Bash' ? undefined : catalog.get(name)),
  keys: () => ['Read', 'CallTool'],
  unavailable: (name) => (name === 'Bash' ? '--tools does not list it (Read)' : undefined),
}
const call = (args: unknown) => ({
  id: 'c1',
  type: 'function' as const,
  function: { name: 'CallTool', arguments: typeof args === 'string' ? args : JSON.stringify(args) },
})

async function asked(): Promise<ConsentRequest> {
  for (;;) {
    const id = store.getState().consent.queue[0]
    const request = id ? store.getState().consent.byId[id] : undefined
    if (request) return request
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

describe('CallTool through the pipeline', () => {
  it('asks consent for the real tool with its own preview, snapshots it as an edit, and the card names it', async () => {
    const kinds: string[] = []
    const running = executeCall(
      call({ name: 'Write', arguments: { file_path: 'a.txt', content: 'hi\n' } }),
      {
        tools,
        gate,
        dispatch: store.dispatch,
        makeContext: () => env.ctx,
        now: () => 0,
        checkpoint: { before: async (kind) => void kinds.push(kind), after: () => undefined },
      },
      new AbortController().signal,
    )
    const request = await asked()
    expect(request.tool).toBe('Write')
    expect(request.risk).toBe('edit')
    expect(request.summary).toContain('a.txt')
    expect(request.preview.kind).toBe('diff')
    expect(request.suggestedRule).toMatch(/^Edit\(/)
    gate.resolve(request.id, { kind: 'once' })
    const outcome = await running
    expect(outcome.status).toBe('done')
    expect(kinds).toEqual(['edit'])
    expect(await readFile(join(env.workspace, 'a.txt'), 'utf8')).toBe('hi\n')
    expect(store.getState().transcript.items.c1).toMatchObject({ kind: 'tool', name: 'Write' })
    expect(outcome.name).toBe('Write')
  })

  it('arguments that do not fit the real schema are refused with that schema in the hint', async () => {
    const outcome = await executeCall(
      call({ name: 'Write', arguments: { file_path: 'a.txt' } }),
      { tools, gate, dispatch: store.dispatch, makeContext: () => env.ctx, now: () => 0 },
      new AbortController().signal,
    )
    expect(outcome.status).toBe('error')
    expect(outcome.content).toContain('content')
    expect(outcome.content).toContain('Write takes {')
    expect(store.getState().consent.queue).toEqual([])
  })
})

describe('CallTool in plan mode', () => {
  it('an edit through CallTool is denied as the edit it is', async () => {
    const plan = createStore(
      initialState(
        { id: 's', cwd: env.workspace, model: 'm', baseUrl: 'x', title: '', startedAt: 0 },
        'plan',
      ),
    )
    const planGate = createPermissionGate({
      store: plan,
      rules: { allow: [], ask: [], deny: [] },
      broker: createConsentBroker({
        dispatch: plan.dispatch,
        policy: 'interactive',
        recheck: () => false,
        workspace: env.workspace,
        home: env.root,
      }),
      workspace: env.workspace,
      home: env.root,
      additionalDirs: [],
      trustedReadDirs: [],
      interactive: true,
      savedTo: '.agent-tui/settings.local.json',
    })
    const outcome = await executeCall(
      call({ name: 'Write', arguments: { file_path: 'a.txt', content: 'x' } }),
      { tools, gate: planGate, dispatch: plan.dispatch, makeContext: () => env.ctx, now: () => 0 },
      new AbortController().signal,
    )
    expect(outcome.status).toBe('denied')
    expect(outcome.content).toContain('plan mode does not allow edits')
  })
})

describe('resolve: what a CallTool call runs', () => {
  it.each<[string, unknown, string]>([
    ['no name', { arguments: {} }, 'invalid CallTool call: "name" must be the name of the tool to call'],
    ['itself', { name: 'CallTool', arguments: {} }, 'invalid CallTool call: CallTool cannot call CallTool'],
    [
      'arguments beside name',
      { name: 'Read', file_path: 'a' },
      'invalid CallTool call: unexpected field "file_path": CallTool takes only "name" and "arguments"',
    ],
    [
      'arguments not an object',
      { name: 'Read', arguments: [1] },
      'invalid CallTool call: "arguments" must be a JSON object',
    ],
    ['an unknown tool', { name: 'Nope', arguments: {} }, 'unknown tool "Nope"'],
    [
      'a masked tool',
      { name: 'Bash', arguments: {} },
      'Bash is not available in this session: --tools does not list it (Read)',
    ],
    ['not JSON', '{"name": "Read"', 'arguments are not valid JSON'],
  ])('%s is refused', (_, args, message) => {
    const out = resolve(call(args), tools)
    expect('failure' in out && out.failure.message).toContain(message)
  })

  it('unwraps into the named tool; arguments sent as a JSON string are read the same', () => {
    for (const args of [{ file_path: 'a.txt' }, JSON.stringify({ file_path: 'a.txt' })]) {
      const out = resolve(call({ name: 'Read', arguments: args }), tools)
      expect('tool' in out && [out.tool.name, out.raw, out.forwarded]).toEqual([
        'Read',
        '{"file_path":"a.txt"}',
        true,
      ])
    }
  })

  it('an unknown tool named directly points at ToolSearch when it is there', () => {
    const withSearch: ToolLookup = { ...tools, get: (n) => (n === 'ToolSearch' ? callTool : tools.get(n)) }
    const out = resolve({ ...call({}), function: { name: 'Nope', arguments: '{}' } }, withSearch)
    expect('failure' in out && out.failure.hint).toContain(
      'find them with ToolSearch, call them through CallTool',
    )
  })
})
