import { describe, expect, it } from 'vitest'
import { createOutputBuffer } from '../../../source/tasks/output-buffer.js'

const bytes = (text: string) => Buffer.from(text, 'utf8')

/** Deterministic pseudo-random chunk sizes, so failures reproduce. */
function* chunkSizes(seed: number, max: number): Generator<number> {
  let state = seed
  for (;;) {
    state = (state * 1103515245 + 12345) % 2 ** 31
    yield 1 + (state % max)
  }
}

function asciiStream(length: number): string {
  let text = ''
  for (let i = 0; text.length < length; i++) text += `line ${i}\n`
  return text.slice(0, length)
}

describe('createOutputBuffer', () => {
  it('returns everything while under the bounds, and only new output on later reads', () => {
    const buffer = createOutputBuffer({ headBytes: 8, tailBytes: 32 })
    buffer.append(bytes('hello '))
    const first = buffer.read(0)
    expect(first).toEqual({ text: 'hello ', droppedBytes: 0, gapAt: null, cursor: 6 })
    buffer.append(bytes('world\n'))
    const second = buffer.read(first.cursor)
    expect(second).toEqual({ text: 'world\n', droppedBytes: 0, gapAt: null, cursor: 12 })
    expect(buffer.read(second.cursor).text).toBe('')
    expect(buffer.totalBytes).toBe(12)
    expect(buffer.droppedBytes).toBe(0)
  })

  it('keeps the head and the tail, counts the middle, and never allocates past the bounds', () => {
    const head = 100
    const tail = 1000
    const buffer = createOutputBuffer({ headBytes: head, tailBytes: tail })
    const text = asciiStream(200_000)
    const sizes = chunkSizes(7, 3000)
    for (let at = 0; at < text.length; ) {
      const size = sizes.next().value as number
      buffer.append(bytes(text.slice(at, at + size)))
      at += size
      expect(buffer.allocatedBytes).toBeLessThanOrEqual(head + tail)
    }
    const read = buffer.read(0, { final: true })
    expect(read.text).toBe(text.slice(0, head) + text.slice(-tail))
    expect(read.gapAt).toBe(head)
    expect(read.droppedBytes).toBe(text.length - head - tail)
    expect(buffer.droppedBytes).toBe(text.length - head - tail)
    expect(read.cursor).toBe(text.length)
  })

  it('matches a reference model for random chunkings and read points', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const head = seed % 5 === 0 ? 0 : seed * 3
      const tail = 10 + seed * 7
      const buffer = createOutputBuffer({ headBytes: head, tailBytes: tail })
      const text = asciiStream(seed * 97)
      const sizes = chunkSizes(seed, 60)
      let cursor = 0
      let seen = ''
      let dropped = 0
      for (let at = 0; at < text.length; ) {
        const size = sizes.next().value as number
        buffer.append(bytes(text.slice(at, at + size)))
        at += size
        if (size % 3 === 0) {
          const read = buffer.read(cursor)
          // What a reader may miss is exactly what left the tail before it looked.
          const tailStart = Math.max(head, Math.min(at, text.length) - tail)
          const expectedDrop = Math.max(0, tailStart - Math.max(cursor, head))
          expect(read.droppedBytes).toBe(expectedDrop)
          seen += read.text
          dropped += read.droppedBytes
          cursor = read.cursor
        }
      }
      const last = buffer.read(cursor, { final: true })
      seen += last.text
      dropped += last.droppedBytes
      expect(seen.length + dropped).toBe(text.length)
      expect(text.startsWith(seen.slice(0, Math.min(head, seen.length)))).toBe(true)
      expect(text.endsWith(last.text)).toBe(true)
    }
  })

  it('reports bytes dropped between two reads and where they were', () => {
    const buffer = createOutputBuffer({ headBytes: 4, tailBytes: 4 })
    buffer.append(bytes('abcdef'))
    const first = buffer.read(0)
    expect(first).toMatchObject({ text: 'abcdef', droppedBytes: 0, cursor: 6 })
    buffer.append(bytes('0123456789'))
    const second = buffer.read(first.cursor)
    expect(second).toEqual({ text: '6789', droppedBytes: 6, gapAt: 0, cursor: 16 })
  })

  it('holds back a UTF-8 character split across appends until it is complete', () => {
    const euro = bytes('€')
    const buffer = createOutputBuffer()
    buffer.append(bytes('a'))
    buffer.append(euro.subarray(0, 2))
    const first = buffer.read(0)
    expect(first).toMatchObject({ text: 'a', cursor: 1 })
    buffer.append(euro.subarray(2))
    expect(buffer.read(first.cursor)).toMatchObject({ text: '€', cursor: 4 })
  })

  it('decodes an unfinished character once no more output can come', () => {
    const buffer = createOutputBuffer()
    buffer.append(bytes('€').subarray(0, 2))
    expect(buffer.read(0).text).toBe('')
    expect(buffer.read(0, { final: true }).text).toBe('\uFFFD')
  })

  it('drops characters cut by the gap whole instead of decoding halves', () => {
    // Head: "a" + first byte of "€"; the tail starts in the middle of another "€".
    const buffer = createOutputBuffer({ headBytes: 2, tailBytes: 5 })
    buffer.append(bytes('a€€€b'))
    const read = buffer.read(0, { final: true })
    expect(read.text).toBe('a€b')
    expect(read.gapAt).toBe(1)
    expect(read.droppedBytes).toBe(6)
    expect(read.cursor).toBe(11)
  })

  it('skips a partial character when the caller starts mid-character', () => {
    const buffer = createOutputBuffer()
    buffer.append(bytes('x€y'))
    expect(buffer.read(2, { final: true }).text).toBe('y')
  })

  it('keeps only the end of a chunk larger than the whole tail', () => {
    const buffer = createOutputBuffer({ headBytes: 2, tailBytes: 3 })
    buffer.append(bytes('0123456789'))
    expect(buffer.read(0)).toEqual({ text: '01789', droppedBytes: 5, gapAt: 2, cursor: 10 })
    expect(buffer.allocatedBytes).toBe(5)
  })

  it('accounts for skipped bytes as dropped and restarts the tail after them', () => {
    const buffer = createOutputBuffer({ headBytes: 2, tailBytes: 4 })
    buffer.append(bytes('abcd'))
    const first = buffer.read(0)
    buffer.skip(100)
    buffer.append(bytes('xyz'))
    expect(buffer.totalBytes).toBe(107)
    expect(buffer.droppedBytes).toBe(102)
    expect(buffer.read(first.cursor)).toEqual({ text: 'xyz', droppedBytes: 100, gapAt: 0, cursor: 107 })
    expect(buffer.read(0).text).toBe('abxyz')
  })

  it('refuses to skip before the head is full', () => {
    const buffer = createOutputBuffer({ headBytes: 8 })
    buffer.append(bytes('abc'))
    expect(buffer.headRoom).toBe(5)
    expect(() => buffer.skip(1)).toThrow('skip needs a full head (3 of 8 bytes held)')
  })

  it('rejects nonsensical bounds and cursors', () => {
    expect(() => createOutputBuffer({ tailBytes: 0 })).toThrow(/tailBytes must be a positive integer, got 0/)
    expect(() => createOutputBuffer({ headBytes: -1 })).toThrow(/headBytes must be a non-negative integer/)
    const buffer = createOutputBuffer()
    buffer.append(bytes('abc'))
    expect(() => buffer.read(4)).toThrow(/cursor must be an integer between 0 and 3, got 4/)
  })
})
