import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { listTurns, type RewindHost, rewind, undoRewind } from '../../../source/checkpoints/rewind.js'
import { CheckpointService } from '../../../source/checkpoints/checkpoint-service.js'
import { type Action, isPersisted, type PersistedAction } from '../../../source/store/actions.js'
import { createStore, type Store } from '../../../source/store/create-store.js'
import { replay } from '../../../source/store/reducer.js'
import { initialState, type State } from '../../../source/store/state.js'
import { checkPairing } from '../../support/pairing-check.js'
import { GIT, makeWorkspace, type Workspace } from './helpers.js'

let ws: Workspace
beforeEach(async () => {
  ws = await makeWorkspace()
})
afterEach(async () => {
  await ws.cleanup()
})

const fresh = (): State =>
  initialState({ id: 's', cwd: '/w', model: 'm', baseUrl: 'x', title: '', startedAt: 0 }, 'safe')

/** A store, a real checkpoint service on the temp workspace, and a way to play turns like the loop does. */
function harness(opts: { maxFileBytes?: number; git?: string } = {}) {
  const log: PersistedAction[] = []
  const notices: string[] = []
  const store: Store = createStore(fresh(), (action: Action) => {
    if (isPersisted(action)) log.push(action)
  })
  const service = new CheckpointService({
    workspace: ws.dir,
    stateDir: ws.state,
    dispatch: store.dispatch,
    notice: (_level, text) => notices.push(text),
    git: () => ('git' in opts ? opts.git : GIT),
    ...(opts.maxFileBytes ? { maxFileBytes: opts.maxFileBytes } : {}),
  })
  let n = 0
  let reads = 1
  const host: RewindHost = {
    getState: store.getState,
    dispatch: store.dispatch,
    checkpoints: service,
    newId: (prefix) => `${prefix}-${++n}`,
    forgetReads: () => {
      reads = 0
    },
    busy: () => false,
    notice: (text) => notices.push(text),
  }
  /** One user turn: each step is a tool call (paired with its result) that may change files. */
  async function turn(prompt: string, steps: Array<{ kind: 'edit' | 'exec'; run: () => Promise<void> }>) {
    const turnId = `turn-${++n}`
    store.dispatch({ type: 'turn/started', turnId, at: 0 })
    store.dispatch({ type: 'user/submitted', id: `u-${n}`, content: prompt, text: prompt, turnId })
    for (const step of steps) {
      const callId = `call-${++n}`
      store.dispatch({
        type: 'assistant/settled',
        id: `a-${n}`,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: callId, type: 'function', function: { name: 'Edit', arguments: '{}' } }],
        },
      })
      await service.beforeChange(turnId, step.kind)
      await step.run()
      service.afterChange(turnId)
      store.dispatch({
        type: 'tool/finished',
        callId,
        name: 'Edit',
        summary: 'Edit',
        status: 'done',
        content: 'ok',
        preview: 'ok',
        display: null,
        durationMs: 1,
      })
    }
    store.dispatch({
      type: 'assistant/settled',
      id: `a-${++n}`,
      message: { role: 'assistant', content: 'done' },
    })
    store.dispatch({ type: 'turn/ended', result: { kind: 'completed', text: 'done', steps: 1 } })
    await service.idle()
  }
  return { store, service, host, log, notices, turn, reads: () => reads }
}

const edit = (path: string, text: string) => ({ kind: 'edit' as const, run: () => ws.write(path, text) })
const shell = (run: () => Promise<void>) => ({ kind: 'exec' as const, run })
const userTexts = (s: State) => s.messages.filter((m) => m.role === 'user').map((m) => m.content)

describe('rewind', () => {
  it('restores code and conversation to the start of a turn, deleting files created after it', async () => {
    await ws.write('a.txt', 'a0')
    await ws.write('b.txt', 'b0')
    await ws.write('d.txt', 'd0')
    const h = harness()
    await h.turn('first', [edit('a.txt', 'a1'), edit('c.txt', 'c1')])
    await h.turn('second', [
      edit('b.txt', 'b2'),
      shell(async () => {
        await rm(join(ws.dir, 'd.txt'))
        await ws.write('e/new.txt', 'e2')
      }),
    ])
    const turns = listTurns(h.store.getState())
    expect(turns.map((t) => [t.number, t.prompt, t.files])).toEqual([
      [1, 'first', ['a.txt', 'c.txt']],
      [2, 'second', ['b.txt', 'd.txt', 'e/new.txt']],
    ])

    const report = await rewind(h.host, '2', 'both')
    expect(report).toMatchObject({
      restore: ['b.txt', 'd.txt'],
      remove: ['e/new.txt'],
      outside: [],
      droppedTurns: 1,
    })
    expect([
      await ws.read('a.txt'),
      await ws.read('b.txt'),
      await ws.read('c.txt'),
      await ws.read('d.txt'),
    ]).toEqual(['a1', 'b0', 'c1', 'd0'])
    expect(await ws.read('e/new.txt')).toBeNull()
    const state = h.store.getState()
    expect(userTexts(state)).toEqual(['first'])
    expect(checkPairing(state.messages)).toBeNull()
    expect(state.turns.map((t) => t.prompt)).toEqual(['first'])
    expect(h.reads()).toBe(0)

    await rewind(h.host, '1', 'code')
    expect([await ws.read('a.txt'), await ws.read('c.txt')]).toEqual(['a0', null])
  })

  it('keeps files changed outside the agent unless forced, and says which', async () => {
    await ws.write('a.txt', 'a0')
    await ws.write('x.txt', 'x0')
    const h = harness()
    await h.turn('edit a', [edit('a.txt', 'a1'), edit('b.txt', 'b1')])
    await ws.write('a.txt', 'a-user')
    await ws.write('x.txt', 'x-user')

    const kept = await rewind(h.host, '1', 'code')
    expect(kept).toMatchObject({ restore: [], remove: ['b.txt'], outside: ['a.txt', 'x.txt'] })
    expect([await ws.read('a.txt'), await ws.read('x.txt'), await ws.read('b.txt')]).toEqual([
      'a-user',
      'x-user',
      null,
    ])

    const forced = await rewind(h.host, '1', 'code', { force: true })
    expect(forced).toMatchObject({ restore: ['a.txt', 'x.txt'], outside: ['a.txt', 'x.txt'] })
    expect([await ws.read('a.txt'), await ws.read('x.txt')]).toEqual(['a0', 'x0'])
  })

  it('a dry run changes nothing and reports what would change', async () => {
    await ws.write('a.txt', 'a0')
    const h = harness()
    await h.turn('edit', [edit('a.txt', 'a1')])
    const before = h.store.getState()
    const plan = await rewind(h.host, '1', 'both', { dryRun: true })
    expect(plan).toMatchObject({ applied: false, restore: ['a.txt'], droppedTurns: 1 })
    expect(await ws.read('a.txt')).toBe('a1')
    expect(h.store.getState().messages).toBe(before.messages)
  })

  it('undoes a rewind: files and conversation come back; after a new message only the files can', async () => {
    await ws.write('a.txt', 'a0')
    const h = harness()
    await h.turn('one', [edit('a.txt', 'a1')])
    await h.turn('two', [edit('a.txt', 'a2'), edit('n.txt', 'n2')])
    const full = h.store.getState()

    await rewind(h.host, '1', 'both')
    expect([await ws.read('a.txt'), await ws.read('n.txt')]).toEqual(['a0', null])
    expect(h.store.getState().messages).toEqual([])

    const undone = await undoRewind(h.host)
    expect(undone).toMatchObject({ scope: 'both', restore: ['a.txt', 'n.txt'] })
    expect([await ws.read('a.txt'), await ws.read('n.txt')]).toEqual(['a2', 'n2'])
    const back = h.store.getState()
    expect(back.messages).toEqual(full.messages)
    expect(back.turns.map((t) => t.prompt)).toEqual(['one', 'two'])
    expect(checkPairing(back.messages)).toBeNull()
    await expect(undoRewind(h.host)).rejects.toThrow('there is no rewind to undo')

    // Rewinding again to a restored turn lands exactly where the first rewind did.
    await rewind(h.host, '2', 'both')
    expect(userTexts(h.store.getState())).toEqual(['one'])
    expect(await ws.read('a.txt')).toBe('a1')
    await h.turn('three', [])
    const files = await undoRewind(h.host)
    expect(files.scope).toBe('code')
    expect(await ws.read('a.txt')).toBe('a2')
    expect(userTexts(h.store.getState())).toEqual(['one', 'three'])
  })

  it('a conversation-only rewind keeps files; a later code rewind still undoes the dropped turn’s changes', async () => {
    await ws.write('a.txt', 'a0')
    const h = harness()
    await h.turn('one', [])
    await h.turn('two', [edit('a.txt', 'a2')])
    await rewind(h.host, '2', 'conversation')
    expect(await ws.read('a.txt')).toBe('a2')
    expect(listTurns(h.store.getState()).map((t) => t.prompt)).toEqual(['one'])
    const report = await rewind(h.host, '1', 'code')
    expect(report.restore).toEqual(['a.txt'])
    expect(await ws.read('a.txt')).toBe('a0')
  })

  it('replaying the session log reaches the same turns, history, file record and undo', async () => {
    await ws.write('a.txt', 'a0')
    const h = harness()
    await h.turn('one', [edit('a.txt', 'a1')])
    await h.turn('two', [edit('a.txt', 'a2')])
    await rewind(h.host, '2', 'both')
    const live = h.store.getState()
    const resumed = replay(fresh(), h.log)
    expect(resumed.messages).toEqual(live.messages)
    expect(resumed.transcript.order).toEqual(live.transcript.order)
    expect(resumed.turns).toEqual(live.turns)
    expect(resumed.checkpoints).toEqual(live.checkpoints)
  })

  it('states the files a checkpoint left out for their size, and never restores them', async () => {
    await ws.write('a.txt', 'a0')
    const h = harness({ maxFileBytes: 100 })
    await h.turn('big', [edit('a.txt', 'a1'), edit('big.bin', 'x'.repeat(500))])
    expect(h.notices.join('\n')).toContain('Checkpoint left out a file over 100 B: big.bin (500 B)')
    await h.turn('bigger', [edit('a.txt', 'a2'), edit('big.bin', 'y'.repeat(600))])
    const turn = listTurns(h.store.getState())[1]
    expect(turn?.skipped).toEqual([{ path: 'big.bin', bytes: 500 }])
    const report = await rewind(h.host, '2', 'code')
    expect(report.restore).toEqual(['a.txt'])
    expect(report.kept).toEqual([])
    expect(await ws.read('big.bin')).toBe('y'.repeat(600))
    expect(await ws.read('a.txt')).toBe('a1')
  })

  it('without git: a notice, turns say why files cannot go back, the conversation still can', async () => {
    // No git on PATH outside the workspace (a git inside it is never run: see host-programs.ts).
    const h = harness({ git: undefined })
    await h.turn('edit', [edit('a.txt', 'a1')])
    expect(h.notices).toEqual([
      'Checkpoints are off for this session: git was not found on PATH outside the workspace (install git to let /rewind restore files). /rewind can still restore the conversation.',
    ])
    const [turn] = listTurns(h.store.getState(), h.service.offReason())
    expect(turn).toMatchObject({ code: false, conversation: true })
    await expect(rewind(h.host, '1', 'code')).rejects.toThrow(
      'files cannot go back to turn 1: git was not found',
    )
    const report = await rewind(h.host, '1', 'both')
    expect(report.notes[0]).toContain('files are not restored')
    expect(h.store.getState().messages).toEqual([])
  })

  it('says so when the shadow repository no longer has the checkpoint (deleted by hand)', async () => {
    await ws.write('a.txt', 'a0')
    const h = harness()
    await h.turn('edit', [edit('a.txt', 'a1')])
    await rm(join(ws.state, 'checkpoints'), { recursive: true })
    await expect(rewind(h.host, '1', 'code')).rejects.toThrow('the checkpoint is no longer stored')
    expect(await ws.read('a.txt')).toBe('a1')
  })

  it('finds turns by number or id and explains a bad reference', async () => {
    const h = harness()
    await h.turn('one', [])
    await expect(rewind(h.host, '3', 'both')).rejects.toThrow('no turn 3: this conversation has turns 1–1')
    await expect(rewind(h.host, 'zzz', 'both')).rejects.toThrow('no turn "zzz"')
    const id = listTurns(h.store.getState())[0]?.id ?? ''
    await expect(rewind(h.host, id, 'conversation', { dryRun: true })).resolves.toMatchObject({
      droppedTurns: 1,
    })
  })
})
