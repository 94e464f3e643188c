import { closeSync, openSync, readFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  type CutState,
  cutIfOver,
  cutMarker,
  fileOffset,
  formatBytes,
  logCap,
  NO_CUT,
  streamOffset,
} from '../../../source/tasks/log-cap.js'
import { makeTempDir } from './helpers.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => {
  ;({ dir, cleanup } = await makeTempDir())
})
afterEach(() => cleanup())

/** Numbered lines, `count` of them from `first`: easy to tell apart and to check for gaps. */
const lines = (first: number, count: number) =>
  Array.from({ length: count }, (_, i) => `line ${first + i}\n`).join('')

/** Writes `chunks` to a fresh file as its only writer, cutting after each write as the spill stream does. */
function writeCapped(chunks: string[], capBytes: number): { file: string; state: CutState; total: number } {
  const file = join(dir, 'out.log')
  const fd = openSync(file, 'w+')
  const cap = logCap(capBytes)
  const scratch = Buffer.alloc(1024)
  let state = NO_CUT
  let total = 0
  try {
    for (const chunk of chunks) {
      const bytes = Buffer.from(chunk)
      const end = readFileSync(file).length
      writeSync(fd, bytes, 0, bytes.length, end)
      total += bytes.length
      state = cutIfOver(fd, cap, state, scratch)
    }
  } finally {
    closeSync(fd)
  }
  return { file, state, total }
}

describe('logCap', () => {
  it.each([
    [64 * 1024 * 1024, 8 * 1024 * 1024, '64 MiB'],
    [8192, 1024, '8 KiB'],
  ])('a %i-byte cap keeps a head of %i bytes (%s)', (capBytes, head, label) => {
    expect(logCap(capBytes)).toEqual({ capBytes, headBytes: head, keepBytes: head })
    expect(formatBytes(capBytes)).toBe(label)
  })

  it('refuses a cap too small for a head, a marker and a tail', () => {
    expect(() => logCap(1000)).toThrow(/at least 4096 bytes/)
  })
})

describe('cutIfOver', () => {
  it('leaves a log under the cap alone', () => {
    const { file, state } = writeCapped([lines(1, 100)], 8192)
    expect(state).toEqual(NO_CUT)
    expect(readFileSync(file, 'utf8')).toBe(lines(1, 100))
  })

  it('keeps the head, a marker with the exact count cut, and the latest output; never more than the cap', () => {
    const all = lines(1, 20_000)
    const chunks = all.match(/[\s\S]{1,700}/g) ?? []
    const { file, state, total } = writeCapped(chunks, 8192)
    const text = readFileSync(file, 'utf8')
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(8192)
    const marker = cutMarker(state.droppedBytes, logCap(8192))
    expect(marker).toMatch(/^\n\[agent-tui: \d+ bytes of output cut here; logs are capped at 8 KiB/)
    const at = text.indexOf(marker)
    expect(at).toBe(state.headEnd)
    const head = text.slice(0, at)
    const tail = text.slice(at + marker.length)
    // The head is the start of the output, the tail its end, and the marker counts exactly what is between.
    expect(all.startsWith(head)).toBe(true)
    expect(all.endsWith(tail)).toBe(true)
    expect(head.length).toBe(1024)
    expect(tail.length).toBeGreaterThanOrEqual(1024)
    expect(head.length + state.droppedBytes + tail.length).toBe(total)
    expect(tail.endsWith('line 20000\n')).toBe(true)
  })

  it('maps output offsets to file offsets around the cut', () => {
    const { file, state, total } = writeCapped([lines(1, 5000)], 8192)
    const bytes = readFileSync(file)
    const all = Buffer.from(lines(1, 5000))
    const last = total - 1
    expect(bytes[fileOffset(state, last) ?? -1]).toBe(all[last])
    expect(bytes[fileOffset(state, 10) ?? -1]).toBe(all[10])
    expect(fileOffset(state, state.headEnd)).toBeUndefined()
    expect(streamOffset(state, bytes.length)).toBe(total)
  })

  it('never splits a UTF-8 character at either edge of the cut', () => {
    const all = 'é€😀'.repeat(3000)
    const { file } = writeCapped(all.match(/[\s\S]{1,333}/gu) ?? [], 8192)
    const text = readFileSync(file, 'utf8')
    expect(text).not.toContain('\uFFFD')
    const [head = '', tail = ''] = text.split(/\n\[agent-tui: \d+ bytes[^\n]*\n/)
    expect(all.startsWith(head)).toBe(true)
    expect(all.endsWith(tail)).toBe(true)
  })
})
