import { describe, expect, it } from 'vitest'
import type { RewindReport, RewindTurn } from '../../../source/checkpoints/types.js'
import { RewindDialog } from '../../../source/ui/panes/rewind/rewind-dialog.js'
import { filesLabel, listRows, planLines, scopeOptions } from '../../../source/ui/panes/rewind/rewind-view.js'
import { fakeCommands, fakeShell, KEYS, makeStore, renderPane, waitFor } from './helpers.js'

const turn = (n: number, prompt: string, files: string[], over: Partial<RewindTurn> = {}): RewindTurn => ({
  id: `turn-${n}`,
  number: n,
  prompt,
  files,
  skipped: [],
  code: true,
  conversation: true,
  ...over,
})

const TURNS = [
  turn(1, 'add a README', ['README.md']),
  turn(2, 'fix the parser', ['src/parse.ts', 'src/lex.ts', 'test/parse.test.ts']),
  turn(3, 'explain the build', []),
]

function plan(over: Partial<RewindReport> = {}): RewindReport {
  return {
    turn: TURNS[1],
    scope: 'both',
    restore: ['src/parse.ts', 'src/lex.ts'],
    remove: ['test/parse.test.ts'],
    outside: ['notes.md'],
    kept: [{ path: 'data.bin', reason: 'size-cap' }],
    droppedTurns: 2,
    notes: [],
    applied: false,
    undoable: false,
    ...over,
  }
}

function open(opts: { turns?: RewindTurn[]; report?: () => RewindReport; width?: number } = {}) {
  const store = makeStore([{ type: 'ui/rewind', open: true }])
  const commands = fakeCommands({
    store,
    rewindTurns: opts.turns ?? TURNS,
    rewindReport: (call) => ({ ...(opts.report?.() ?? plan()), applied: call.dryRun !== true }),
  })
  const shell = fakeShell()
  const r = renderPane(<RewindDialog width={opts.width ?? 90} maxHeight={20} />, { store, commands, shell })
  return { ...r, store, commands, shell }
}

describe('RewindDialog', () => {
  it('wraps an option and why it is unavailable at 80 columns, never cutting it', async () => {
    const note = 'checkpoints are off: git was not found on PATH (install git to rewind files)'
    const r = open({
      turns: [turn(1, 'add a README', ['README.md'], { code: false, codeNote: note })],
      width: 80,
    })
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.frame().includes('Restore code only'), r.frame)
    const text = r
      .frame()
      .split('\n')
      .map((l) => l.replace(/^│\s*/, '').replace(/\s*│$/, '').trim())
      .join(' ')
    expect(text).toContain(`3. Restore code only — files cannot go back: ${note}`)
    expect(r.frame()).not.toContain('…')
    for (const line of r.frame().split('\n')) expect(line.length).toBeLessThanOrEqual(80)
    r.unmount()
  })

  it('lists the turns with their prompt and the files each changed, the newest selected', () => {
    const r = open()
    const frame = r.frame()
    expect(frame).toContain('Rewind — go back to the start of a turn')
    expect(frame).toContain('1. “add a README”')
    expect(frame).toContain('· 1 file: README.md')
    expect(frame).toContain('· 3 files: src/parse.ts, src/lex.ts, test/parse.test.ts')
    expect(frame).toContain('❯ 3. “explain the build”')
    expect(frame).toContain('· no file changes')
    r.unmount()
  })

  it('turn → scope → the dry run’s plan → rewind keeping outside changes', async () => {
    const r = open()
    r.stdin.write(KEYS.up)
    await waitFor(() => r.frame().includes('❯ 2. “fix the parser”'), r.frame)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.frame().includes('Restore code and conversation'), r.frame)
    expect(r.frame()).toContain('Rewind to the start of turn 2 “fix the parser”')
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.frame().includes('what will change'), r.frame)
    expect(r.commands.named('rewind')).toEqual([['turn-2', 'both', { dryRun: true }]])
    const frame = r.frame()
    expect(frame).toContain('Restore (2): src/parse.ts, src/lex.ts')
    expect(frame).toContain('Delete (created after the checkpoint) (1): test/parse.test.ts')
    expect(frame).toContain('Changed outside the agent since the checkpoint (1): notes.md')
    expect(frame).toContain('Left as is: data.bin — over the size cap when a snapshot was taken')
    expect(frame).toContain('Conversation: back to before this turn (2 turns removed)')
    expect(frame).toContain('❯ 1. Rewind, keep the files changed outside the agent')
    expect(frame).toContain('2. Rewind and overwrite notes.md too')
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.store.getState().ui.rewind === false, r.frame)
    expect(r.commands.named('rewind').at(-1)).toEqual(['turn-2', 'both', { force: false }])
    expect(r.shell.flashes.at(-1)?.text).toBe('Rewound to turn 2')
    r.unmount()
  })

  it('overwrites outside changes only when that option is chosen; Esc goes back, then closes', async () => {
    const r = open()
    r.stdin.write('2')
    await waitFor(() => r.frame().includes('Restore conversation only'), r.frame)
    r.stdin.write('3')
    await waitFor(() => r.frame().includes('what will change'), r.frame)
    expect(r.commands.named('rewind')).toEqual([['turn-2', 'code', { dryRun: true }]])
    r.stdin.write('2')
    await waitFor(() => r.store.getState().ui.rewind === false, r.frame)
    expect(r.commands.named('rewind').at(-1)).toEqual(['turn-2', 'code', { force: true }])
    r.unmount()

    const again = open()
    again.stdin.write(KEYS.enter)
    await waitFor(() => again.frame().includes('Restore code only'), again.frame)
    again.stdin.write(KEYS.esc)
    await waitFor(() => again.frame().includes('go back to the start of a turn'), again.frame)
    again.stdin.write(KEYS.esc)
    await waitFor(() => again.store.getState().ui.rewind === false, again.frame)
    expect(again.commands.named('rewind')).toEqual([])
    again.unmount()
  })

  it('shows why an option is unavailable and does not run it', async () => {
    const r = open({ turns: [turn(1, 'old', ['a.ts'], { code: false, codeNote: 'git was not found' })] })
    r.stdin.write(KEYS.enter)
    await waitFor(
      () => r.frame().includes('Restore code only — files cannot go back: git was not found'),
      r.frame,
    )
    expect(r.frame()).toContain('1. Restore code and conversation — files cannot go back: git was not found')
    r.stdin.write('1')
    r.stdin.write('3')
    expect(r.commands.named('rewind')).toEqual([])
    r.stdin.write('2')
    await waitFor(() => r.commands.named('rewind').length === 1, r.frame)
    expect(r.commands.named('rewind')[0]).toEqual(['turn-1', 'conversation', { dryRun: true }])
    r.unmount()
  })

  it('offers the undo of the last rewind and shows a failure in place', async () => {
    const store = makeStore([{ type: 'ui/rewind', open: true }])
    store.dispatch({
      type: 'code/rewound',
      rewindId: 'r1',
      turnId: 'turn-2',
      undoTree: 'abc',
      skipped: [],
      written: { 'a.txt': 'b1' },
    })
    const commands = fakeCommands({ store, rewindTurns: TURNS })
    commands.undoRewind = async () => {
      throw new Error('files cannot be put back: checkpoints are off')
    }
    const r = renderPane(<RewindDialog width={90} maxHeight={20} />, { store, commands })
    expect(r.frame()).toContain('↶ Undo the last rewind')
    r.stdin.write(KEYS.down)
    r.stdin.write(KEYS.enter)
    await waitFor(() => r.frame().includes('files cannot be put back: checkpoints are off'), r.frame)
    r.stdin.write(KEYS.enter)
    await waitFor(() => store.getState().ui.rewind === false, r.frame)
    r.unmount()
  })
})

describe('rewind view', () => {
  it('fits the files of a turn to the width, counting what does not fit', () => {
    const t = turn(1, 'p', ['src/one.ts', 'src/two.ts', 'src/three.ts', 'src/four.ts'])
    expect(filesLabel(t, 80)).toBe('· 4 files: src/one.ts, src/two.ts, src/three.ts, src/four.ts')
    expect(filesLabel(t, 36)).toBe('· 4 files: src/one.ts, src/two.ts +2')
  })

  it('puts the undo row after the turns', () => {
    const undo = { id: 'r', turnId: 'turn-1', prompt: 'add a README', code: null, conversation: null }
    expect(listRows(TURNS.slice(0, 1), undo).map((r) => r.kind)).toEqual(['turn', 'undo'])
  })

  it('offers only what the turn allows', () => {
    const noConversation = turn(1, 'p', [], { conversation: false })
    expect(scopeOptions(noConversation).map((o) => [o.scope, o.unavailable !== undefined])).toEqual([
      ['both', true],
      ['conversation', true],
      ['code', false],
    ])
  })

  it('says when there is nothing to restore and what the undo brings back', () => {
    const lines = planLines(
      plan({ turn: undefined, restore: [], remove: [], outside: [], kept: [], droppedTurns: 0 }),
      80,
    )
    expect(lines.map((l) => l.text)).toEqual([
      'Files: nothing to restore',
      'Conversation: restored as it was before the rewind',
    ])
  })
})
