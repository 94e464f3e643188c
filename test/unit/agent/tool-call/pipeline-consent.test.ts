import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { executeCall } from '../../../../source/agent/tool-call/pipeline.js'
import { createConsentBroker } from '../../../../source/permissions/broker.js'
import { isReadOnlyCommand } from '../../../../source/permissions/classifier.js'
import { createStore, type Store } from '../../../../source/store/create-store.js'
import type { ConsentRequest } from '../../../../source/store/domain.js'
import { initialState } from '../../../../source/store/state.js'
import { createCatalog } from '../../../../source/tools/catalog.js'
import { createPermissionGate, type RuntimeGate } from '../../../../source/permissions/gate.js'
import { createTestEnv, type TestEnv } from '../../tools/helpers.js'
import { testReader } from '../../../support/instruction-reader.ts'

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

const tools = new Map(createCatalog({ isReadOnlyCommand }).map((t) => [t.name, t]))
const write = (path: string) => ({
  id: `call-${path}`,
  type: 'function' as const,
  function: { name: 'Write', arguments: JSON.stringify({ file_path: path, content: 'x\n' }) },
})

function execute(path: string) {
  const deps = {
    tools,
    gate,
    dispatch: store.dispatch,
    makeContext: () => env.ctx,
    now: () => 0,
  }
  return executeCall(write(path), deps, new AbortController().signal)
}

/** Resolves with the consent request the store shows, once there is one. */
async function asked(): Promise<ConsentRequest> {
  for (;;) {
    const id = store.getState().consent.queue[0]
    const request = id ? store.getState().consent.byId[id] : undefined
    if (request) return request
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

describe('consent requests from the executor', () => {
  it('offers "all edits this session" for an edit in the workspace; granted, later edits do not ask', async () => {
    const first = execute('a.txt')
    const request = await asked()
    expect(request.sessionEditsRule).toBe('Edit(**)')
    expect(request.protectedWrite).toBeUndefined()
    // While it waits the tool card says so (not "running…").
    expect(store.getState().transcript.items['call-a.txt']).toMatchObject({ waiting: 'approval' })
    gate.resolve(request.id, { kind: 'session', scope: 'edits' })
    expect((await first).status).toBe('done')
    expect(store.getState().transcript.items['call-a.txt']).not.toHaveProperty('waiting')

    await mkdir(join(env.workspace, 'deep', 'er'), { recursive: true })
    expect((await execute('deep/er/b.txt')).status).toBe('done')
    expect(await readFile(join(env.workspace, 'deep', 'er', 'b.txt'), 'utf8')).toBe('x\n')
    expect(store.getState().consent.queue).toEqual([])
  })

  it('marks a protected write so the prompt offers only "allow once"; the edits grant does not open it', async () => {
    await mkdir(join(env.workspace, '.git'))
    const first = execute('.git/config')
    const request = await asked()
    expect(request.protectedWrite).toBe(true)
    expect(request.sessionEditsRule).toBeUndefined()
    gate.resolve(request.id, { kind: 'once' })
    expect((await first).status).toBe('done')

    const plain = execute('a.txt')
    gate.resolve((await asked()).id, { kind: 'session', scope: 'edits' })
    await plain
    const again = execute('.git/hooks-note')
    expect((await asked()).protectedWrite).toBe(true)
    gate.cancelAll('done')
    expect((await again).status).toBe('denied')
  })
})

describe('calls nobody was asked about', () => {
  it('are told before they run (an auto-mode edit); an answered one is not', async () => {
    const told: string[] = []
    const run = (path: string) =>
      executeCall(
        write(path),
        {
          tools,
          gate,
          dispatch: store.dispatch,
          makeContext: () => env.ctx,
          now: () => 0,
          unasked: (call) => told.push(`${call.tool} ${call.risk} ${call.target.kind}`),
        },
        new AbortController().signal,
      )
    // safe mode asks: the user answered, so nothing is told.
    const first = run('a.txt')
    gate.resolve((await asked()).id, { kind: 'once' })
    expect((await first).status).toBe('done')
    expect(told).toEqual([])
    store.dispatch({ type: 'mode/changed', mode: 'auto' })
    expect((await run('b.txt')).status).toBe('done')
    expect(told).toEqual(['Write edit path'])
  })
})

describe('the file tools through the pipeline', () => {
  const memoryTools = new Map(
    createCatalog({ isReadOnlyCommand, memory: testReader(), applyPatch: 'beside' }).map((t) => [t.name, t]),
  )
  const call = (id: string, name: string, args: unknown) => ({
    id,
    type: 'function' as const,
    function: { name, arguments: JSON.stringify(args) },
  })
  const checkpoints: string[] = []
  const run = (c: ReturnType<typeof call>) =>
    executeCall(
      c,
      {
        tools: memoryTools,
        gate,
        dispatch: store.dispatch,
        makeContext: () => env.ctx,
        now: () => 0,
        checkpoint: {
          before: async (kind) => {
            checkpoints.push(kind)
          },
          after: () => checkpoints.push('after'),
        },
      },
      new AbortController().signal,
    )

  beforeEach(() => {
    checkpoints.length = 0
  })

  it('SaveMemory asks the first time only; the memory file gets both lines', async () => {
    const first = run(call('m1', 'SaveMemory', { fact: 'one' }))
    const request = await asked()
    expect(request).toMatchObject({ tool: 'SaveMemory', sessionGrant: true, preview: { kind: 'diff' } })
    gate.resolve(request.id, { kind: 'once' })
    expect((await first).status).toBe('done')
    expect((await run(call('m2', 'SaveMemory', { fact: 'two' }))).status).toBe('done')
    expect(store.getState().consent.queue).toEqual([])
    expect(await readFile(join(env.workspace, '.agent-tui', 'memory.md'), 'utf8')).toMatch(
      /- \d{4}-\d\d-\d\d: one\n- \d{4}-\d\d-\d\d: two\n$/,
    )
    // The memory file is in the workspace: checkpointed like an edit, so /rewind takes the lines back.
    expect(checkpoints).toEqual(['edit', 'after', 'edit', 'after'])
  })

  it('apply_patch asks with every file in the preview and is checkpointed as an edit; so is DeleteFile', async () => {
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+a\n*** Add File: src/b.txt\n+b\n*** End Patch'
    const applied = run(call('p1', 'apply_patch', { input: patch }))
    const request = await asked()
    expect(request.preview).toMatchObject({
      kind: 'diffs',
      files: [{ path: 'a.txt' }, { path: join('src', 'b.txt') }],
    })
    expect(request.sessionEditsRule).toBe('Edit(**)')
    expect(request.suggestedRule).toBe('Edit(a.txt), Edit(src/b.txt)')
    gate.resolve(request.id, { kind: 'once' })
    expect((await applied).status).toBe('done')
    expect(await readFile(join(env.workspace, 'src', 'b.txt'), 'utf8')).toBe('b\n')

    const deleted = run(call('d1', 'DeleteFile', { file_path: 'a.txt' }))
    const ask = await asked()
    expect(ask).toMatchObject({
      tool: 'DeleteFile',
      suggestedRule: 'DeleteFile(a.txt)',
      preview: { kind: 'diffs' },
    })
    gate.resolve(ask.id, { kind: 'once' })
    expect((await deleted).status).toBe('done')
    expect(checkpoints).toEqual(['edit', 'after', 'edit', 'after'])
  })
})
