/**
 * The session-level events with real hook processes: SessionStart context, /clear's SessionEnd and
 * SessionStart, the idle Notification, and the PreCompact / SubagentStop entry points.
 */
import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createSessionHooks } from '../../../source/agent/runtime/lifecycle-hooks.js'
import { MAX_STOP_CONTINUATIONS } from '../../../source/agent/turn/turn-hooks.js'
import { collectHooks, type HooksSettings } from '../../../source/user-hooks/hook-settings.js'
import { createHookService, type HookService } from '../../../source/user-hooks/hook-service.js'
import { createStore } from '../../../source/store/create-store.js'
import { initialState } from '../../../source/store/state.js'
import { pollUntil } from '../../../source/tasks/process-group.js'

let dir: string
let service: HookService | undefined
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-tui-session-hooks-'))
})
afterEach(async () => {
  await service?.dispose()
  service = undefined
  await rm(dir, { recursive: true, force: true })
})

function setup(hooks: HooksSettings, opts: { interactive?: boolean; idleMs?: number } = {}) {
  const collected = collectHooks([{ scope: 'user', label: 'user.json', settings: { hooks } }])
  service = createHookService({
    view: () => ({ active: collected.hooks, inactive: [], warnings: [] }),
    projectDir: dir,
    common: () => ({ session_id: 's', transcript_path: '/t', cwd: dir, permission_mode: 'default' }),
  })
  const store = createStore(
    initialState({ id: 's', cwd: dir, model: 'm', baseUrl: 'x', title: '', startedAt: 0 }, 'safe'),
  )
  let n = 0
  const session = createSessionHooks({
    service,
    store,
    newId: (p) => `${p}-${++n}`,
    interactive: opts.interactive ?? true,
    workspace: dir,
    ...(opts.idleMs !== undefined ? { idleMs: opts.idleMs } : {}),
  })
  return { session, store }
}

const command = (cmd: string, matcher?: string) => [
  { ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command: cmd }] },
]
const log = () => join(dir, 'log')
const lines = async () =>
  (await readFile(log(), 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)

describe('session hooks', () => {
  it('SessionStart: what the hook prints goes into the history for the model', async () => {
    const { session, store } = setup({ SessionStart: command('echo "on branch main"', 'startup') })
    await session.start('startup')
    expect(store.getState().messages).toEqual([
      { role: 'user', content: 'Context added by a SessionStart hook:\non branch main' },
    ])
    await session.start('resume')
    expect(store.getState().messages).toHaveLength(1)
  })

  it('/clear clears at once, then SessionEnd (reason clear) and SessionStart (source clear) run', async () => {
    const record = `cat >> ${log()}; echo >> ${log()}`
    const { session, store } = setup({ SessionEnd: command(record), SessionStart: command(record) })
    let cleared = false
    await session.restart(() => {
      cleared = true
      store.dispatch({ type: 'conversation/cleared' })
    })
    expect(cleared).toBe(true)
    expect((await lines()).map((l) => [l.hook_event_name, l.reason ?? l.source])).toEqual([
      ['SessionEnd', 'clear'],
      ['SessionStart', 'clear'],
    ])
  })

  it('Notification idle_prompt fires once the user has been idle, and not when a turn starts first', async () => {
    const { session } = setup({ Notification: command(`cat >> ${log()}; echo >> ${log()}`) }, { idleMs: 30 })
    session.armIdle()
    session.disarmIdle()
    session.armIdle()
    expect(
      await pollUntil(
        () => {
          try {
            return readFileSync(log(), 'utf8').includes('idle_prompt')
          } catch {
            return false
          }
        },
        { timeoutMs: 5000 },
      ),
    ).toBe(true)
    const seen = await lines()
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({
      notification_type: 'idle_prompt',
      message: 'agent-tui is waiting for your input',
    })
  })

  it('SubagentStop: a block sends feedback, bounded like Stop', async () => {
    const { session } = setup({ SubagentStop: command('echo "finish the tests" >&2; exit 2') })
    expect(await session.subagentStop({ stopHookActive: false, continuations: 0 })).toEqual({
      continueWith: 'SubagentStop hook feedback:\nfinish the tests',
    })
    expect(
      await session.subagentStop({ stopHookActive: true, continuations: MAX_STOP_CONTINUATIONS }),
    ).toEqual({ continueWith: null })
  })

  it('PreCompact: the matcher sees the trigger; the verdict carries what the hook printed', async () => {
    const { session, store } = setup({ PreCompact: command('echo "keep the API notes"', 'manual') })
    const manual = await session.preCompact('manual', 'focus on the API')
    expect(manual.ran).toBe(1)
    expect(manual.cards.map((c) => c.text)).toEqual(['PreCompact hook: keep the API notes'])
    expect((await session.preCompact('auto', '')).ran).toBe(0)
    const items = Object.values(store.getState().transcript.items)
    expect(items.map((i) => i.kind)).toEqual(['hook'])
  })
})
