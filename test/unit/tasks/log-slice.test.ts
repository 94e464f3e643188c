import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readLogSlice, sliceOfBuffer } from '../../../source/tasks/log-slice.js'

let dir: string
let path: string
// 1,000 lines of 10 bytes: "line 0000\n" … "line 0999\n".
const log = Array.from({ length: 1000 }, (_, i) => `line ${String(i).padStart(4, '0')}\n`).join('')

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-tui-log-'))
  path = join(dir, 'b1.log')
  await writeFile(path, log)
})
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('readLogSlice', () => {
  it('reads the end of the log, starting at a line start', async () => {
    const slice = await readLogSlice(path, 25)
    expect(slice).toEqual({ text: 'line 0998\nline 0999\n', start: 9980, end: 10000, size: 10000 })
  })

  it('reads the piece before an offset, and the piece from one, joining into whole lines', async () => {
    const before = await readLogSlice(path, 25, { before: 9980 })
    expect(before).toMatchObject({ text: 'line 0996\nline 0997\n', start: 9960, end: 9980 })
    const from = await readLogSlice(path, 25, { from: 0 })
    expect(from).toMatchObject({ text: 'line 0000\nline 0001\n', start: 0, end: 20 })
    const next = await readLogSlice(path, 25, { from: from.end })
    expect(next.text).toBe('line 0002\nline 0003\n')
  })

  it('reads a missing log as empty, and the in-memory variant cuts the same way', async () => {
    expect(await readLogSlice(join(dir, 'none.log'), 100)).toEqual({ text: '', start: 0, end: 0, size: 0 })
    expect(sliceOfBuffer(Buffer.from(log), 25, { before: 9980 })).toEqual(
      await readLogSlice(path, 25, { before: 9980 }),
    )
  })
})

describe('readLogSlice of a log a sandboxed command replaced', () => {
  it('reads nothing through a link (the viewer never shows the file it leads to) and does not stall on a FIFO', async () => {
    const { symlink } = await import('node:fs/promises')
    const { execFileSync } = await import('node:child_process')
    await writeFile(join(dir, 'id_rsa'), 'PRIVATE KEY\n')
    await symlink(join(dir, 'id_rsa'), join(dir, 'b2.log'))
    expect((await readLogSlice(join(dir, 'b2.log'), 1000)).text).toBe('')
    execFileSync('mkfifo', [join(dir, 'b3.log')])
    expect(await readLogSlice(join(dir, 'b3.log'), 1000)).toEqual({ text: '', start: 0, end: 0, size: 0 })
  })
})
