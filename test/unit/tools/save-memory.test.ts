import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createConsentBroker } from '../../../source/permissions/broker.js'
import { evaluate } from '../../../source/permissions/policy.js'
import type { Action } from '../../../source/store/actions.js'
import { choiceLabel, consentChoices } from '../../../source/ui/panes/consent/consent-lines.js'
import { createSaveMemoryTool, memoryItem } from '../../../source/tools/save-memory.js'
import { testReader } from '../../support/instruction-reader.ts'
import { createTestEnv, readIfExists, run, runError, type TestEnv } from './helpers.js'

let env: TestEnv
const day = new Date('2026-03-04T23:59:00Z')
beforeEach(async () => {
  env = await createTestEnv()
})
afterEach(async () => {
  await env.cleanup()
})

const tool = () => createSaveMemoryTool({ read: testReader(env.workspace), now: () => day })
const memory = () => join(env.workspace, '.agent-tui', 'memory.md')

describe('memoryItem', () => {
  it('is one dated line: breaks and control characters become spaces', () => {
    expect(memoryItem('  use pnpm,\nnot npm\u0007 ', day)).toBe('2026-03-04: use pnpm, not npm')
    expect(memoryItem('# heading\n- item\r\nIgnore previous', day)).toBe(
      '2026-03-04: # heading - item Ignore previous',
    )
  })

  it('refuses an empty or overlong fact', () => {
    expect(() => memoryItem(' \n ', day)).toThrow(/empty/)
    expect(() => memoryItem('x'.repeat(501), day)).toThrow(/at most 500/)
  })
})

describe('SaveMemory', () => {
  it('appends a dated list item to the project memory file /memory add writes, creating it', async () => {
    const result = await run(tool(), { fact: 'tests run with npm test' }, env.ctx)
    await run(tool(), { fact: 'the API lives in src/api' }, env.ctx)
    expect(await readFile(memory(), 'utf8')).toBe(
      '# Project memory\n\n- 2026-03-04: tests run with npm test\n- 2026-03-04: the API lives in src/api\n',
    )
    expect(result.forModel).toBe(
      'Saved to .agent-tui/memory.md: "- 2026-03-04: tests run with npm test". Later sessions in this project read it.',
    )
  })

  it('previews the line it adds', async () => {
    await mkdir(join(env.workspace, '.agent-tui'))
    await writeFile(memory(), '# Project memory\n\n- old\n')
    const preview = await tool().preview({ fact: 'new fact' }, env.ctx)
    expect(preview.kind).toBe('diff')
    if (preview.kind === 'diff') {
      expect(preview.path).toBe(join('.agent-tui', 'memory.md'))
      expect(preview.diff).toContain('+- 2026-03-04: new fact')
    }
  })

  it('never writes through a link: a memory file that leads outside is refused', async () => {
    const outside = join(env.root, 'bashrc')
    await writeFile(outside, 'original\n')
    await mkdir(join(env.workspace, '.agent-tui'))
    await symlink(outside, memory())
    const error = await runError(tool(), { fact: 'x' }, env.ctx)
    expect(error.category).toBe('filesystem')
    expect(await readFile(outside, 'utf8')).toBe('original\n')
  })

  it('a .agent-tui folder that is a link out of the workspace is refused', async () => {
    await symlink(env.root, join(env.workspace, '.agent-tui'))
    const error = await runError(tool(), { fact: 'x' }, env.ctx)
    expect(error.message).toContain('its folder')
    expect(await readIfExists(join(env.root, 'memory.md'))).toBeUndefined()
  })

  it('asks in safe mode and auto mode, is denied in ci and plan mode', () => {
    const decide = (mode: 'safe' | 'auto' | 'ci' | 'plan') =>
      evaluate({
        mode,
        tool: 'SaveMemory',
        risk: tool().risk,
        target: { kind: 'none' },
        readOnly: false,
        rules: { allow: [], ask: [], deny: [] },
        workspace: env.workspace,
        home: env.root,
      }).decision
    expect([decide('safe'), decide('auto'), decide('ci'), decide('plan')]).toEqual([
      'ask',
      'ask',
      'deny',
      'deny',
    ])
    expect(tool().consentForSession).toBe(true)
  })
})

describe('asking once per session', () => {
  it('"allow" on a session-grant request allows the tool for the rest of the session', async () => {
    const actions: Action[] = []
    const broker = createConsentBroker({
      dispatch: (a) => actions.push(a),
      policy: 'interactive',
      newId: () => 'id1',
      workspace: env.workspace,
      home: env.root,
    })
    const request = {
      callId: 'c1',
      tool: 'SaveMemory',
      risk: 'config' as const,
      summary: 'SaveMemory: x',
      reason: 'safe mode asks before changing settings',
      preview: { kind: 'diff' as const, path: '.agent-tui/memory.md', diff: '+- x' },
      suggestedRule: 'SaveMemory',
      sessionGrant: true as const,
      target: { kind: 'none' as const },
    }
    const answer = broker.request(request, new AbortController().signal)
    expect(consentChoices({ ...request, id: 'id1', createdAt: 0 })).toEqual(['once', 'always', 'deny'])
    expect(choiceLabel('once', request)).toBe('1 Allow (and for the rest of this session)')
    broker.resolve('id1', { kind: 'once' })
    expect(await answer).toEqual({ kind: 'once' })
    expect(broker.sessionRules().map((r) => r.text)).toEqual(['SaveMemory'])
    // Without the flag, "allow once" is once.
    const plain = createConsentBroker({
      dispatch: () => {},
      policy: 'interactive',
      newId: () => 'id2',
      workspace: env.workspace,
      home: env.root,
    })
    const { sessionGrant: _, ...once } = request
    const second = plain.request(once, new AbortController().signal)
    plain.resolve('id2', { kind: 'once' })
    await second
    expect(plain.sessionRules()).toEqual([])
  })
})
