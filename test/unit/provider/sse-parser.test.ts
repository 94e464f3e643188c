import { describe, expect, it } from 'vitest'
import { type SseEvent, SseParser } from '../../../source/provider/sse-parser.js'

function parse(chunks: string[], end = true): SseEvent[] {
  const events: SseEvent[] = []
  const parser = new SseParser((e) => events.push(e))
  for (const chunk of chunks) parser.feed(chunk)
  if (end) parser.end()
  return events
}

const STREAM = [
  ': keep-alive comment',
  '',
  'data: {"a":1}',
  '',
  'event: error',
  'data:{"message":"no space after the colon"}',
  '',
  'id: 7',
  'retry: 100',
  'data: first line',
  'data',
  'data: third line',
  '',
  '',
  'data: [DONE]',
  '',
]

const EXPECTED: SseEvent[] = [
  { event: '', data: '{"a":1}' },
  { event: 'error', data: '{"message":"no space after the colon"}' },
  { event: '', data: 'first line\n\nthird line' },
  { event: '', data: '[DONE]' },
]

describe('SseParser', () => {
  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('reads events, multi-line data and the event field with %s line ends, skipping comments', (_n, eol) => {
    expect(parse([STREAM.join(eol)])).toEqual(EXPECTED)
  })

  it('gives the same events however the body is split into chunks', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const body = STREAM.join(eol)
      for (let cut = 0; cut <= body.length; cut++) {
        expect(
          parse([body.slice(0, cut), body.slice(cut)]),
          `cut at ${cut} (${JSON.stringify(eol)})`,
        ).toEqual(EXPECTED)
      }
      expect(parse([...body])).toEqual(EXPECTED)
    }
  })

  it('dispatches each event as soon as its blank line arrives', () => {
    const events: SseEvent[] = []
    const parser = new SseParser((e) => events.push(e))
    parser.feed('data: one\n')
    expect(events).toEqual([])
    parser.feed('\ndata: tw')
    expect(events).toEqual([{ event: '', data: 'one' }])
  })

  it('dispatches a last event the server ended without a blank line, and drops an empty one', () => {
    expect(parse(['data: [DONE]'])).toEqual([{ event: '', data: '[DONE]' }])
    expect(parse(['data: x\n\nevent: ping\n'])).toEqual([{ event: '', data: 'x' }])
  })

  it('strips a byte-order mark at the start, and only there', () => {
    expect(parse(['\uFEFFdata: a\n\ndata: \uFEFFb\n\n'])).toEqual([
      { event: '', data: 'a' },
      { event: '', data: '\uFEFFb' },
    ])
  })

  it('lets an exception from the event handler propagate out of feed', () => {
    const parser = new SseParser(() => {
      throw new Error('handler failed')
    })
    expect(() => parser.feed('data: x\n\n')).toThrow('handler failed')
  })

  it('splits a large chunk of many events in one pass', () => {
    const body = 'data: {"n":1}\n\n'.repeat(20_000)
    expect(parse([body])).toHaveLength(20_000)
  })
})
