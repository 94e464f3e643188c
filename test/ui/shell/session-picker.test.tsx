import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { render } from 'ink-testing-library'
import { describe, expect, it } from 'vitest'
import { runSessionPicker } from '../../../source/ui/run-tui.js'
import type { SessionSummary } from '../../../source/agent/runtime/commands.js'
import { ago, SessionPicker } from '../../../source/ui/session-picker.js'
import { FakeStdin, FakeStdout, KEYS, waitFor } from './helpers.js'

const NOW = Date.UTC(2026, 10, 22, 12)
const sessions: SessionSummary[] = [
  { id: '20261122-115500-aaaaaa', title: 'fix the flaky test', updatedAt: NOW - 5 * 60_000 },
  { id: '20261121-090000-bbbbbb', title: 'add a --json flag', updatedAt: NOW - 27 * 3_600_000 },
  { id: '20261101-090000-cccccc', title: '', updatedAt: NOW - 21 * 86_400_000 },
  { id: '20261001-090000-dddddd', title: 'rename the config keys', updatedAt: NOW - 52 * 86_400_000 },
]

function picker(rows = 10) {
  const picked: Array<string | null> = []
  const r = render(
    <SessionPicker sessions={sessions} now={NOW} rows={rows} onDone={(id) => picked.push(id)} />,
  )
  return { r, picked, frame: () => r.lastFrame() ?? '' }
}

describe('SessionPicker', () => {
  it('lists the sessions newest first with their age, title and id, the newest selected', () => {
    const { r, frame } = picker()
    const lines = frame().split('\n')
    const rowOf = (text: string) => lines.findIndex((line) => line.includes(text))
    expect(rowOf('fix the flaky test')).toBeLessThan(rowOf('add a --json flag'))
    expect(lines[rowOf('fix the flaky test')]).toMatch(/❯ 5 min +fix the flaky test 20261122-115500-aaaaaa/)
    expect(lines[rowOf('add a --json flag')]).toMatch(/^ +27 h +add a --json flag/)
    expect(frame()).toContain('(no prompt)')
    expect(frame()).toContain('4 sessions')
    r.unmount()
  })

  it('moves with ↓/↑, stops at the ends, and Enter picks the selected session', async () => {
    const { r, picked, frame } = picker()
    r.stdin.write(KEYS.down)
    await waitFor(() => /❯ 27 h/.test(frame()))
    r.stdin.write(KEYS.down)
    r.stdin.write(KEYS.down)
    r.stdin.write(KEYS.down)
    await waitFor(
      () => /❯ 52 d/.test(frame()),
      () => frame(),
    )
    r.stdin.write(KEYS.up)
    await waitFor(
      () => /❯ 21 d/.test(frame()),
      () => frame(),
    )
    r.stdin.write(KEYS.enter)
    await waitFor(() => picked.length === 1)
    expect(picked).toEqual(['20261101-090000-cccccc'])
    r.unmount()
  })

  it('scrolls a list longer than its rows with the selection and says how many are below', async () => {
    const { r, frame } = picker(2)
    expect(frame()).toContain('… 2 more')
    expect(frame()).not.toContain('rename the config keys')
    r.stdin.write(KEYS.end)
    await waitFor(
      () => frame().includes('❯ 52 d'),
      () => frame(),
    )
    expect(frame()).not.toContain('fix the flaky test')
    expect(frame()).not.toContain('more')
    r.unmount()
  })

  it('types to filter by title or id (Backspace edits), and Enter picks the first match', async () => {
    const { r, picked, frame } = picker()
    r.stdin.write('j')
    r.stdin.write('SON')
    await waitFor(
      () => frame().includes('Search: jSON') && frame().includes('1 of 4 sessions'),
      () => frame(),
    )
    expect(frame()).toContain('❯ 27 h')
    expect(frame()).not.toContain('fix the flaky test')
    r.stdin.write('x')
    await waitFor(
      () => frame().includes('No session matches "jSONx"'),
      () => frame(),
    )
    r.stdin.write(KEYS.backspace)
    await waitFor(
      () => frame().includes('1 of 4'),
      () => frame(),
    )
    r.stdin.write(KEYS.enter)
    await waitFor(() => picked.length === 1)
    expect(picked).toEqual(['20261121-090000-bbbbbb'])
    r.unmount()
  })

  it('finds sessions by what was said in them once typing pauses, reading their logs', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-picker-')))
    try {
      const log = join(dir, 'c.jsonl')
      await writeFile(
        log,
        `${JSON.stringify({ type: 'header', id: 'c' })}\n${JSON.stringify({ type: 'user/submitted', id: 'u', content: 'the Kubernetes manifests' })}\n`,
      )
      const withLogs = sessions.map((s) => (s.id === '20261101-090000-cccccc' ? { ...s, path: log } : s))
      const picked: Array<string | null> = []
      const r = render(
        <SessionPicker sessions={withLogs} now={NOW} rows={10} onDone={(id) => picked.push(id)} />,
      )
      const frame = () => r.lastFrame() ?? ''
      r.stdin.write('kubernetes')
      await waitFor(
        () => frame().includes('1 of 4 sessions') && !frame().includes('searching'),
        () => frame(),
      )
      expect(frame()).toContain('❯ 21 d')
      r.stdin.write(KEYS.enter)
      await waitFor(() => picked.length === 1)
      expect(picked).toEqual(['20261101-090000-cccccc'])
      r.unmount()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it.each([[KEYS.esc], [KEYS.ctrl('c')]])('%j backs out without a session', async (key) => {
    const { r, picked } = picker()
    r.stdin.write(key)
    await waitFor(() => picked.length === 1)
    expect(picked).toEqual([null])
    r.unmount()
  })

  it('runSessionPicker resolves with the picked id', async () => {
    const stdout = new FakeStdout(100, 30)
    const stdin = new FakeStdin()
    const done = runSessionPicker(sessions, {
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
    })
    await waitFor(() => stdin.listenerCount('readable') > 0)
    stdin.write(KEYS.down)
    stdin.write(KEYS.enter)
    await expect(done).resolves.toBe('20261121-090000-bbbbbb')
  })
})

describe('ago', () => {
  it.each([
    [30_000, 'just now'],
    [59 * 60_000, '59 min'],
    [47 * 3_600_000, '47 h'],
    [49 * 3_600_000, '2 d'],
  ])('%d ms → %s', (ms, text) => expect(ago(ms)).toBe(text))
})
