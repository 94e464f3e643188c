import { mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  eventText,
  filterSessions,
  logMentions,
  searchSessionContent,
} from '../../../source/session/session-search.js'

const line = (v: unknown) => JSON.stringify(v)

describe('eventText', () => {
  it.each([
    [{ type: 'user/submitted', id: 'u', content: 'fix the parser' }, 'fix the parser'],
    [
      { type: 'user/submitted', id: 'u', content: [{ type: 'text', text: 'look' }, { type: 'image_url' }] },
      'look\n',
    ],
    [{ type: 'assistant/settled', id: 'a', message: { role: 'assistant', content: 'Done.' } }, 'Done.'],
    [{ type: 'assistant/settled', id: 'a', message: { role: 'assistant', content: null } }, ''],
    [{ type: 'session/renamed', title: 'auth work' }, 'auth work'],
    [{ type: 'tool/finished', callId: 'c', content: 'parser output' }, ''],
    [{ type: 'header', cwd: '/parser' }, ''],
    [null, ''],
  ])('%j → %j', (event, text) => {
    expect(eventText(event)).toBe(text)
  })
})

describe('logMentions', () => {
  const log = [
    line({ type: 'header', format: 1, id: 's', cwd: '/w' }),
    line({ type: 'user/submitted', id: 'u', content: 'Say "hi"\nthen stop' }),
    line({ type: 'tool/finished', callId: 'c', content: 'secret-tool-output' }),
    '{"type":"user/submitted","content":"torn',
  ].join('\n')
  it.each([
    ['say "hi"', true],
    ['hi"\nthen', true],
    ['then stop', true],
    ['secret-tool-output', false],
    ['user/submitted', false],
    ['torn', false],
  ])('%j → %s', (needle, found) => {
    expect(logMentions(log, needle.toLowerCase())).toBe(found)
  })
})

describe('filterSessions', () => {
  const sessions = [
    { id: '20261122-aaaa', title: 'Fix the flaky test' },
    { id: '20261121-bbbb', title: 'add a --json flag' },
    { id: '20261120-cccc', title: '' },
  ]
  it.each([
    ['', [], ['20261122-aaaa', '20261121-bbbb', '20261120-cccc']],
    ['FLAKY', [], ['20261122-aaaa']],
    ['bbbb', [], ['20261121-bbbb']],
    ['json', ['20261120-cccc', '20261121-bbbb'], ['20261121-bbbb', '20261120-cccc']],
    ['nothing', ['20261122-aaaa'], ['20261122-aaaa']],
    ['nothing', [], []],
  ])('%j with content matches %j → %j', (query, content, ids) => {
    expect(filterSessions(sessions, query, new Set(content)).map((s) => s.id)).toEqual(ids)
  })
})

let dir: string
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-search-')))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function session(id: string, said: string, padding = 0): Promise<{ id: string; path: string }> {
  const path = join(dir, `${id}.jsonl`)
  const lines = [line({ type: 'header', format: 1, id, cwd: '/w' })]
  if (padding) lines.push(line({ type: 'notice/added', id: 'n', level: 'info', text: 'x'.repeat(padding) }))
  lines.push(line({ type: 'user/submitted', id: 'u', content: said }))
  await writeFile(path, `${lines.join('\n')}\n`)
  return { id, path }
}

describe('searchSessionContent', () => {
  it('finds the sessions whose conversation says it, in order, each reported as found', async () => {
    const all = [
      await session('a', 'migrate the database'),
      await session('b', 'other'),
      await session('c', 'Database'),
    ]
    const seen: string[] = []
    const found = await searchSessionContent(all, 'database', { onMatch: (id) => seen.push(id) })
    expect([...found]).toEqual(['a', 'c'])
    expect(seen).toEqual(['a', 'c'])
  })

  it('is bounded: past maxBytesPerSession and past maxSessions nothing is read', async () => {
    const all = [
      await session('a', 'needle', 5000),
      await session('b', 'other'),
      await session('c', 'needle'),
    ]
    expect([...(await searchSessionContent(all, 'needle', { maxBytesPerSession: 1000 }))]).toEqual(['c'])
    expect([...(await searchSessionContent(all, 'needle', { maxSessions: 2 }))]).toEqual(['a'])
  })

  it('stops when aborted, and skips a log it cannot read or that is a link', async () => {
    const target = await session('t', 'needle')
    const linked = join(dir, 'link.jsonl')
    await symlink(target.path, linked)
    const all = [
      { id: 'gone', path: join(dir, 'gone.jsonl') },
      { id: 'link', path: linked },
      { id: 'nopath' },
    ]
    expect([...(await searchSessionContent(all, 'needle'))]).toEqual([])
    const abort = new AbortController()
    abort.abort()
    expect([...(await searchSessionContent([target], 'needle', { signal: abort.signal }))]).toEqual([])
  })
})
