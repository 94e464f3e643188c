import { copyFile, mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { executeCall } from '../../../../source/agent/tool-call/pipeline.js'
import { createConsentBroker } from '../../../../source/permissions/broker.js'
import { isReadOnlyCommand } from '../../../../source/permissions/classifier.js'
import { createPermissionGate, type RuntimeGate } from '../../../../source/permissions/gate.js'
import { parseRule } from '../../../../source/permissions/rules.js'
import { createStore, type Store } from '../../../../source/store/create-store.js'
import type { Action } from '../../../../source/store/actions.js'
import { initialState } from '../../../../source/store/state.js'
import { createTaskManager } from '../../../../source/tasks/task-manager.js'
import { createCatalog } from '../../../../source/tools/catalog.js'
import { createTestEnv, type TestEnv } from '../../tools/helpers.js'

/**
 * Validate before asking: a call that fails its own checks (Tool.precheck) fails before the consent
 * prompt, with the envelope the run would have given; a call that passes them still asks, and the run
 * checks again. Real files, the real gate, broker and catalog, in safe mode (every edit asks).
 */

const NOTEBOOK = join(import.meta.dirname, '..', '..', 'tools', 'fixtures', 'sales.ipynb')

let env: TestEnv
let store: Store
let actions: Action[]
let deny: string[]

async function setUp(denyRules: string[] = []) {
  deny = denyRules
  taskDir = await mkdtemp(join(tmpdir(), 'agent-tui-precheck-tasks-'))
  env = await createTestEnv({ tasks: createTaskManager({ outputsDir: taskDir }) })
  actions = []
  store = createStore(
    initialState({ id: 's', cwd: env.workspace, model: 'm', baseUrl: 'x', title: '', startedAt: 0 }, 'safe'),
  )
  const dispatch = store.dispatch
  store = {
    ...store,
    dispatch: (a: Action) => {
      actions.push(a)
      dispatch(a)
    },
  } as Store
  let gateRef: RuntimeGate | undefined
  const broker = createConsentBroker({
    dispatch: store.dispatch,
    policy: 'interactive',
    recheck: (call) => gateRef?.allowsNow(call) ?? false,
    workspace: env.workspace,
    home: env.root,
  })
  gateRef = createPermissionGate({
    store,
    rules: { allow: [], ask: [], deny: deny.map((r) => parseRule(r)) },
    broker,
    workspace: env.workspace,
    home: env.root,
    additionalDirs: [],
    trustedReadDirs: [],
    interactive: true,
    savedTo: '.agent-tui/settings.local.json',
  })
  return gateRef
}
let taskDir = ''
let gate: RuntimeGate
beforeEach(async () => {
  gate = await setUp()
})
afterEach(async () => {
  await env.cleanup()
  await rm(taskDir, { recursive: true, force: true })
})

const tools = new Map(createCatalog({ isReadOnlyCommand }).map((t) => [t.name, t]))
let n = 0
const call = (name: string, args: unknown) => ({
  id: `call-${++n}`,
  type: 'function' as const,
  function: { name, arguments: JSON.stringify(args) },
})

function execute(name: string, args: unknown) {
  const deps = { tools, gate, dispatch: store.dispatch, makeContext: () => env.ctx, now: () => 0 }
  return executeCall(call(name, args), deps, new AbortController().signal)
}

/** Reads `rel` as the Read tool does, so read-first holds for it. */
async function read(rel: string) {
  const out = await execute('Read', { file_path: join(env.workspace, rel) })
  expect(out.status).toBe('done')
}

const prompts = () => actions.filter((a) => a.type === 'consent/requested').length

async function asked() {
  for (;;) {
    const id = store.getState().consent.queue[0]
    if (id) return id
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

describe('calls that cannot succeed fail before anyone is asked', () => {
  const cases: Array<{
    name: string
    setup?: () => Promise<void>
    tool: string
    args: () => unknown
    category: string
    message: RegExp
  }> = [
    {
      name: 'Edit of a file not read in this session',
      setup: () => writeFile(join(env.workspace, 'a.txt'), 'one\ntwo\n'),
      tool: 'Edit',
      args: () => ({ file_path: join(env.workspace, 'a.txt'), old_string: 'one', new_string: 'uno' }),
      category: 'validation',
      message: /has not been read in this session/,
    },
    {
      name: 'Edit of a file changed on disk since it was read',
      setup: async () => {
        await writeFile(join(env.workspace, 'a.txt'), 'one\ntwo\n')
        await read('a.txt')
        await writeFile(join(env.workspace, 'a.txt'), 'one\ntwo\nthree\n')
      },
      tool: 'Edit',
      args: () => ({ file_path: join(env.workspace, 'a.txt'), old_string: 'one', new_string: 'uno' }),
      category: 'filesystem',
      message: /changed on disk since you last read it/,
    },
    {
      name: 'Edit of a missing file',
      tool: 'Edit',
      args: () => ({ file_path: join(env.workspace, 'nope.txt'), old_string: 'x', new_string: 'y' }),
      category: 'not_found',
      message: /File does not exist/,
    },
    {
      name: 'Edit whose old_string is not in the file',
      setup: async () => {
        await writeFile(join(env.workspace, 'a.txt'), 'one\ntwo\n')
        await read('a.txt')
      },
      tool: 'Edit',
      args: () => ({ file_path: join(env.workspace, 'a.txt'), old_string: 'seven', new_string: 'y' }),
      category: 'not_found',
      message: /old_string was not found/,
    },
    {
      name: 'Edit whose old_string is ambiguous',
      setup: async () => {
        await writeFile(join(env.workspace, 'a.txt'), 'one\none\n')
        await read('a.txt')
      },
      tool: 'Edit',
      args: () => ({ file_path: join(env.workspace, 'a.txt'), old_string: 'one', new_string: 'y' }),
      category: 'validation',
      message: /occurs 2 times/,
    },
    {
      name: 'Edit with identical strings',
      tool: 'Edit',
      args: () => ({ file_path: join(env.workspace, 'a.txt'), old_string: 'x', new_string: 'x' }),
      category: 'validation',
      message: /identical/,
    },
    {
      name: 'Write over a file not read in this session',
      setup: () => writeFile(join(env.workspace, 'a.txt'), 'old\n'),
      tool: 'Write',
      args: () => ({ file_path: join(env.workspace, 'a.txt'), content: 'new\n' }),
      category: 'validation',
      message: /has not been read in this session/,
    },
    {
      name: 'Write over a directory',
      setup: async () => {
        await mkdir(join(env.workspace, 'dir'))
      },
      tool: 'Write',
      args: () => ({ file_path: join(env.workspace, 'dir'), content: 'new\n' }),
      category: 'validation',
      message: /is a directory/,
    },
    {
      name: 'NotebookEdit of a missing cell',
      setup: async () => {
        await copyFile(NOTEBOOK, join(env.workspace, 'sales.ipynb'))
        await read('sales.ipynb')
      },
      tool: 'NotebookEdit',
      args: () => ({
        notebook_path: join(env.workspace, 'sales.ipynb'),
        cell_id: 'no-such-cell',
        new_source: 'x',
      }),
      category: 'not_found',
      message: /no-such-cell/,
    },
    {
      name: 'NotebookEdit of a missing notebook',
      tool: 'NotebookEdit',
      args: () => ({ notebook_path: join(env.workspace, 'none.ipynb'), cell_number: 0, new_source: 'x' }),
      category: 'not_found',
      message: /Notebook does not exist/,
    },
    {
      name: 'TaskStop of an unknown id',
      tool: 'TaskStop',
      args: () => ({ task_id: 'b99' }),
      category: 'not_found',
      message: /unknown task id "b99"/,
    },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      await c.setup?.()
      const out = await execute(c.tool, c.args())
      expect(prompts()).toBe(0)
      expect(out.status).toBe('error')
      const envelope = JSON.parse(out.content).error
      expect(envelope.category).toBe(c.category)
      expect(envelope.message).toMatch(c.message)
      expect(store.getState().run.phase).not.toBe('awaiting-user')
    })
  }
})

describe('calls that can succeed still ask, and the run checks again', () => {
  it('Edit of a read file asks, and applies once approved', async () => {
    await writeFile(join(env.workspace, 'a.txt'), 'one\ntwo\n')
    await read('a.txt')
    const pending = execute('Edit', {
      file_path: join(env.workspace, 'a.txt'),
      old_string: 'one',
      new_string: 'uno',
    })
    gate.resolve(await asked(), { kind: 'once' })
    expect((await pending).status).toBe('done')
    expect(await readFile(join(env.workspace, 'a.txt'), 'utf8')).toBe('uno\ntwo\n')
  })

  it('Write of a new file asks (nothing to refuse)', async () => {
    const pending = execute('Write', { file_path: join(env.workspace, 'new.txt'), content: 'x\n' })
    gate.resolve(await asked(), { kind: 'once' })
    expect((await pending).status).toBe('done')
  })

  it('a file changed while the user read the prompt is refused at run time', async () => {
    const path = join(env.workspace, 'a.txt')
    await writeFile(path, 'one\ntwo\n')
    await read('a.txt')
    const pending = execute('Edit', { file_path: path, old_string: 'one', new_string: 'uno' })
    const id = await asked()
    await writeFile(path, 'one\ntwo\nthree\n')
    const later = new Date(Date.now() + 5000)
    await utimes(path, later, later)
    gate.resolve(id, { kind: 'once' })
    const out = await pending
    expect(out.status).toBe('error')
    expect(JSON.parse(out.content).error.message).toMatch(/changed on disk/)
    expect(await readFile(path, 'utf8')).toBe('one\ntwo\nthree\n')
  })
})

describe('the policy comes first: a denied path is never probed', () => {
  it('an Edit of a denied file gets the permission envelope, not what the file holds or whether it exists', async () => {
    await env.cleanup()
    await rm(taskDir, { recursive: true, force: true })
    gate = await setUp(['Edit(secret.txt)'])
    const path = join(env.workspace, 'secret.txt')
    await writeFile(path, 'token=abc\n')
    const before = await stat(path)
    const out = await execute('Edit', { file_path: path, old_string: 'token=abd', new_string: 'x' })
    expect(prompts()).toBe(0)
    const envelope = JSON.parse(out.content).error
    expect(envelope.category).toBe('permission')
    expect(envelope.message).not.toMatch(/token|not been read|does not exist/)
    expect((await stat(path)).atimeMs).toBe(before.atimeMs)
  })
})

describe('a passing precheck changes nothing', () => {
  it('Edit, Write and NotebookEdit leave the files as they were', async () => {
    const text = join(env.workspace, 'a.txt')
    const book = join(env.workspace, 'sales.ipynb')
    await writeFile(text, 'one\ntwo\n')
    await copyFile(NOTEBOOK, book)
    await read('a.txt')
    await read('sales.ipynb')
    const bookBefore = await readFile(book, 'utf8')
    const ctx = env.ctx
    await tools.get('Edit')?.precheck?.({ file_path: text, old_string: 'one', new_string: 'uno' }, ctx)
    await tools.get('Write')?.precheck?.({ file_path: text, content: 'other\n' }, ctx)
    await tools.get('NotebookEdit')?.precheck?.({ notebook_path: book, cell_number: 0, new_source: 'x' }, ctx)
    await tools
      .get('Edit')
      ?.precheck?.({ file_path: join(env.workspace, 'new.txt'), old_string: '', new_string: 'x' }, ctx)
    expect(await readFile(text, 'utf8')).toBe('one\ntwo\n')
    expect(await readFile(book, 'utf8')).toBe(bookBefore)
    await expect(stat(join(env.workspace, 'new.txt'))).rejects.toThrow(/ENOENT/)
  })
})

describe('a path outside what the model may read unasked is not looked at before asking', () => {
  for (const [name, exists] of [
    ['an existing file', true],
    ['a missing file', false],
  ] as const)
    it(`an Edit of ${name} outside the workspace asks, as before (no existence oracle)`, async () => {
      const path = join(env.root, 'outside.txt')
      if (exists) await writeFile(path, 'one\n')
      const pending = execute('Edit', { file_path: path, old_string: 'one', new_string: 'uno' })
      gate.resolve(await asked(), { kind: 'deny' })
      expect(JSON.parse((await pending).content).error.category).toBe('permission')
    })
})
