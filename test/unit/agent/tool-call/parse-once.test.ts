import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { executeCall } from '../../../../source/agent/tool-call/pipeline.js'
import { createConsentBroker } from '../../../../source/permissions/broker.js'
import { isReadOnlyCommand } from '../../../../source/permissions/classifier.js'
import { createPermissionGate, type RuntimeGate } from '../../../../source/permissions/gate.js'
import { parseRule } from '../../../../source/permissions/rules.js'
import { createStore, type Store } from '../../../../source/store/create-store.js'
import type { ConsentDecision, Mode } from '../../../../source/store/domain.js'
import { initialState } from '../../../../source/store/state.js'
import { createCatalog } from '../../../../source/tools/catalog.js'
import { createTestEnv, type TestEnv, waitFor } from '../../tools/helpers.js'

// Every split of a shell command, by the string split: the classifier, the real-path resolution, the
// policy and the rule suggestion all read the gate's one analysis of the command.
const splits = vi.hoisted(() => [] as string[])
vi.mock('../../../../source/permissions/shell-split.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../../source/permissions/shell-split.js')>()
  return {
    ...actual,
    splitShell: (command: string) => {
      splits.push(command)
      return actual.splitShell(command)
    },
  }
})

let env: TestEnv
let store: Store
let gate: RuntimeGate

function session(mode: Mode, deny: string[] = []) {
  store = createStore(
    initialState({ id: 's', cwd: env.workspace, model: 'm', baseUrl: 'x', title: '', startedAt: 0 }, mode),
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
    rules: { allow: [], ask: [], deny: deny.map((text) => parseRule(text, 'test')) },
    broker,
    workspace: env.workspace,
    home: env.root,
    additionalDirs: [],
    trustedReadDirs: [],
    interactive: true,
    savedTo: '.agent-tui/settings.local.json',
  })
  gateRef = gate
}

beforeEach(async () => {
  env = await createTestEnv()
  splits.length = 0
})
afterEach(async () => {
  await env.cleanup()
})

const tools = new Map(createCatalog({ isReadOnlyCommand }).map((t) => [t.name, t]))

async function bash(command: string, answer?: ConsentDecision) {
  const outcome = executeCall(
    { id: 'c1', type: 'function', function: { name: 'Bash', arguments: JSON.stringify({ command }) } },
    { tools, gate, dispatch: store.dispatch, makeContext: () => env.ctx, now: Date.now },
    new AbortController().signal,
  )
  if (answer) {
    await waitFor(() => store.getState().consent.queue.length > 0, 'a consent request')
    gate.resolve(store.getState().consent.queue[0] as string, answer)
  }
  return outcome
}

describe('one parse of a Bash command per call', () => {
  it.each<[string, Mode, string, string[], ConsentDecision | undefined, string]>([
    [
      'asks, and the user allows it once',
      'safe',
      'echo hi > out.txt && cat out.txt',
      [],
      { kind: 'once' },
      'done',
    ],
    ['asks, and the user allows it always', 'safe', 'touch a.txt', [], { kind: 'session' }, 'done'],
    ['asks, and the user denies it', 'safe', 'touch b.txt', [], { kind: 'deny' }, 'denied'],
    ['runs unasked: it only reads', 'safe', 'ls -la', [], undefined, 'done'],
    ['asks in auto mode without a sandbox', 'auto', 'touch c.txt', [], { kind: 'once' }, 'done'],
    ['is denied by a deny rule', 'safe', 'rm -f nothing.txt', ['Bash(rm *)'], undefined, 'denied'],
  ])('%s', async (_what, mode, command, deny, answer, status) => {
    session(mode, deny)
    const outcome = await bash(command, answer)
    expect(outcome.status).toBe(status)
    expect(splits.filter((s) => s === command)).toHaveLength(1)
  })

  it('parses an inner `bash -c` script once more, as a string of its own', async () => {
    session('safe')
    const inner = 'echo nested > inner.txt'
    const command = `bash -c '${inner}'`
    expect((await bash(command, { kind: 'once' })).status).toBe('done')
    expect(splits.filter((s) => s === command)).toHaveLength(1)
    expect(splits.filter((s) => s === inner)).toHaveLength(1)
  })
})
