import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readSessionTitle } from '../../../source/session/read-session.js'

const dir = mkdtempSync(join(tmpdir(), 'agent-tui-title-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const header = { type: 'header', format: 1, id: 's1', cwd: '/w', createdAt: 1 }
function log(name: string, lines: unknown[], tail = ''): string {
  const path = join(dir, name)
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n${tail}`)
  return path
}

describe('readSessionTitle', () => {
  it("reads the title set from the session's first prompt", async () => {
    const path = log('titled.jsonl', [
      header,
      { type: 'user/submitted', id: 'u1', content: 'fix it', text: 'fix it' },
      { type: 'session/titled', title: 'fix it', ts: 2 },
      { type: 'session/titled', title: 'a later title', ts: 3 },
    ])
    expect(await readSessionTitle(path)).toBe('fix it')
  })

  it('skips a corrupt line before the title, and gives an empty title when there is none', async () => {
    const corrupt = log(
      'corrupt.jsonl',
      [header],
      '{"type":"session/titled", torn\n{"type":"session/titled","title":"ok"}\n',
    )
    expect(await readSessionTitle(corrupt)).toBe('ok')
    expect(await readSessionTitle(log('untitled.jsonl', [header]))).toBe('')
    expect(await readSessionTitle(join(dir, 'missing.jsonl'))).toBe('')
  })
})
