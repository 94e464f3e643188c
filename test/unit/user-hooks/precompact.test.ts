/** PreCompact hooks around the context manager's compactions (manual /compact, and automatic ones). */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { collectHooks } from '../../../source/user-hooks/hook-settings.js'
import { createHookService, type HookService } from '../../../source/user-hooks/hook-service.js'
import { type ScriptedServer, startScriptedServer } from '../../support/scripted-server.ts'
import { addStep, makeRuntime, makeStore } from '../agent/context/harness.js'

let server: ScriptedServer
let dir: string
let service: HookService
beforeEach(async () => {
  server = await startScriptedServer()
  dir = await mkdtemp(join(tmpdir(), 'agent-tui-precompact-'))
  const log = join(dir, 'seen')
  const collected = collectHooks([
    {
      scope: 'user',
      label: 'user.json',
      settings: {
        hooks: {
          PreCompact: [
            {
              hooks: [{ type: 'command', command: `cat >> ${log}; echo >> ${log}; echo "saved the notes"` }],
            },
          ],
        },
      },
    },
  ])
  service = createHookService({
    view: () => ({ active: collected.hooks, inactive: [], warnings: [] }),
    projectDir: dir,
    common: () => ({ session_id: 's', transcript_path: '/t', cwd: dir, permission_mode: 'default' }),
  })
})
afterEach(async () => {
  await service.dispose()
  await server.close()
  await rm(dir, { recursive: true, force: true })
})

const seen = async () =>
  (await readFile(join(dir, 'seen'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)

describe('PreCompact', () => {
  it('/compact runs it first with trigger manual and the focus; its output is a card; the compaction goes on', async () => {
    const store = makeStore()
    for (let i = 0; i < 8; i++) addStep(store, i)
    const runtime = makeRuntime({ store, baseUrl: server.baseUrl, spillDir: dir, hooks: service })
    server.enqueue({ text: 'SUMMARY: parser work' })
    expect(await runtime.compact('the parser')).toBe(true)
    expect(await seen()).toEqual([
      expect.objectContaining({
        hook_event_name: 'PreCompact',
        trigger: 'manual',
        custom_instructions: 'the parser',
      }),
    ])
    const cards = Object.values(store.getState().transcript.items).filter((i) => i.kind === 'hook')
    expect(cards.map((c) => (c.kind === 'hook' ? c.text : ''))).toEqual(['PreCompact hook: saved the notes'])
    expect(server.requests).toHaveLength(1)
  })

  it('a compaction after an overflow reports trigger auto', async () => {
    const store = makeStore()
    for (let i = 0; i < 8; i++) addStep(store, i)
    const runtime = makeRuntime({ store, baseUrl: server.baseUrl, spillDir: dir, hooks: service })
    server.enqueue({ text: 'SUMMARY' })
    await runtime.context.compact({ trigger: 'overflow', signal: new AbortController().signal })
    expect((await seen())[0]).toMatchObject({ trigger: 'auto', custom_instructions: '' })
  })
})
