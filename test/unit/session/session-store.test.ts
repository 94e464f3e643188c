import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { projectKey, uniqueProjectKey } from '../../../source/config/app-paths.js'
import { findSession, listSessions, summarizeSessions } from '../../../source/session/session-store.js'

let dir = ''
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'session-store-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

async function session(id: string, cwd: string, mtime: number, empty = false): Promise<void> {
  const path = join(dir, `${id}.jsonl`)
  const lines = [
    { type: 'header', format: 1, id, cwd, createdAt: 1 },
    ...(empty ? [] : [{ type: 'user', text: `hello from ${cwd}` }]),
  ]
  await writeFile(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`)
  await utimes(path, mtime, mtime)
}

describe('sessions of two projects whose paths share a key', () => {
  it('are told apart by the cwd in their header', async () => {
    expect(projectKey('/x/my-app')).toBe(projectKey('/x/my/app'))
    await session('older-here', '/x/my/app', 1_000)
    await session('newer-there', '/x/my-app', 2_000)

    expect((await listSessions(dir, '/x/my/app')).map((e) => e.id)).toEqual(['older-here'])
    expect((await listSessions(dir, '/x/my-app')).map((e) => e.id)).toEqual(['newer-there'])
    expect(await findSession(dir, 'newer-there', '/x/my/app')).toBeUndefined()
    expect((await summarizeSessions(dir, '/x/my/app')).map((s) => s.id)).toEqual(['older-here'])
    // Without a workspace, every log in the folder (newest first).
    expect((await listSessions(dir)).map((e) => e.id)).toEqual(['newer-there', 'older-here'])
  })

  it('never share a checkpoint repository', () => {
    expect(uniqueProjectKey('/x/my-app')).not.toBe(uniqueProjectKey('/x/my/app'))
    expect(uniqueProjectKey('/x/my-app/')).toBe(uniqueProjectKey('/x/my-app'))
    expect(uniqueProjectKey('/work/main')).toMatch(/^-work-main-[0-9a-f]{8}$/)
  })
})

describe('a session opened and left without a message', () => {
  it('is marked empty and left out of the picker', async () => {
    await session('with-work', '/w', 1_000)
    await session('left-at-once', '/w', 2_000, true)
    expect((await listSessions(dir, '/w')).map((e) => [e.id, e.empty])).toEqual([
      ['left-at-once', true],
      ['with-work', false],
    ])
    expect((await summarizeSessions(dir, '/w')).map((s) => s.id)).toEqual(['with-work'])
  })
})

describe("a session's Claude Code-shaped transcript beside its log", () => {
  it('is no session of its own', async () => {
    await session('abc', '/w', 1_000)
    await writeFile(
      join(dir, 'abc.transcript.jsonl'),
      '{"type":"user","message":{"role":"user","content":"hi"}}\n',
    )
    expect((await listSessions(dir)).map((e) => e.id)).toEqual(['abc'])
  })
})
