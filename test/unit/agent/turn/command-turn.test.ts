import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_BREAKER } from '../../../../source/agent/turn/circuit-breaker.js'
import { commandGrants } from '../../../../source/agent/turn/command-turn.js'
import { Runtime } from '../../../../source/agent/runtime/runtime.js'
import { expandCommand as expandBody } from '../../../../source/extensions/expand.js'
import type { CommandDefinition } from '../../../../source/extensions/types.js'
import { createConsentBroker } from '../../../../source/permissions/broker.js'
import { isReadOnlyCommand } from '../../../../source/permissions/classifier.js'
import { parseRule } from '../../../../source/permissions/rules.js'
import { createOpenAIProvider } from '../../../../source/provider/client.js'
import { createStore, type Store } from '../../../../source/store/create-store.js'
import type { Mode } from '../../../../source/store/domain.js'
import { initialState } from '../../../../source/store/state.js'
import { createCoreTools } from '../../../../source/tools/catalog.js'
import { createFileStateTracker } from '../../../../source/tools/file-state.js'
import { createOutputSpiller } from '../../../../source/tools/spill.js'
import { createPermissionGate, type RuntimeGate } from '../../../../source/permissions/gate.js'
import { type ScriptedServer, startScriptedServer } from '../../../support/scripted-server.ts'

// A user command's turn through the real runtime, tools and permission gate: its `!` commands and `@`
// files run first under the permission rules, its allowed-tools hold for its turn only.

let server: ScriptedServer
let dir: string
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-command-turn-')))
})
afterEach(async () => {
  expect(server.pairingViolations).toEqual([])
  await server.close()
  await rm(dir, { recursive: true, force: true })
})

function session(mode: Mode, deny: string[] = []): { store: Store; runtime: Runtime; gate: RuntimeGate } {
  const store = createStore(
    initialState({ id: 's', cwd: dir, model: 'session-model', baseUrl: 'x', title: '', startedAt: 0 }, mode),
  )
  const broker = createConsentBroker({ dispatch: store.dispatch, policy: 'deny-all' })
  const gate = createPermissionGate({
    store,
    rules: { allow: [], ask: [], deny: deny.map((r) => parseRule(r, '--disallowed-tools')) },
    broker,
    workspace: dir,
    home: dir,
    additionalDirs: [],
    trustedReadDirs: [],
    interactive: false,
    savedTo: 'settings.local.json',
  })
  const runtime = new Runtime({
    store,
    provider: createOpenAIProvider({ baseUrl: server.baseUrl, baseDelayMs: 1 }),
    tools: createCoreTools({ isReadOnlyCommand }),
    gate,
    workspace: dir,
    sessionId: 's',
    files: createFileStateTracker(),
    spill: createOutputSpiller(join(dir, '.outputs')),
    systemPrompt: 'system',
    capabilities: () => ({ supportsVision: false, supportsAllowedTools: false }),
    maxSteps: 5,
    breaker: DEFAULT_BREAKER,
    interactive: false,
  })
  return { store, runtime, gate }
}

type WithBody = CommandDefinition & { body: string }
const expandCommand = (c: WithBody, args: string) => expandBody(c, c.body, args)

function command(body: string, extra: Partial<CommandDefinition> = {}): WithBody {
  return {
    name: 'review',
    scope: 'project',
    namespace: [],
    description: 'Review',
    allowedTools: [],
    body,
    readBody: async () => body,
    file: '.agent-tui/commands/review.md',
    ...extra,
  }
}

const lastUser = (i: number) =>
  ((server.requests[i]?.body.messages ?? []) as Array<{ role: string; content: string }>).findLast(
    (m) => m.role === 'user',
  )?.content

const touchCheck = (gate: RuntimeGate) =>
  gate.check({
    tool: 'Bash',
    risk: 'exec',
    target: { kind: 'command', command: 'touch made' },
    readOnly: false,
  })

describe('a user command turn', () => {
  it('runs its commands and reads its files first, sends the prompt made of them, and shows what was typed', async () => {
    server = await startScriptedServer({ replies: [{ text: 'reviewed' }] })
    await writeFile(join(dir, 'notes.md'), 'first\nsecond\n')
    const { store, runtime } = session('safe')
    const invocation = expandCommand(
      command('Look at $0: !`echo one; echo two` and @notes.md and @missing/file.md'),
      'src',
    )
    const result = await runtime.runTurn({ text: '/review src', command: invocation })
    expect(result.kind).toBe('completed')
    expect(lastUser(0)).toBe(
      'Look at src: one\ntwo and @notes.md and @missing/file.md\n\n<file path="notes.md">\n     1\tfirst\n     2\tsecond\n</file>',
    )
    const items = Object.values(store.getState().transcript.items)
    expect(items.find((i) => i.kind === 'user')).toMatchObject({ text: '/review src' })
    expect(
      items.some((i) => i.kind === 'notice' && i.text.includes('ran `echo one; echo two`; included a file')),
    ).toBe(true)
    // The command's own calls leave no tool card and no tool message behind.
    expect(items.some((i) => i.kind === 'tool')).toBe(false)
  })

  it("puts a failing command's output and exit code in the prompt", async () => {
    server = await startScriptedServer({ replies: [{ text: 'ok' }] })
    const { runtime } = session('dangerous')
    await runtime.runTurn({
      text: '/review',
      command: expandCommand(command('Out: !`echo bad; exit 3`'), ''),
    })
    expect(lastUser(0)).toBe('Out: bad\n(exit code 3)')
  })

  it('in ci, a command that would ask is denied: nothing is sent, and the error names the rule that would allow it', async () => {
    server = await startScriptedServer({ replies: [{ text: 'never' }] })
    const { runtime } = session('ci')
    const result = await runtime.runTurn({
      text: '/review',
      command: expandCommand(command('Made: !`touch made`'), ''),
    })
    expect(result.kind).toBe('error')
    expect(result.error).toContain('/review: `touch made` did not run: Bash denied')
    expect(result.error).toContain('add Bash(touch made) to allowed-tools in .agent-tui/commands/review.md')
    expect(server.requests).toHaveLength(0)
  })

  it('denied by a deny rule: the error names the rule and suggests no allow rule, which would not open it', async () => {
    server = await startScriptedServer({ replies: [{ text: 'never' }] })
    await writeFile(join(dir, 'secrets.txt'), 'TOPSECRET')
    const { runtime } = session('ci', ['Read(secrets.txt)'])
    const result = await runtime.runTurn({
      text: '/review',
      command: expandCommand(command('Look at @secrets.txt', { allowedTools: ['Read(secrets.txt)'] }), ''),
    })
    expect(result.error).toBe(
      '/review: @secrets.txt was not read: Read denied: rule Read(secrets.txt) in --disallowed-tools denies. Nothing was sent to the model.',
    )
    expect(server.requests).toHaveLength(0)
  })

  it('grants its allowed-tools for its own turn only, and runs on its model', async () => {
    server = await startScriptedServer({
      replies: [
        { toolCalls: [{ name: 'Bash', arguments: { command: 'touch by-model' } }] },
        { text: 'done' },
        { text: 'next turn' },
      ],
    })
    const { runtime, gate } = session('ci')
    const invocation = expandCommand(
      command('Touch: !`touch made`', { allowedTools: ['Bash(touch *)'], model: 'small-model' }),
      '',
    )
    const result = await runtime.runTurn({ text: '/review', command: invocation })
    expect(result.kind).toBe('completed')
    expect(lastUser(0)).toBe('Touch: ')
    // The model's own call in the command's turn was allowed by the grant too.
    const toolMessage = (
      (server.requests[1]?.body.messages ?? []) as Array<{ role: string; content: string }>
    ).find((m) => m.role === 'tool')
    expect(toolMessage?.content).toContain('Exit code 0')
    expect(server.requests.map((r) => r.body.model)).toEqual(['small-model', 'small-model'])
    expect(touchCheck(gate).decision).toBe('deny')
    await runtime.runTurn({ text: 'plain' })
    expect(server.requests[2]?.body.model).toBe('session-model')
  })

  it('its grants ride on the calls of its turn: the gate itself never holds them', async () => {
    server = await startScriptedServer()
    const invocation = expandCommand(command('x', { allowedTools: ['Bash(touch *)'] }), '')
    const grants = commandGrants(invocation)
    expect(grants).toEqual([
      {
        text: 'Bash(touch *)',
        tool: 'Bash',
        specifier: 'touch *',
        source: 'allowed-tools of .agent-tui/commands/review.md',
      },
    ])
    const { gate } = session('ci')
    const touch = {
      tool: 'Bash',
      risk: 'exec',
      target: { kind: 'command', command: 'touch made' },
      readOnly: false,
    } as const
    expect(gate.check({ ...touch, grants }).decision).toBe('allow')
    expect(gate.check(touch).decision).toBe('deny')
    // Like every allow rule, never past a deny rule.
    const denying = session('ci', ['Bash(touch *)']).gate
    expect(denying.check({ ...touch, grants }).decision).toBe('deny')
  })

  it('waits for the running turn and then runs as a turn of its own', async () => {
    server = await startScriptedServer({
      replies: [{ text: 'first', chunkDelayMs: 20 }, { text: 'second' }],
    })
    const { runtime } = session('safe')
    runtime.submit({ text: 'hello' })
    runtime.submit({ text: '/review', command: expandCommand(command('Echo: !`echo x`'), '') })
    await runtime.idle()
    await runtime.idle()
    expect(server.requests).toHaveLength(2)
    expect(lastUser(0)).toBe('hello')
    expect(lastUser(1)).toBe('Echo: x')
  })
})
