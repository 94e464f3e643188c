import { describe, expect, it } from 'vitest'
import { sliceOfBuffer } from '../../../source/tasks/log-slice.js'
import {
  atHead,
  followed,
  logRows,
  MAX_LOADED_BYTES,
  needsEarlier,
  needsLater,
  scrolled,
  withEarlier,
  withLater,
} from '../../../source/ui/panes/tasks/log-window.js'

const lines = (n: number) =>
  Array.from({ length: n }, (_, i) => `row ${i}`)
    .join('\n')
    .concat('\n')

describe('the task viewer log window', () => {
  const log = Buffer.from(lines(100))
  const width = 40
  const height = 5

  it('follows the end; scrolling up leaves it, back to the bottom follows again', () => {
    const tail = followed(sliceOfBuffer(log, 60))
    const total = logRows(tail.text, width).length
    const up = scrolled(tail, -3, total, height)
    expect(up).toMatchObject({ follow: false, fromBottom: 3 })
    expect(scrolled(up, 3, total, height)).toMatchObject({ follow: true, fromBottom: 0 })
  })

  it('asks for the piece before what is loaded when scrolled to its top, and keeps the same rows in view', () => {
    const tail = followed(sliceOfBuffer(log, 60))
    const total = logRows(tail.text, width).length
    const top = scrolled(tail, -100, total, height)
    expect(needsEarlier(top, total, height)).toBe(true)
    const shownBefore = logRows(top.text, width).slice(0, height)
    const joined = withEarlier(top, sliceOfBuffer(log, 60, { before: top.start }), width)
    expect(joined.start).toBeLessThan(top.start)
    const rows = logRows(joined.text, width)
    const bottom = rows.length - joined.fromBottom
    expect(rows.slice(bottom - height, bottom)).toEqual(shownBefore)
  })

  it('from the head, scrolling down asks for the next piece and joins it', () => {
    const head = atHead(sliceOfBuffer(log, 60, { from: 0 }), width, height)
    expect(logRows(head.text, width).slice(0, 1)).toEqual(['row 0'])
    const total = logRows(head.text, width).length
    const down = scrolled(head, 100, total, height)
    expect(needsLater(down)).toBe(true)
    const joined = withLater(down, sliceOfBuffer(log, 60, { from: down.end }), width)
    expect(joined.text.startsWith(head.text)).toBe(true)
    expect(joined.end).toBeGreaterThan(down.end)
    expect(joined.fromBottom).toBeGreaterThan(0)
  })

  it('never keeps more than the cap in memory', () => {
    const big = Buffer.from(lines(120_000))
    let win = atHead(sliceOfBuffer(big, 64 * 1024, { from: 0 }), width, height)
    for (let i = 0; i < 20; i++) {
      win = scrolled(win, 1_000_000, logRows(win.text, width).length, height)
      win = withLater(win, sliceOfBuffer(big, 64 * 1024, { from: win.end }), width)
    }
    expect(Buffer.byteLength(win.text)).toBeLessThanOrEqual(MAX_LOADED_BYTES)
    expect(win.start).toBeGreaterThan(0)
  })
})
